/**
 * The reference graphs of the refgraph layout (FastCollect section 3.1 and 5): the
 * heap's shape in compressed sparse row form, one graph per generation, kept up to
 * date while the program runs so that a GPU marker can trace vertices and edges
 * instead of heap objects.
 *
 * A generation graph has
 *  - a vertex array of 2 u32 per vertex: first edge, object address. A vertex's edge
 *    count is the next vertex's first edge minus its own (CSR), so the slot after the
 *    last vertex holds a sentinel first edge, the graph's edge count;
 *  - an edge array in which each vertex's edges start on a 4-word boundary, so a
 *    kernel reads them as vec4<u32> (FastCollect section 4.3). The padding is 0, a
 *    null edge, since the derived count includes it.
 * An edge value is 0 for null, v+1 for young vertex v, 0x80000000 | (v+1) for tenured
 * vertex v. The object's header word a+2 holds its vertex id in its generation.
 *
 * Maintenance (FastCollect section 5, "Maintenance of Heap Reference Graph"):
 *  - allocation appends a vertex and reserves its edges (`addVertex`);
 *  - every reference store writes the edge too (`writeEdge`, the double write);
 *  - a young collection rebuilds the young graph from the survivors and appends the
 *    promoted objects' vertices to the tenured graph (`rebuildAfterEvacuation`);
 *  - a full collection compacts the tenured graph in address order as the sweep
 *    meets live objects (`beginTenuredCompaction`, `keepTenured`,
 *    `endTenuredCompaction`): dead vertices disappear, ids are renumbered, and edges
 *    pointing at tenured vertices are renumbered through a remap table.
 * The heap stays the source of truth: moved vertices take their edges from the moved
 * objects' reference slots, and gc/verify.ts checks graph against heap.
 */

import { HEADER_WORDS, LAYOUT_WORD, TYPE_WORD } from './object-model.js';
import { SCATTERED, refRunEnd, type RefSlots, type RefTables } from './ref-slots.js';
import { TENURED_EDGE, TENURED_EDGE_INT, VERTEX_ADDRESS, VERTEX_FIRST, VERTEX_WORDS } from './graph-format.js';

/** What a device evacuation's rebuild of the graphs wrote (gc/marker.ts DeviceGraph). */
export interface DeviceGraph {
  readonly youngVertices: number;
  readonly youngEdges: number;
  readonly tenuredVertexBase: number;
  readonly tenuredEdgeBase: number;
  readonly tenuredVertices: number;
  readonly tenuredEdges: number;
  /** The remembered slots' new edges came back too, in the order of their runs' slots. */
  readonly rememberedEdges: boolean;
}

/** What the graphs read of the heap: heap.ts's HeapImpl, seen from below so
 *  that the two files do not import each other. */
export interface GraphHeap {
  readonly words: Int32Array;
  readonly tenuredStart: number;
  readonly refSlots: RefSlots;
}

export { TENURED_EDGE, VERTEX_ADDRESS, VERTEX_FIRST, VERTEX_WORDS };

/** The first edge of vertex `v`. */
export function vertexFirst(vertices: Uint32Array, v: number): number {
  return vertices[v * VERTEX_WORDS + VERTEX_FIRST]!;
}

/** The edges of vertex `v`, padding included (a multiple of 4): up to the next
 *  vertex's first edge, or the sentinel after the last vertex. */
export function vertexEdges(vertices: Uint32Array, v: number): number {
  return vertices[(v + 1) * VERTEX_WORDS + VERTEX_FIRST]! - vertices[v * VERTEX_WORDS + VERTEX_FIRST]!;
}

/** The heap address of vertex `v`'s object. */
export function vertexAddress(vertices: Uint32Array, v: number): number {
  return vertices[v * VERTEX_WORDS + VERTEX_ADDRESS]!;
}

/** The edge to the object at `v` (0 for null), as an int32: a tenured edge is negative,
 *  which a Uint32Array store keeps bit for bit and V8 keeps a small integer. */
function edgeTo(words: Int32Array, tenuredStart: number, v: number): number {
  const id = v === 0 ? 0 : words[v + LAYOUT_WORD]! + 1;
  return v >= tenuredStart ? TENURED_EDGE_INT | id : id;
}

/** Vertex words a GPU mirror or a copy must hold for `vertexCount` vertices: the
 *  sentinel slot too, since the last vertex's count reads it. */
export function vertexWordsInUse(vertexCount: number): number {
  return (vertexCount + 1) * VERTEX_WORDS;
}

/** In-place tenured edge writes are tracked for GPU mirrors in blocks of 128 edges. */
const EDGE_BLOCK_SHIFT = 7;
const EDGE_BLOCK = 1 << EDGE_BLOCK_SHIFT;

/** A zeroed Uint32Array over a SharedArrayBuffer: a GPU marker's worker thread
 *  (gpu/worker/gpu-worker.ts) reads the graphs in place instead of being sent copies. */
function sharedU32(length: number): Uint32Array {
  return new Uint32Array(new SharedArrayBuffer(length * 4));
}

/** Edge words zeroed at a time ahead of the program's appends: one fill per this many
 *  words instead of a loop over every object's few edges. */
const ZERO_AHEAD_WORDS = 2048;

/**
 * One generation's graph; only the prefixes in use matter. The arrays start at the
 * capacity the caller gives and grow by doubling past it.
 *
 * The edges in [edgeCount, zeroedTo) are 0, so an allocation's vertex takes its null
 * edges (padding included) without writing them; `addVertex` zeroes ahead in blocks.
 * Edges at and past `cleanFrom` have never been written since the array was made. A
 * rebuild (`reset`, appends, `endRebuild`) writes every edge itself and zeroes nothing
 * ahead.
 */
export class GenerationGraph {
  vertices: Uint32Array;
  edges: Uint32Array;
  vertexCount = 0;
  /** Edge words in use, padding included (a multiple of 4). */
  edgeCount = 0;
  private zeroedTo: number;
  private cleanFrom = 0;

  constructor(vertexWords = VERTEX_WORDS * 1024, edgeWords = 4096) {
    this.vertices = sharedU32(Math.max(vertexWords, VERTEX_WORDS));
    this.edges = sharedU32(edgeWords);
    this.zeroedTo = edgeWords;
  }

  /** Empties the graph for a rebuild: the appends that follow (`appendVertex`) write
   *  every edge, so nothing is zeroed ahead until `endRebuild`. */
  reset(): this {
    this.cleanFrom = Math.max(this.cleanFrom, this.edgeCount);
    this.zeroedTo = this.edges.length;
    this.vertexCount = 0;
    this.edgeCount = 0;
    this.vertices[VERTEX_FIRST] = 0;
    return this;
  }

  /** After a rebuild: the edges past the last vertex are stale until zeroed ahead. */
  endRebuild(): void {
    this.zeroedTo = this.edgeCount;
  }

  /** Takes `vertices` vertices with `edges` edges (padding included) that another
   *  thread appended to the arrays, as many `appendVertex` calls would have: the
   *  sentinel after them is written here. */
  adoptAppended(vertices: number, edges: number): void {
    this.vertexCount += vertices;
    this.edgeCount += edges;
    this.vertices[this.vertexCount * VERTEX_WORDS + VERTEX_FIRST] = this.edgeCount;
    if (this.edgeCount > this.zeroedTo) this.zeroedTo = this.edgeCount;
  }

  /** Appends a vertex for the object at `addr` with `edgeCount` null edges; returns its id. */
  addVertex(addr: number, edgeCount: number): number {
    const id = this.vertexCount;
    const first = this.edgeCount;
    const next = first + ((edgeCount + 3) & ~3);
    if (next > this.zeroedTo || (id + 2) * VERTEX_WORDS > this.vertices.length) this.makeRoom(next);
    const v = this.vertices;
    const o = id * VERTEX_WORDS;
    v[o + VERTEX_FIRST] = first;
    v[o + VERTEX_ADDRESS] = addr;
    // The sentinel: the next append writes the same value there.
    v[o + VERTEX_WORDS + VERTEX_FIRST] = next;
    this.vertexCount = id + 1;
    this.edgeCount = next;
    return id;
  }

  /**
   * Appends a vertex whose `edgeCount` edges the caller writes before anything reads
   * them (a rebuild from the heap's slots); only the padding after them is zeroed
   * here, and a rebuild zeroes nothing ahead, so it writes each edge word once.
   */
  appendVertex(addr: number, edgeCount: number): number {
    const id = this.addVertex(addr, edgeCount);
    const edges = this.edges;
    for (let k = vertexFirst(this.vertices, id) + edgeCount; k < this.edgeCount; k++) edges[k] = 0;
    return id;
  }

  /** Grows the arrays for one more vertex whose edges end at `next`, and makes the
   *  edges up to `next` and a block past it 0. */
  private makeRoom(next: number): void {
    if ((this.vertexCount + 2) * VERTEX_WORDS > this.vertices.length) {
      const v = sharedU32(this.vertices.length * 2);
      v.set(this.vertices);
      this.vertices = v;
    }
    if (next > this.edges.length) {
      let cap = this.edges.length * 2;
      while (cap < next) cap *= 2;
      const e = sharedU32(cap);
      e.set(this.edges.subarray(0, this.edgeCount));
      this.edges = e;
      this.cleanFrom = this.edgeCount;
      this.zeroedTo = cap;
    }
    if (next <= this.zeroedTo) return;
    const from = Math.max(this.zeroedTo, this.edgeCount);
    const to = Math.min(this.edges.length, Math.max(next, from + ZERO_AHEAD_WORDS));
    if (from < this.cleanFrom) this.edges.fill(0, from, Math.min(to, this.cleanFrom));
    this.zeroedTo = to >= this.cleanFrom ? this.edges.length : to;
  }

  bytesInUse(): number {
    return 4 * (vertexWordsInUse(this.vertexCount) + this.edgeCount);
  }
}

export class RefGraph {
  young: GenerationGraph;
  tenured: GenerationGraph;
  /** A full collection's compaction moves the tenured graph into this one, and the
   *  two swap, so collections allocate nothing. The young graph has no spare: its
   *  rebuild reads only the heap, so it writes over itself, in memory the program's
   *  allocations have already touched (docs/decisions/s35-06-one-young-graph.md). */
  private spareTenured: GenerationGraph;
  private remap = new Uint32Array(1024);
  edgeWrites = 0;
  /** Vertices the program appended to the young graph before its last rebuild, and
   *  the young graph's size after it (counted so, an allocation keeps no counter). */
  private youngAppendsBefore = 0;
  private youngAfterRebuild = 0;
  private tenuredAppends = 0;
  /** The heap's, which never move: one field load fewer at every store. */
  private readonly tenuredStart: number;
  private readonly words: Int32Array;

  /**
   * Each graph is made as large as its generation can need, so it never grows: a
   * generation of W words holds at most W / HEADER_WORDS objects (as many vertices,
   * plus the sentinel's slot) and at most W edge words (an object of n references has
   * HEADER_WORDS + n words and n rounded up to 4 edges). The memory is reserved, not touched: growing by doubling
   * wrote every page twice or more, and a first write to a page is the expensive part
   * of allocating under a virtual machine.
   */
  constructor(private readonly heap: GraphHeap) {
    this.tenuredStart = heap.tenuredStart;
    this.words = heap.words;
    const youngWords = heap.tenuredStart;
    const tenuredWords = heap.words.length - heap.tenuredStart;
    const vertexWords = (words: number): number => vertexWordsInUse(Math.ceil(words / HEADER_WORDS));
    this.young = new GenerationGraph(vertexWords(youngWords), youngWords);
    this.tenured = new GenerationGraph(vertexWords(tenuredWords), tenuredWords);
    this.spareTenured = new GenerationGraph(vertexWords(tenuredWords), tenuredWords);
  }

  /** Allocation: a vertex in the generation the address belongs to. */
  addVertex(a: number, edgeCount: number): number {
    if (a < this.tenuredStart) return this.young.addVertex(a, edgeCount);
    this.tenuredAppends++;
    return this.tenured.addVertex(a, edgeCount);
  }

  /** Vertices the program's allocations appended (a collection's are not counted). */
  get vertexAppends(): number {
    return this.youngAppendsBefore + this.young.vertexCount - this.youngAfterRebuild + this.tenuredAppends;
  }

  /** The edge value for a reference to the object at `value` (0 for null). */
  encode(value: number): number {
    return edgeTo(this.words, this.tenuredStart, value) >>> 0;
  }

  /** The write barrier's second write: edge `edge` of the object at `obj`. */
  writeEdge(obj: number, edge: number, value: number): void {
    this.edgeWrites++;
    const words = this.words;
    const x = edgeTo(words, this.tenuredStart, value);
    if (obj >= this.tenuredStart) return this.writeTenuredEdge(words[obj + LAYOUT_WORD]!, edge, x);
    const g = this.young;
    g.edges[vertexFirst(g.vertices, words[obj + LAYOUT_WORD]!) + edge] = x;
  }

  /** `writeEdge` into tenured vertex `id`: apart, so that the young case stays small
   *  enough for V8 to inline at every store. */
  private writeTenuredEdge(id: number, edge: number, x: number): void {
    const g = this.tenured;
    const e = vertexFirst(g.vertices, id) + edge;
    g.edges[e] = x;
    this.noteTenuredEdge(e);
  }

  // ---------------------------------------------------------- GPU mirrors

  /** Tenured edges written in place since the last `takeDirtyGraphs`, by block. */
  private dirtyEdgeBlocks = new Uint8Array(64);
  /** Tenured vertices and edges below these existed at the last `takeDirtyGraphs`. */
  private takenVertexCount = 0;
  private takenEdgeCount = 0;
  /** Set by a full collection's compaction: every tenured word may have moved. */
  private tenuredRenumbered = true;

  /** Tenured edge `e` was written in place: the program's store, one block byte. */
  private noteTenuredEdge(e: number): void {
    const b = e >> EDGE_BLOCK_SHIFT;
    if (b >= this.dirtyEdgeBlocks.length) this.growDirtyBlocks(b);
    this.dirtyEdgeBlocks[b] = 1;
  }

  private growDirtyBlocks(b: number): void {
    const d = new Uint8Array(Math.max(b + 1, this.dirtyEdgeBlocks.length * 2));
    d.set(this.dirtyEdgeBlocks);
    this.dirtyEdgeBlocks = d;
  }

  /** Tenured edges [e0, e1) (e1 > e0) were written in place. */
  private noteTenuredEdges(e0: number, e1: number): void {
    const b1 = (e1 - 1) >> EDGE_BLOCK_SHIFT;
    if (b1 >= this.dirtyEdgeBlocks.length) this.growDirtyBlocks(b1);
    this.dirtyEdgeBlocks.fill(1, e0 >> EDGE_BLOCK_SHIFT, b1 + 1);
  }

  /**
   * Word ranges of the graph arrays written since the previous call, for GPU mirrors
   * (gpu/mirror/mirror.ts GraphDirty): the young graph is rebuilt by every collection and
   * grows with every allocation, so it is always uploaded whole (fields absent); the
   * tenured graph reports its appended vertices (with the sentinel after them) and
   * edges plus the edge blocks written in place, or everything after a full
   * collection renumbered it.
   */
  takeDirtyGraphs(): { tenuredVertices?: number[]; tenuredEdges?: number[] } {
    const g = this.tenured;
    const blocks = this.dirtyEdgeBlocks;
    let out: { tenuredVertices?: number[]; tenuredEdges?: number[] } = {};
    if (!this.tenuredRenumbered) {
      const edges: number[] = [];
      const appended = this.takenEdgeCount;
      const n = Math.min(blocks.length, (appended + EDGE_BLOCK - 1) >> EDGE_BLOCK_SHIFT);
      for (let b = 0; b < n; b++) {
        if (blocks[b] === 0) continue;
        const start = b;
        while (b < n && blocks[b] !== 0) b++;
        edges.push(start << EDGE_BLOCK_SHIFT, Math.min(appended, b << EDGE_BLOCK_SHIFT));
      }
      if (g.edgeCount > appended) edges.push(appended, g.edgeCount);
      out = {
        tenuredVertices: g.vertexCount > this.takenVertexCount ? [this.takenVertexCount * VERTEX_WORDS, vertexWordsInUse(g.vertexCount)] : [],
        tenuredEdges: edges,
      };
    }
    blocks.fill(0);
    this.takenVertexCount = g.vertexCount;
    this.takenEdgeCount = g.edgeCount;
    this.tenuredRenumbered = false;
    return out;
  }

  /** The edge index of reference slot `slot` of the object at `a`. */
  edgeIndexOfSlot(a: number, slot: number): number {
    return this.heap.refSlots.indexOf(this.words, a, slot);
  }

  /**
   * After evacuation, with every reference in the heap already redirected: gives the
   * moved objects (`moved`: their new header addresses) fresh vertices in the new
   * young graph or, if promoted, at the end of the tenured graph, then rewrites their
   * edges and those of the remembered-set slots (runs of slots: run k is
   * (`remRuns[2k]`, `remRuns[2k+1]` slots) of tenured object `remObjects[k]`), the
   * only other edges that can name young vertices.
   */
  rebuildAfterEvacuation(moved: Int32Array, count: number, remRuns: Int32Array, remObjects: Int32Array): void {
    const h = this.heap;
    const words = h.words;
    const { contiguous, kind, refBegin, refCount, refOffsets } = h.refSlots.view();
    const tenuredStart = h.tenuredStart;
    const young = this.beginYoungRebuild();
    const tenured = this.tenured;
    // Pass 1: new ids for every moved object, so pass 2 can encode edges to them.
    for (let i = 0; i < count; i++) {
      const a = moved[i]!;
      const end = refRunEnd(words, kind, contiguous, a);
      const n = end === SCATTERED ? refCount[words[a + TYPE_WORD]!]! : end - a - HEADER_WORDS;
      words[a + LAYOUT_WORD] = a >= tenuredStart ? tenured.appendVertex(a, n) : young.appendVertex(a, n);
    }
    // Pass 2: every edge of every moved vertex from its object's slots.
    for (let i = 0; i < count; i++) {
      const a = moved[i]!;
      const g = a >= tenuredStart ? tenured : young;
      let edge = vertexFirst(g.vertices, words[a + LAYOUT_WORD]!);
      const edges = g.edges;
      const end = refRunEnd(words, kind, contiguous, a);
      // The scanner's two forms in loops of their own: one branch per object, not per edge.
      if (end !== SCATTERED) {
        for (let s = a + HEADER_WORDS; s < end; s++, edge++) {
          edges[edge] = edgeTo(words, tenuredStart, words[s]!);
        }
        continue;
      }
      const t = words[a + TYPE_WORD]!;
      for (let j = refBegin[t]!, e = j + refCount[t]!; j < e; j++, edge++) {
        edges[edge] = edgeTo(words, tenuredStart, words[a + refOffsets[j]!]!);
      }
    }
    this.rewriteRemembered(remRuns, remObjects);
    this.endYoungRebuild();
  }

  /**
   * After a device evacuation that rebuilt the graphs itself into these arrays
   * (gpu/kernels/evacuate-graph.wgsl), as `rebuildAfterEvacuation` would with the
   * same moves, and wrote the copies' layout words: takes its new young graph
   * and the vertices it appended to the tenured graph, then rewrites the
   * remembered set's edges, as that method does, with `remEdges` (their values,
   * in the runs' slots' order) when the device computed them; the runs that
   * `placed` gives a start (`rememberedEdgeStarts`) the device wrote already.
   */
  adoptRebuild(d: DeviceGraph, remRuns: Int32Array, remObjects: Int32Array, remEdges?: Uint32Array, placed?: Int32Array | null): void {
    const tenured = this.tenured;
    if (tenured.vertexCount !== d.tenuredVertexBase || tenured.edgeCount !== d.tenuredEdgeBase) {
      throw new Error(
        `refgraph: the device appended to a tenured graph of ${d.tenuredVertexBase} vertices and ${d.tenuredEdgeBase} edges, ` +
          `which has ${tenured.vertexCount} and ${tenured.edgeCount}`,
      );
    }
    this.beginYoungRebuild().adoptAppended(d.youngVertices, d.youngEdges);
    tenured.adoptAppended(d.tenuredVertices, d.tenuredEdges);
    const computed = d.rememberedEdges === true;
    this.rewriteRemembered(remRuns, remObjects, computed ? remEdges : undefined, computed ? placed : null);
    this.endYoungRebuild();
  }

  /**
   * Per remembered run k (`remRuns[2k]`, `remRuns[2k+1]` slots of tenured object
   * `remObjects[k]`), the tenured edge its first slot's edge is, where the
   * object's references are a run (their edges are then consecutive too), else
   * -1: where a device evacuation may write the run's new edges itself.
   */
  rememberedEdgeStarts(remRuns: Int32Array, remObjects: Int32Array, out: Int32Array): Int32Array {
    const words = this.words;
    const { contiguous, kind } = this.heap.refSlots.view();
    const n = remRuns.length >>> 1;
    for (let k = 0; k < n; k++) out[k] = this.runEdgeStart(words, kind, contiguous, remObjects[k]!, remRuns[2 * k]!);
    return out.subarray(0, n);
  }

  /** The tenured edge of slot `s` of tenured object `a` when the object's
   *  references are a run (their edges are then consecutive too), else -1. */
  private runEdgeStart(words: Int32Array, kind: RefTables['kind'], contiguous: boolean, a: number, s: number): number {
    if (refRunEnd(words, kind, contiguous, a) === SCATTERED) return -1;
    return vertexFirst(this.tenured.vertices, words[a + LAYOUT_WORD]!) + s - a - HEADER_WORDS;
  }

  /** The young graph emptied for a rebuild, the program's appends to it counted first. */
  private beginYoungRebuild(): GenerationGraph {
    this.youngAppendsBefore += this.young.vertexCount - this.youngAfterRebuild;
    return this.young.reset();
  }

  private endYoungRebuild(): void {
    this.young.endRebuild();
    this.youngAfterRebuild = this.young.vertexCount;
  }

  /** The edges of the remembered-set slots (runs k of (`remRuns[2k]`, `remRuns[2k+1]`
   *  slots) of tenured object `remObjects[k]`): `values`, one per slot in the runs'
   *  order, or else from the slots as they are now; a run `placed` gives a start
   *  is in place already, and only noted for the GPU's copy of the graph. */
  private rewriteRemembered(remRuns: Int32Array, remObjects: Int32Array, values?: Uint32Array, placed: Int32Array | null = null): void {
    const h = this.heap;
    const words = h.words;
    const { contiguous, kind } = h.refSlots.view();
    const tenuredStart = this.tenuredStart;
    const tenured = this.tenured;
    const edges = tenured.edges;
    for (let k = 0, off = 0; 2 * k < remRuns.length; k++) {
      const s0 = remRuns[2 * k]!;
      const s1 = s0 + remRuns[2 * k + 1]!;
      const v0 = off;
      off += s1 - s0;
      if (s1 <= s0) continue;
      if (placed !== null && placed[k]! >= 0) {
        this.noteTenuredEdges(placed[k]!, placed[k]! + s1 - s0);
        continue;
      }
      const a = remObjects[k]!;
      const e0 = this.runEdgeStart(words, kind, contiguous, a, s0);
      if (e0 >= 0) {
        // A run of references (an array's): a large remembered set is mostly such runs.
        if (values) edges.set(values.subarray(v0, off), e0);
        else for (let s = s0, e = e0; s < s1; s++, e++) edges[e] = edgeTo(words, tenuredStart, words[s]!);
        this.noteTenuredEdges(e0, e0 + s1 - s0);
        continue;
      }
      const first = vertexFirst(tenured.vertices, words[a + LAYOUT_WORD]!);
      for (let s = s0; s < s1; s++) {
        const e = first + this.edgeIndexOfSlot(a, s);
        edges[e] = values ? values[v0 + s - s0]! : edgeTo(words, tenuredStart, words[s]!);
        this.noteTenuredEdge(e);
      }
    }
  }

  /** Full collection, before the sweep: start a new, empty tenured graph. */
  beginTenuredCompaction(): void {
    const old = this.tenured;
    if (this.remap.length < old.vertexCount) this.remap = new Uint32Array(old.vertexCount * 2);
    this.remap.fill(0, 0, old.vertexCount);
    this.tenured = this.spareTenured.reset();
    this.spareTenured = old;
    this.tenuredRenumbered = true;
  }

  /** The sweep met the live tenured object at `a`: move its vertex into the new graph. */
  keepTenured(a: number): void {
    const words = this.words;
    const old = this.spareTenured;
    const oldId = words[a + LAYOUT_WORD]!;
    const first = vertexFirst(old.vertices, oldId);
    const n = vertexEdges(old.vertices, oldId);
    const g = this.tenured;
    // The padded count: the copy brings the padding's zeros, so nothing is zeroed first.
    const id = g.appendVertex(a, n);
    const nf = vertexFirst(g.vertices, id);
    const from = old.edges;
    const to = g.edges;
    // A loop for an object's few edges: `set` would need a view per object, garbage for V8.
    if (n <= 16) for (let k = 0; k < n; k++) to[nf + k] = from[first + k]!;
    else to.set(from.subarray(first, first + n), nf);
    this.remap[oldId] = id + 1;
    words[a + LAYOUT_WORD] = id;
  }

  /** After the sweep: renumber the edges that point at tenured vertices. */
  endTenuredCompaction(): void {
    const g = this.tenured;
    const edges = g.edges;
    const remap = this.remap;
    for (let e = 0; e < g.edgeCount; e++) {
      const x = edges[e]!;
      if (x >= TENURED_EDGE) edges[e] = (TENURED_EDGE | remap[(x & 0x7fffffff) - 1]!) >>> 0;
    }
    g.endRebuild();
  }

  bytesInUse(): number {
    return this.young.bytesInUse() + this.tenured.bytesInUse();
  }

  /** Every graph array, as words: `--pretouch` maps their pages with the heap's. */
  arrays(): Int32Array[] {
    return [this.young, this.tenured, this.spareTenured].flatMap((g) => [new Int32Array(g.vertices.buffer), new Int32Array(g.edges.buffer)]);
  }
}
