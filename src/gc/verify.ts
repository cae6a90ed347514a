/**
 * `--verify-gc`: checks every collector reuses, independent of the collector's code.
 *
 * `verifyHeap` walks the heap after a collection and stops at the first problem:
 *  - a bad header: unknown type id, missing header tag, a forwarding header left
 *    behind, an impossible length or reference count, an object running past its
 *    space, a malformed free chunk;
 *  - a missed old-to-young card: a tenured object holding a young reference in a
 *    clean card (the next young collection would not see it);
 *  - a dangling reference, from a root or from a reachable object: pointing outside
 *    the heap, into free eden or survivor space, into the empty survivor space, into
 *    a free chunk, or into the middle of an object;
 *  - a card of the block offset table naming no block start at or before it.
 * `verifyMarks` compares any Marker's result with an independent CPU traversal and
 * names the first missing or extra object; the GPU markers' tests call it.
 * Both throw HeapVerificationError, whose message names the address and the fault.
 */

import { CARD_DIRTY, blockEnd, blockHint } from '../heap/card-table.js';
import type { HeapImpl } from '../heap/heap.js';
import {
  FREE_CHUNK,
  FREE_WORD,
  HEADER_TAG,
  HEADER_WORDS,
  KIND_INSTANCE,
  KIND_REF_ARRAY,
  LAYOUT_WORD,
  STATUS_FORWARDED,
  headerAt,
} from '../heap/object-model.js';
import { vertexAddress, vertexEdges, vertexFirst } from '../heap/ref-graph.js';
import { RefSlots } from '../heap/ref-slots.js';
import type { MarkRequest, MarkResult } from './marker.js';

export class HeapVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HeapVerificationError';
  }
}

function fail(message: string): never {
  throw new HeapVerificationError(message);
}

/**
 * Calls `visit(slot)` for each reference slot of the object at `a`, as the type
 * table places them: the scanner without the layout word (`contiguous` false), so
 * a sable object whose a+2 lies to the collectors is still traced right here.
 */
function forEachRefSlot(heap: HeapImpl, a: number, visit: (slot: number) => void): void {
  typedSlots(heap).forEach(heap.words, a, visit);
}

const typedScanners = new WeakMap<HeapImpl, RefSlots>();

function typedSlots(heap: HeapImpl): RefSlots {
  let s = typedScanners.get(heap);
  if (s === undefined) typedScanners.set(heap, (s = new RefSlots(heap.types, false)));
  return s;
}

/**
 * Walks [start, end) object by object (free blocks allowed only in tenured), checking
 * headers and recording each header in `headers`. Returns nothing; throws on a fault.
 */
function walkSpace(
  heap: HeapImpl,
  space: string,
  start: number,
  end: number,
  headers: Uint32Array | null,
  onObject: (a: number) => void,
  onFree: (p: number, size: number) => void = () => {},
): void {
  const words = heap.words;
  const types = heap.types;
  const tenured = space === 'tenured';
  let p = start;
  while (p < end) {
    const w = words[p]!;
    if (w < 0) {
      if (!tenured) fail(`bad header at ${p} in ${space}: free-space marker ${w} outside tenured`);
      if (w === FREE_WORD) {
        onFree(p, 1);
        p += 1;
        continue;
      }
      if (w !== FREE_CHUNK) fail(`bad header at ${p} in tenured: word ${w} is neither a header nor a free chunk`);
      const size = words[p + 1]!;
      if (size < 2 || p + size > end) fail(`bad free chunk at ${p} in tenured: size ${size} runs past ${end}`);
      onFree(p, size);
      p += size;
      continue;
    }
    const sableLead = (w & HEADER_TAG) === 0;
    const a = sableLead ? p + w : p;
    if (sableLead && (w < 2 || a + HEADER_WORDS > end)) fail(`bad header at ${p} in ${space}: lead word ${w} is not a valid scalar area size`);
    const status = words[a]!;
    const t = words[a + 1]!;
    if ((status & HEADER_TAG) === 0) fail(`bad header at ${a} in ${space}: status word ${status} lacks the header tag`);
    if ((status & STATUS_FORWARDED) !== 0) fail(`bad header at ${a} in ${space}: forwarding header left after collection`);
    if (!types.isValid(t)) fail(`bad header at ${a} in ${space}: unknown type id ${t}`);
    const kind = types.kind[t]!;
    const len = words[a + 3]!;
    if (kind === KIND_INSTANCE) {
      if (len !== 0) fail(`bad header at ${a} in ${space}: instance of ${types.names[t]} with length word ${len}`);
      if (types.left[t]! !== (sableLead ? w : 0)) {
        fail(`bad header at ${a} in ${space}: ${types.names[t]} has ${types.left[t]} words left of its header, lead word says ${sableLead ? w : 0}`);
      }
    } else {
      if (len < 0) fail(`bad header at ${a} in ${space}: ${types.names[t]} with negative length ${len}`);
      if (sableLead) fail(`bad header at ${a} in ${space}: array ${types.names[t]} preceded by a lead word`);
    }
    if (heap.refSlots.contiguous) {
      // The layout word is the scanner's count: check it against the type.
      const refs = kind === KIND_INSTANCE ? types.refCount[t]! : kind === KIND_REF_ARRAY ? len : 0;
      if (words[a + LAYOUT_WORD] !== refs) {
        fail(`bad header at ${a} in ${space}: reference count ${words[a + LAYOUT_WORD]} but ${types.names[t]} has ${refs}`);
      }
    }
    const next = a + HEADER_WORDS + types.rightWords(words, a);
    if (next > end) fail(`bad header at ${a} in ${space}: ${types.names[t]} of ${next - p} words runs past the space end ${end}`);
    if (headers) headers[a >>> 5]! |= 1 << (a & 31);
    onObject(a);
    p = next;
  }
}

/**
 * A marker's copy of the heap (the GPU heap mirror) must equal the heap in every
 * header word and reference word of every object in the occupied survivor space
 * and tenured, after the copy took the writes still pending. Scalar words may
 * differ: no marker reads them.
 */
export function verifyHeapCopy(heap: HeapImpl, copy: Uint32Array, markerName = 'marker'): void {
  const words = heap.words;
  // Under refgraph the layout word names a graph vertex, which the CPU renumbers
  // (rebuilds, compaction) and the copy, kept to move words, need not follow.
  const layoutWord = heap.graph !== null ? (a: number): number => a + LAYOUT_WORD : (): number => -1;
  const check = (space: string) => (a: number): void => {
    const same = (s: number): void => {
      if ((copy[s]! | 0) === words[s] || s === layoutWord(a)) return;
      fail(
        `${markerName}'s copy of the heap differs at word ${s} of the ${heap.types.names[words[a + 1]!]} at ${a} ` +
          `in ${space}: the heap holds ${words[s]}, the copy ${copy[s]! | 0}`,
      );
    };
    for (let s = a; s < a + HEADER_WORDS; s++) same(s);
    forEachRefSlot(heap, a, same);
  };
  walkSpace(heap, 'survivor', heap.fromStart, heap.fromTop, null, check('survivor'));
  walkSpace(heap, 'tenured', heap.tenuredStart, heap.tenuredEnd, null, check('tenured'));
}

/** Where `v` points, in words for an error message. */
function describe(heap: HeapImpl, v: number): string {
  if (v < 0 || v >= heap.words.length) return `${v}, outside the heap`;
  if (v < heap.youngStart) return `${v}, into the reserved words`;
  if (v >= heap.edenStart && v < heap.edenEnd) {
    return v >= heap.edenTop ? `${v}, into free eden space` : `${v}, into eden but not at an object header`;
  }
  if (v >= heap.fromStart && v < heap.fromEnd) {
    return v >= heap.fromTop ? `${v}, into free survivor space` : `${v}, into survivor space but not at an object header`;
  }
  if (v >= heap.toStart && v < heap.toEnd) return `${v}, into the empty survivor space (from-space)`;
  // Tenured: find the block containing v by walking from tenured's start.
  const words = heap.words;
  let p = heap.tenuredStart;
  while (p < heap.tenuredEnd) {
    const next = blockEnd(words, heap.types, p);
    if (words[p]! >= 0 && v < next && v >= p) {
      const a = headerAt(words, p);
      return `${v}, inside the ${heap.typeName(words[a + 1]!)} at ${a} but not at its header`;
    }
    if (next <= p) break;
    if (v < next && v >= p) return `${v}, into the free chunk at ${p}`;
    p = next;
  }
  return `${v}, into tenured but not at an object header`;
}

/** Checks the whole heap; see the module comment. Throws HeapVerificationError. */
export function verifyHeap(heap: HeapImpl): void {
  const words = heap.words;
  const ys = heap.youngStart;
  const ye = heap.youngEnd;
  const headers = objectHeaders(heap, (a) => {
    // The card invariant holds for every tenured object, live or not: a dirty card's
    // scan reads every object in it, so a stale young reference anywhere would do harm.
    forEachRefSlot(heap, a, (s) => {
      const v = words[s]!;
      if (v >= ys && v < ye && heap.cards.cards[heap.cards.cardOf(s)] !== CARD_DIRTY) {
        fail(
          `missed old-to-young card: slot ${s} of the ${heap.typeName(words[a + 1]!)} at ${a} refers to young ${v} ` +
            `but card ${heap.cards.cardOf(s)} is clean`,
        );
      }
    });
  });
  const isObject = (v: number): boolean =>
    v > 0 && v < words.length && (headers[v >>> 5]! & (1 << (v & 31))) !== 0;

  // Reachability from the roots.
  const seen = new Uint32Array(headers.length);
  const stack: number[] = [];
  heap.roots.visitRoots((slots, from, to) => {
    for (let i = from; i < to; i++) {
      const v = slots[i]!;
      if (v === 0) continue;
      if (!isObject(v)) fail(`dangling reference in root slot ${i}: ${describe(heap, v)}`);
      stack.push(v);
    }
  });
  while (stack.length > 0) {
    const a = stack.pop()!;
    if ((seen[a >>> 5]! & (1 << (a & 31))) !== 0) continue;
    seen[a >>> 5]! |= 1 << (a & 31);
    forEachRefSlot(heap, a, (s) => {
      const v = words[s]!;
      if (v === 0) return;
      if (!isObject(v)) {
        fail(`dangling reference at ${s} in the ${heap.typeName(words[a + 1]!)} at ${a}: ${describe(heap, v)}`);
      }
      stack.push(v);
    });
  }
  verifyBlockOffsets(heap);
  if (heap.graph !== null) verifyRefGraph(heap, headers);
}

/**
 * The block offset table: each card names the start of a block (object or free
 * block) at or before the card's first word, from which a walk reaches the card.
 * A card naming the middle of an object or of a free chunk would send a dirty
 * card's scan or a sweep region's walk through garbage. Tenured's blocks were
 * checked by the walk already.
 */
function verifyBlockOffsets(heap: HeapImpl): void {
  const base = heap.tenuredStart;
  const starts = new Uint32Array((heap.tenuredEnd - base + 31) >>> 5);
  for (let p = base; p < heap.tenuredEnd; p = blockEnd(heap.words, heap.types, p)) {
    starts[(p - base) >>> 5]! |= 1 << ((p - base) & 31);
  }
  const ct = heap.cards;
  for (let c = 0; c < ct.count; c++) {
    const h = blockHint(ct.blockStart, base, c);
    const first = ct.cardStart(c);
    if (h < base || h > first || (starts[(h - base) >>> 5]! & (1 << ((h - base) & 31))) === 0) {
      fail(`block offset table: card ${c} (first word ${first}) names ${h}, which is no block start at or before it: ${describe(heap, h)}`);
    }
  }
}

/** The header bitmap of every object in eden, the occupied survivor and tenured;
 *  `onTenured` sees each tenured object. Checks tenured's accounting on the way. */
function objectHeaders(heap: HeapImpl, onTenured: (a: number) => void = () => {}): Uint32Array {
  const headers = new Uint32Array((heap.words.length + 31) >>> 5);
  const noop = (): void => {};
  walkSpace(heap, 'eden', heap.edenStart, heap.edenTop, headers, noop);
  walkSpace(heap, 'survivor', heap.fromStart, heap.fromTop, headers, noop);
  const freeStarts = new Map<number, number>();
  let freeWords = 0;
  walkSpace(heap, 'tenured', heap.tenuredStart, heap.tenuredEnd, headers, onTenured, (p, size) => {
    freeStarts.set(p, size);
    freeWords += size;
  });
  verifyFreeList(heap, freeStarts, freeWords);
  return headers;
}

/**
 * Tenured's accounting: objects and free blocks tile tenured (the walk), every
 * listed chunk is one free block of the walk, no two overlap, and the free
 * words counted equal the free blocks' words. Space handed out and never
 * written, or handed back twice, fails here rather than as a later
 * out-of-memory or a corrupted object.
 */
function verifyFreeList(heap: HeapImpl, freeStarts: Map<number, number>, freeWords: number): void {
  const chunks = heap.freeList.chunks().sort((x, y) => x[0] - y[0]);
  let prevEnd = heap.tenuredStart;
  for (const [start, size] of chunks) {
    if (start < prevEnd) fail(`free list: chunk [${start}, ${start + size}) overlaps the chunk before it, which ends at ${prevEnd}`);
    const block = freeStarts.get(start);
    if (block === undefined) fail(`free list: chunk [${start}, ${start + size}) does not begin a free block of tenured: ${describe(heap, start)}`);
    if (block !== size) fail(`free list: chunk [${start}, ${start + size}) but the free block there has ${block} words`);
    prevEnd = start + size;
  }
  if (heap.freeList.freeWords !== freeWords) {
    fail(`free list: counts ${heap.freeList.freeWords} free words in tenured, but tenured's free blocks hold ${freeWords}`);
  }
}

const hex = (x: number): string => `0x${(x >>> 0).toString(16)}`;

/**
 * refgraph: the reference graphs must equal the heap. Every object has a vertex in its
 * generation's graph that records its address, whose derived edge count is the
 * object's reference count padded to 4, each edge encodes what the corresponding
 * reference slot holds and each padding edge is 0 (null), edge runs start on 4-word
 * boundaries, each graph's sentinel after its last vertex is its edge count, and each
 * graph has exactly one vertex per object (dead vertices dropped).
 */
export function verifyRefGraph(heap: HeapImpl, headers: Uint32Array = objectHeaders(heap)): void {
  const graph = heap.graph;
  if (graph === null) return;
  const words = heap.words;
  const slots = typedSlots(heap);
  const counts = [0, 0];
  for (let w = 0; w < headers.length; w++) {
    let bits = headers[w]!;
    while (bits !== 0) {
      const b = 31 - Math.clz32(bits & -bits);
      bits &= bits - 1;
      const a = w * 32 + b;
      const tenured = a >= heap.tenuredStart;
      const gen = tenured ? 'tenured' : 'young';
      const g = tenured ? graph.tenured : graph.young;
      counts[tenured ? 1 : 0]!++;
      const what = `the ${heap.typeName(words[a + 1]!)} at ${a}`;
      const id = words[a + LAYOUT_WORD]!;
      if (id < 0 || id >= g.vertexCount) {
        fail(`refgraph: ${what} has vertex id ${id}, but the ${gen} graph has ${g.vertexCount} vertices`);
      }
      if (vertexAddress(g.vertices, id) !== a) {
        fail(`refgraph: ${what} claims ${gen} vertex ${id}, which records address ${vertexAddress(g.vertices, id)}`);
      }
      const n = slots.refCount(words, a);
      const padded = (n + 3) & ~3;
      const count = vertexEdges(g.vertices, id);
      if (count !== padded) {
        fail(`refgraph: ${gen} vertex ${id} (${what}) has ${count} edges, the object has ${n} references (${padded} padded)`);
      }
      const first = vertexFirst(g.vertices, id);
      if (first % 4 !== 0 || first + padded > g.edgeCount) {
        fail(`refgraph: ${gen} vertex ${id} (${what}) has its edges at ${first}, not a 4-word boundary within ${g.edgeCount}`);
      }
      for (let j = 0; j < n; j++) {
        const s = slots.slot(words, a, j);
        const expected = graph.encode(words[s]!);
        if (g.edges[first + j] !== expected) {
          fail(
            `refgraph: edge ${j} of ${gen} vertex ${id} (${what}, slot ${s}) is ${hex(g.edges[first + j]!)}, ` +
              `the heap says ${hex(expected)} (reference ${words[s]})`,
          );
        }
      }
      for (let j = n; j < padded; j++) {
        if (g.edges[first + j] !== 0) {
          fail(`refgraph: padding edge ${j} of ${gen} vertex ${id} (${what}) is ${hex(g.edges[first + j]!)}, not 0`);
        }
      }
    }
  }
  for (const [gen, g] of [['young', graph.young], ['tenured', graph.tenured]] as const) {
    const sentinel = vertexFirst(g.vertices, g.vertexCount);
    if (sentinel !== g.edgeCount) {
      fail(`refgraph: the ${gen} graph's sentinel after its ${g.vertexCount} vertices is ${sentinel}, not its edge count ${g.edgeCount}`);
    }
  }
  if (counts[0] !== graph.young.vertexCount) {
    fail(`refgraph: the young graph has ${graph.young.vertexCount} vertices for ${counts[0]} young objects`);
  }
  if (counts[1] !== graph.tenured.vertexCount) {
    fail(`refgraph: the tenured graph has ${graph.tenured.vertexCount} vertices for ${counts[1]} tenured objects`);
  }
}

/**
 * Compares a marker's result with an independent traversal for the same request.
 * Throws HeapVerificationError naming the first (lowest-addressed) missing or extra
 * object; `markerName` goes into the message.
 */
export function verifyMarks(heap: HeapImpl, request: MarkRequest, result: MarkResult, markerName = 'marker'): void {
  const words = heap.words;
  const young = request.kind === 'young';
  const lo = young ? request.youngStart : 1;
  const hi = young ? request.youngEnd : words.length;
  const expected = new Uint32Array((words.length + 31) >>> 5);
  const stack: number[] = [];
  let count = 0;
  const visit = (v: number): void => {
    if (v < lo || v >= hi) return;
    const bit = 1 << (v & 31);
    if ((expected[v >>> 5]! & bit) !== 0) return;
    expected[v >>> 5]! |= bit;
    count++;
    stack.push(v);
  };
  for (const r of request.roots) visit(r);
  while (stack.length > 0) {
    const a = stack.pop()!;
    forEachRefSlot(heap, a, (s) => visit(words[s]!));
  }
  const got = result.bitmap;
  for (let w = lo >>> 5; w <= (hi - 1) >>> 5; w++) {
    let diff = (expected[w]! ^ got[w]!) >>> 0;
    // Bits of the first and last word outside [lo, hi) are not the marker's business.
    while (diff !== 0) {
      const b = 31 - Math.clz32(diff & -diff);
      diff &= diff - 1;
      const a = w * 32 + b;
      if (a < lo || a >= hi) continue;
      if ((expected[w]! & (1 << b)) !== 0) {
        fail(`${markerName} missed the reachable ${heap.typeName(words[a + 1]!)} at ${a} (${request.kind} mark)`);
      }
      fail(`${markerName} marked ${a}, which is not a reachable object (${request.kind} mark)`);
    }
  }
  if (young && result.live !== undefined) {
    const live = result.live;
    for (let i = 0; i < live.length; i++) {
      const a = live[i]!;
      if (a < lo || a >= hi || (expected[a >>> 5]! & (1 << (a & 31))) === 0) {
        fail(`${markerName} listed ${a} as live, but it is not a reachable young object`);
      }
    }
    if (live.length !== count) {
      fail(`${markerName} listed ${live.length} live young objects, expected ${count} (duplicates or omissions)`);
    }
  }
}
