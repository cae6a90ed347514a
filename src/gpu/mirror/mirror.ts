/**
 * The GPU's mirror of the heap (sable layout) or of the reference graphs
 * (refgraph layout), kept across collections so that each collection uploads
 * only what changed since the previous one.
 *
 * The contract: before a mark, the caller passes the word ranges written since
 * the last update (what was allocated since the last collection, dirty cards,
 * objects moved by evacuation, graph vertices and edges written); `'all'` (or
 * no ranges for a graph array) uploads everything in use. A heap mirror starts
 * all zero (WebGPU zero-initializes buffers), as the heap's words did, so its
 * first update too takes only the ranges written since the heap was created
 * (heap.ts takeDirtyRanges: the occupied young spaces and tenured's written
 * cards, not the whole 1 GiB); a caller that cannot tell passes 'all'.
 *
 * Uploads go through reused MAP_WRITE staging buffers, several times faster than
 * queue.writeBuffer (docs/decisions/r19g-0009), whose re-mapping overlaps with
 * the next collection's mutator time. lavapipe caps one storage binding at 128 MiB, so the heap is
 * split into power-of-two chunks of at most maxStorageBufferBindingSize, each
 * bound on its own; kernels pick the chunk with a switch (see `HeapMirror.accessors`).
 */
import type { GpuContext } from '../device/device.js';
import { GpuAdapterLimitError } from '../device/adapter.js';
import { bufferSize, floorPow2, GrowableBuffer, Readback, u32View } from '../device/buffers.js';
import type { BindingSpec } from '../device/shader.js';
import { vertexWordsInUse } from '../../heap/ref-graph.js';
import { copyWordsInto } from '../../heap/native-copy.js';
import { atParityOf, bufferWord } from '../../heap/word-parity.js';
import { now } from '../../heap/clock.js';

/** Word ranges as flat [start, end) pairs: [s0, e0, s1, e1, ...]. */
export type DirtyRanges = ArrayLike<number>;

/** Bytes and host milliseconds of one update, for MarkTimes. */
export interface UploadStats {
  bytes: number;
  ms: number;
}

/** One generation's reference graph in CSR form (FastCollect §3.1). */
export interface CsrGraph {
  /** VERTEX_WORDS u32 per vertex (heap/ref-graph.ts): first edge, object address; then
   *  a sentinel slot whose first edge is `edgeCount`, since a vertex's edge count is
   *  the next vertex's first edge minus its own. */
  readonly vertices: Uint32Array;
  readonly vertexCount: number;
  /** Edge targets; each vertex's edges start at a multiple of 4 (padded with 0) so that
   *  they load as vec4<u32>. 0 = null, young vertex v = v+1, tenured v = 0x80000000|(v+1). */
  readonly edges: Uint32Array;
  /** Words of `edges` in use (padding included). */
  readonly edgeCount: number;
}

/** What the refgraph layout keeps beside the heap: one graph per generation. */
export interface RefGraphs {
  readonly young: CsrGraph;
  readonly tenured: CsrGraph;
}

/** Word ranges of each graph array written since the last update; an absent
 *  field means "upload all words in use" of that array. */
export interface GraphDirty {
  readonly youngVertices?: DirtyRanges;
  readonly youngEdges?: DirtyRanges;
  readonly tenuredVertices?: DirtyRanges;
  readonly tenuredEdges?: DirtyRanges;
}

/** Sorted, clamped, merged ranges; gaps shorter than `gap` words are uploaded
 *  too, since each range costs one copy command. */
export function coalesce(ranges: DirtyRanges | 'all', limit: number, gap = 256): number[] {
  if (ranges === 'all') return limit > 0 ? [0, limit] : [];
  const pairs: [number, number][] = [];
  for (let i = 0; i + 1 < ranges.length; i += 2) {
    const s = Math.max(0, Math.floor(ranges[i]!));
    const e = Math.min(limit, Math.ceil(ranges[i + 1]!));
    if (e > s) pairs.push([s, e]);
  }
  pairs.sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  for (const [s, e] of pairs) {
    const n = out.length;
    if (n > 0 && s <= out[n - 1]! + gap) out[n - 1] = Math.max(out[n - 1]!, e);
    else out.push(s, e);
  }
  return out;
}

interface Slot {
  buffer: GPUBuffer;
  view: Uint32Array | null;
  ready: Promise<void> | null;
  used: number;
  copies: { srcByte: number; dst: GPUBuffer; dstByte: number; bytes: number }[];
}

/** Uploads through a ring of reused MAP_WRITE staging buffers. */
export class StagingUploader {
  private readonly slots: Slot[] = [];
  private current = 0;

  constructor(
    private readonly device: GPUDevice,
    private readonly slotBytes = 8 << 20,
    slotCount = 2,
  ) {
    for (let i = 0; i < slotCount; i++) {
      const buffer = device.createBuffer({
        size: slotBytes,
        usage: GPUBufferUsage.MAP_WRITE | GPUBufferUsage.COPY_SRC,
        mappedAtCreation: true,
        label: `staging ${i}`,
      });
      this.slots.push({ buffer, view: new Uint32Array(buffer.getMappedRange()), ready: null, used: 0, copies: [] });
    }
  }

  /** Stages words `src` to be copied to `dst` at word offset `dstWord`. */
  async write(dst: GPUBuffer, dstWord: number, src: Uint32Array): Promise<void> {
    let done = 0;
    while (done < src.length) {
      const slot = await this.mapped();
      // At the source's parity, a copy out of the shared heap goes eight bytes at a time.
      const at = atParityOf(slot.used >> 2, bufferWord(src, done));
      const room = (this.slotBytes >> 2) - at;
      if (room <= 0) {
        this.submitSlot();
        continue;
      }
      const n = Math.min(room, src.length - done);
      copyWordsInto(slot.view!, at, src, done, n);
      slot.copies.push({ srcByte: at * 4, dst, dstByte: (dstWord + done) * 4, bytes: n * 4 });
      slot.used = (at + n) * 4;
      done += n;
    }
  }

  /** Submits what is staged; resolves when the copies have reached the device. */
  async flush(): Promise<void> {
    this.submit();
    await this.device.queue.onSubmittedWorkDone();
  }

  /** Submits what is staged without waiting: work submitted after it sees the
   *  copies (a queue runs its submits in order). */
  submit(): void {
    if (this.slots[this.current]!.copies.length > 0) this.submitSlot();
  }

  private async mapped(): Promise<Slot> {
    const slot = this.slots[this.current]!;
    if (slot.ready) {
      await slot.ready;
      slot.ready = null;
      slot.view = new Uint32Array(slot.buffer.getMappedRange());
    }
    return slot;
  }

  private submitSlot(): void {
    const slot = this.slots[this.current]!;
    slot.view = null;
    slot.buffer.unmap();
    const enc = this.device.createCommandEncoder({ label: 'mirror upload' });
    for (const c of slot.copies) enc.copyBufferToBuffer(slot.buffer, c.srcByte, c.dst, c.dstByte, c.bytes);
    this.device.queue.submit([enc.finish()]);
    slot.copies = [];
    slot.used = 0;
    // Re-mapping overlaps with whatever the host does next; `mapped()` waits for it.
    // A device destroyed first (the program ended right after an upload ahead)
    // rejects it with an AbortError that nobody waits for: that one is expected.
    slot.ready = slot.buffer.mapAsync(GPUMapMode.WRITE);
    slot.ready.catch(() => {});
    this.current = (this.current + 1) % this.slots.length;
  }

  destroy(): void {
    for (const s of this.slots) s.buffer.destroy();
    this.slots.length = 0;
  }
}

/** The heap's words on the device, in chunks of `chunkWords` (a power of two). */
export class HeapMirror {
  readonly chunkWords: number;
  readonly chunks: GPUBuffer[] = [];
  /** For `read` (--verify-gc), reused across calls and chunks. */
  private readonly readback: Readback;

  constructor(
    private readonly ctx: GpuContext,
    readonly heapWords: number,
    private readonly uploader: StagingUploader,
    chunkWords = 0,
  ) {
    const limit = floorPow2(Math.min(ctx.limits.maxStorageBufferBindingSize, ctx.limits.maxBufferSize) / 4);
    this.chunkWords = chunkWords > 0 ? Math.min(floorPow2(chunkWords), limit) : limit;
    const count = Math.max(1, Math.ceil(heapWords / this.chunkWords));
    const maxChunks = ctx.limits.maxStorageBuffersPerShaderStage - 8;
    if (count > maxChunks) {
      // Bad input (a heap too large for this adapter), not a bug: exit 69 with a way out.
      const mib = (words: number): number => Math.floor((words * 4) / 2 ** 20);
      throw new GpuAdapterLimitError(
        `the GPU's copy of a ${mib(heapWords)} MiB heap needs ${count} storage bindings of ${mib(this.chunkWords)} MiB, ` +
          `over the ${maxChunks} the adapter '${ctx.adapter.name}' allows; use --heap ${mib(maxChunks * this.chunkWords)}m ` +
          `or less, or --layout refgraph`,
      );
    }
    this.readback = new Readback(ctx.device, 'mirror read-back');
    for (let c = 0; c < count; c++) {
      const words = Math.min(this.chunkWords, heapWords - c * this.chunkWords);
      this.chunks.push(
        ctx.device.createBuffer({
          size: bufferSize(words * 4),
          // COPY_SRC: --verify-gc reads the mirror back (`read`).
          usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC,
          label: `heap chunk ${c}`,
        }),
      );
    }
  }

  /** Uploads the words of `ranges`; the device copy starts all zero, so on the
   *  first update `ranges` must cover every word written since the words were. */
  async update(words: Int32Array | Uint32Array, ranges: DirtyRanges | 'all'): Promise<UploadStats> {
    const t0 = now();
    const { bytes } = await this.stage(words, ranges);
    if (bytes > 0) await this.uploader.flush();
    return { bytes, ms: now() - t0 };
  }

  /** As `update`, but does not wait for the copies: whatever is submitted after
   *  them (a mark) sees them, since a queue runs its submits in order. */
  async stage(words: Int32Array | Uint32Array, ranges: DirtyRanges | 'all'): Promise<UploadStats> {
    const t0 = now();
    const src = u32View(words);
    const merged = coalesce(ranges, Math.min(src.length, this.heapWords));
    let bytes = 0;
    for (let i = 0; i < merged.length; i += 2) {
      let s = merged[i]!;
      const e = merged[i + 1]!;
      while (s < e) {
        const c = Math.floor(s / this.chunkWords);
        const end = Math.min(e, (c + 1) * this.chunkWords);
        await this.uploader.write(this.chunks[c]!, s - c * this.chunkWords, src.subarray(s, end));
        bytes += (end - s) * 4;
        s = end;
      }
    }
    this.uploader.submit();
    return { bytes, ms: now() - t0 };
  }

  /** The device copy, read back whole (for --verify-gc; one chunk at a time). */
  async read(): Promise<Uint32Array> {
    const device = this.ctx.device;
    const out = new Uint32Array(this.heapWords);
    for (let c = 0; c < this.chunks.length; c++) {
      const words = Math.min(this.chunkWords, this.heapWords - c * this.chunkWords);
      const bytes = bufferSize(words * 4);
      const target = this.readback.target(bytes);
      const enc = device.createCommandEncoder({ label: 'mirror read-back' });
      enc.copyBufferToBuffer(this.chunks[c]!, 0, target, 0, bytes);
      device.queue.submit([enc.finish()]);
      await this.readback.readWith(words * 4, (view) => out.set(view, c * this.chunkWords));
    }
    return out;
  }

  /** Binding specs (the heap chunks) for a kernel reading the heap, or (`writable`,
   *  word-wide only) writing it: the evacuation replay. */
  bindings(vector: boolean, writable = false): BindingSpec[] {
    return this.chunks.map((_, c) => ({
      name: `heap${c}`,
      kind: writable ? ('storage' as const) : ('read-only-storage' as const),
      type: vector && !writable ? 'array<vec4<u32>>' : 'array<u32>',
    }));
  }

  /** `heapStore(a, v)` over writable word-wide chunk bindings. */
  storeAccessor(): string {
    return this.chunkFn('heapStore(a: u32, v: u32)', 'a', this.chunkWords, (heap, at) => `${heap}[${at}] = v;`);
  }

  /** WGSL `fn <signature>` whose body is `stmt(binding, index in it)` for the
   *  chunk holding element `index` (chunks of `perChunk` elements): with one
   *  chunk `index` itself, else a switch over the chunks. */
  private chunkFn(
    signature: string,
    index: string,
    perChunk: number,
    stmt: (heap: string, at: string) => string,
  ): string {
    const n = this.chunks.length;
    if (n === 1) return `fn ${signature} { ${stmt('heap0', index)} }`;
    const cases = this.chunks.map(
      (_, c) => `${c === n - 1 ? 'default' : `case ${c}u`}: { ${stmt(`heap${c}`, 'o')} }`,
    );
    return (
      `fn ${signature} {\n  let o = ${index} & ${perChunk - 1}u;\n` +
      `  switch (${index} >> ${Math.log2(perChunk)}u) {\n    ${cases.join('\n    ')}\n  }\n}`
    );
  }

  buffers(): Record<string, GPUBuffer> {
    return Object.fromEntries(this.chunks.map((b, c) => [`heap${c}`, b]));
  }

  /** `heapWord(a)` and `heapQuad(q)` (q = a / 4) over the chunk bindings. */
  accessors(vector: boolean): string {
    const load = (heap: string, at: string): string => `return ${heap}[${at}];`;
    if (vector) {
      return [
        this.chunkFn('heapQuad(q: u32) -> vec4<u32>', 'q', this.chunkWords / 4, load),
        'fn heapWord(a: u32) -> u32 { return lane(heapQuad(a >> 2u), a & 3u); }',
      ].join('\n');
    }
    return [
      this.chunkFn('heapWord(a: u32) -> u32', 'a', this.chunkWords, load),
      'fn heapQuad(q: u32) -> vec4<u32> {\n  let a = q << 2u;\n' +
        '  return vec4<u32>(heapWord(a), heapWord(a + 1u), heapWord(a + 2u), heapWord(a + 3u));\n}',
    ].join('\n');
  }

  destroy(): void {
    for (const b of this.chunks) b.destroy();
    this.chunks.length = 0;
    this.readback.destroy();
  }
}

const GRAPH_ARRAYS = ['youngVertices', 'youngEdges', 'tenuredVertices', 'tenuredEdges'] as const;

/** The two generations' reference graphs on the device (four growable buffers). */
export class GraphMirror {
  private readonly bufs: Record<(typeof GRAPH_ARRAYS)[number], GrowableBuffer>;

  constructor(
    ctx: GpuContext,
    private readonly uploader: StagingUploader,
  ) {
    const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST;
    const max = ctx.limits.maxStorageBufferBindingSize;
    this.bufs = {
      youngVertices: new GrowableBuffer(ctx.device, usage, 'young vertices', max),
      youngEdges: new GrowableBuffer(ctx.device, usage, 'young edges', max),
      tenuredVertices: new GrowableBuffer(ctx.device, usage, 'tenured vertices', max),
      tenuredEdges: new GrowableBuffer(ctx.device, usage, 'tenured edges', max),
    };
  }

  /** Uploads the graph arrays' changed words; a buffer that had to grow is uploaded whole. */
  async update(graphs: RefGraphs, dirty: GraphDirty = {}): Promise<UploadStats> {
    const t0 = now();
    let bytes = 0;
    const arrays = {
      youngVertices: [graphs.young.vertices, vertexWordsInUse(graphs.young.vertexCount)],
      youngEdges: [graphs.young.edges, Math.ceil(graphs.young.edgeCount / 4) * 4],
      tenuredVertices: [graphs.tenured.vertices, vertexWordsInUse(graphs.tenured.vertexCount)],
      tenuredEdges: [graphs.tenured.edges, Math.ceil(graphs.tenured.edgeCount / 4) * 4],
    } as const;
    for (const name of GRAPH_ARRAYS) {
      const [src, used] = arrays[name];
      const { buffer, fresh } = this.bufs[name].ensure(used * 4);
      const ranges = coalesce(fresh ? 'all' : (dirty[name] ?? 'all'), Math.min(used, src.length));
      for (let i = 0; i < ranges.length; i += 2) {
        await this.uploader.write(buffer, ranges[i]!, src.subarray(ranges[i]!, ranges[i + 1]!));
        bytes += (ranges[i + 1]! - ranges[i]!) * 4;
      }
    }
    if (bytes > 0) await this.uploader.flush();
    return { bytes, ms: now() - t0 };
  }

  bindings(vector: boolean): BindingSpec[] {
    const edge = vector ? 'array<vec4<u32>>' : 'array<u32>';
    return [
      { name: 'yv', kind: 'read-only-storage', type: 'array<u32>' },
      { name: 'ye', kind: 'read-only-storage', type: edge },
      { name: 'tv', kind: 'read-only-storage', type: 'array<u32>' },
      { name: 'te', kind: 'read-only-storage', type: edge },
    ];
  }

  buffers(): Record<string, GPUBuffer> {
    return {
      yv: this.bufs.youngVertices.buffer,
      ye: this.bufs.youngEdges.buffer,
      tv: this.bufs.tenuredVertices.buffer,
      te: this.bufs.tenuredEdges.buffer,
    };
  }

  /** `edgeWord(g, i)` and `edgeQuad(g, q)` for generation g (0 young, 1 tenured). */
  accessors(vector: boolean): string {
    if (vector) {
      return [
        'fn edgeQuad(g: u32, q: u32) -> vec4<u32> { if (g == 0u) { return ye[q]; } return te[q]; }',
        'fn edgeWord(g: u32, i: u32) -> u32 { return lane(edgeQuad(g, i >> 2u), i & 3u); }',
      ].join('\n');
    }
    return [
      'fn edgeWord(g: u32, i: u32) -> u32 { if (g == 0u) { return ye[i]; } return te[i]; }',
      'fn edgeQuad(g: u32, q: u32) -> vec4<u32> {\n  let i = q << 2u;\n' +
        '  return vec4<u32>(edgeWord(g, i), edgeWord(g, i + 1u), edgeWord(g, i + 2u), edgeWord(g, i + 3u));\n}',
    ].join('\n');
  }

  destroy(): void {
    for (const n of GRAPH_ARRAYS) this.bufs[n].destroy();
  }
}
