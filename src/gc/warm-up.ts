/**
 * The collector's warm-up: before the program runs, the collector's code runs
 * over a small scratch heap of the same layout, taking every path a program's
 * collections take (survivors ageing, promotion, survivor overflow into tenured,
 * remembered old-to-young slots, large arrays in tenured, full collections with a
 * sweep, each object kind), so that V8 has seen all of them before it optimizes
 * that code during the program's first collections.
 *
 * Why: V8 compiles a function with what its type feedback says so far; code
 * optimized during a first collection that met no promotion is thrown away
 * (deoptimized) at the first promotion, and runs unoptimized until V8 tries
 * again, inside the program's pause. HotSpot's collectors are compiled ahead of
 * time and have no such first pauses.
 *
 * The parallel collector's workers warm up too: the scratch heap borrows the
 * program's worker pool (WorkerPool.lend), which gets its own buffers back after.
 * Nothing of the program's heap is touched.
 */

import type { ClassShape, FieldKind, RootProvider } from '../heap/api.js';
import { CARD_DIRTY } from '../heap/card-table.js';
import { createHeap, type HeapImpl } from '../heap/heap.js';
import type { Marker } from './marker.js';
import { createCollector } from './index.js';
import { ParallelMarker } from './parallel-marker.js';

/** What the warm-up's collections did, for tests and `--stats`. */
export interface WarmUpSummary {
  ms: number;
  young: number;
  full: number;
  promotedBytes: number;
  /** Bytes promoted by the collections right after the survivor space was overrun
   *  (objects below the tenure age): the overflow path was taken. */
  overflowBytes: number;
  /** Dirty cards (old-to-young stores) the young collection after them found. */
  dirtyCards: number;
}

/** The scratch heap: small, with a low tenure age so that promotion comes soon. */
const SCRATCH_HEAP_BYTES = 256 << 10;
const SCRATCH_TENURE_AGE = 2;
const ROOTS = 64;

class ScratchRoots implements RootProvider {
  readonly slots = new Int32Array(ROOTS);
  visitRoots(visit: (slots: Int32Array, from: number, to: number) => void): void {
    visit(this.slots, 0, ROOTS);
  }
}

export interface WarmUpOptions {
  layout?: string;
  /** `--verify-gc`: the scratch heap is checked after each of its collections too. */
  verifyGc?: boolean;
  /** The scratch heap's size and its lists' lengths, in multiples of the smallest
   *  workload (default 1): enough objects for every thread of a pool to be given
   *  work and to run hot. */
  volume?: number;
}

/**
 * Runs the collector `name` (with the marker `markerFor` builds for the scratch
 * heap, or the registered one) over a scratch heap.
 */
export async function warmUpCollector(
  name: string,
  options: WarmUpOptions,
  markerFor: (scratch: HeapImpl) => Marker | undefined,
): Promise<WarmUpSummary> {
  const t0 = performance.now();
  const heap = createHeap({
    heapBytes: SCRATCH_HEAP_BYTES * (options.volume ?? 1),
    tenureAge: SCRATCH_TENURE_AGE,
    verifyGc: options.verifyGc === true,
    ...(options.layout ? { layout: options.layout } : {}),
  });
  const roots = new ScratchRoots();
  heap.setRoots(roots);
  const marker = markerFor(heap);
  const collector = createCollector(name, heap, marker ? { marker } : {});
  const w = new Workload(heap, roots, options.volume ?? 1);
  try {
    // A parallel marker built on a lent pool runs its threads on the scratch heap's buffers.
    if (marker instanceof ParallelMarker) await marker.gc.lent(() => w.round());
    else await w.round();
  } finally {
    // A lent pool is not the scratch collector's to stop (GcThreads.dispose).
    collector.dispose();
  }
  const s = heap.stats;
  return {
    ms: performance.now() - t0,
    young: s.youngCollections,
    full: s.fullCollections,
    promotedBytes: s.bytesPromoted,
    overflowBytes: w.overflowBytes,
    dirtyCards: w.dirtyCards,
  };
}

/** The scratch program: lists, pairs, wide objects and arrays of every element kind. */
class Workload {
  private readonly node: ClassShape;
  private readonly pair: ClassShape;
  private readonly wide: ClassShape;
  private readonly ints: number;
  private readonly floats: number;
  private readonly refs: number;
  overflowBytes = 0;
  dirtyCards = 0;

  constructor(
    private readonly heap: HeapImpl,
    private readonly roots: ScratchRoots,
    private readonly volume: number,
  ) {
    this.node = heap.defineClass('Node', ['int', 'ref', 'ref']);
    this.pair = heap.defineClass('Pair', ['ref', 'float', 'ref', 'int', 'bool']);
    // More than 16 words: the copies' bulk path.
    this.wide = heap.defineClass('Wide', [...Array<FieldKind>(12).fill('ref'), ...Array<FieldKind>(8).fill('int')]);
    this.ints = heap.defineArray('int[]', 'int');
    this.floats = heap.defineArray('float[]', 'float');
    this.refs = heap.defineArray('Node[]', 'ref');
  }

  private async instance(shape: ClassShape): Promise<number> {
    for (;;) {
      const a = this.heap.allocInstance(shape);
      if (a !== 0) return a;
      await this.heap.collectPending();
    }
  }

  private async array(type: number, length: number): Promise<number> {
    for (;;) {
      const a = this.heap.allocArray(type, length);
      if (a !== 0) return a;
      await this.heap.collectPending();
    }
  }

  private async collect(kind: 'young' | 'full'): Promise<void> {
    this.heap.requestCollection(kind, 'warm-up');
    await this.heap.collectPending();
  }

  /** A root's field: the shape's `field`th offset and edge. */
  private store(obj: number, shape: ClassShape, field: number, value: number): void {
    this.heap.writeRef(obj, shape.offsets[field]!, shape.edgeIndex[field]!, value);
  }

  /** A list of `n` nodes into root `r`; every eighth node holds a pair with a small array.
   *  Allocation awaits only when the heap asks for a collection: a promise per
   *  object would cost more than the allocation it waits for. */
  private async list(r: number, n: number): Promise<void> {
    const h = this.heap;
    const slots = this.roots.slots;
    const tmp = ROOTS - 1;
    slots[r] = 0;
    for (let i = 0; i < n; i++) {
      let a = h.allocInstance(this.node);
      if (a === 0) a = await this.instance(this.node);
      h.words[a + this.node.offsets[0]!] = i;
      this.store(a, this.node, 1, slots[r]!);
      slots[r] = a;
      if (i % 8 !== 0) continue;
      const type = i % 16 === 0 ? this.ints : this.floats;
      const length = 3 + (i % 5);
      let arr = h.allocArray(type, length);
      if (arr === 0) arr = await this.array(type, length);
      slots[tmp] = arr;
      let p = h.allocInstance(this.pair);
      if (p === 0) p = await this.instance(this.pair);
      this.store(p, this.pair, 0, slots[tmp]!);
      this.store(p, this.pair, 2, slots[r]!);
      h.writeFloat(p + this.pair.offsets[1]!, i / 3);
      this.store(slots[r]!, this.node, 2, p);
    }
    slots[tmp] = 0;
  }

  async round(): Promise<void> {
    const slots = this.roots.slots;
    const survivorWords = this.heap.plan.survivorWords;
    // Lists that age into tenured over a few young collections.
    for (let r = 0; r < 8; r++) await this.list(r, 12 * this.volume);
    for (let c = 0; c <= SCRATCH_TENURE_AGE; c++) await this.collect('young');
    // Old-to-young references: tenured nodes and a large array (in tenured from
    // the start) now point at young objects, through the write barrier.
    const big = await this.array(this.refs, this.heap.largeObjectWords + 64);
    slots[8] = big;
    for (let r = 0; r < 8; r++) {
      const young = await this.instance(this.wide);
      this.store(slots[r]!, this.node, 1, young);
      for (let f = 0; f < 12; f += 3) this.store(young, this.wide, f, slots[(r + 1) % 8]!);
      const y2 = await this.instance(this.node);
      this.heap.writeRef(slots[8]!, this.heap.arrayDataOffset + r * 7, r * 7, y2);
    }
    for (const c of this.heap.cards.cards) if (c === CARD_DIRTY) this.dirtyCards++;
    await this.collect('young');
    // More live young data than a survivor space holds: the overflow goes to tenured.
    const nodesPerList = Math.ceil((2 * survivorWords) / 8 / 4);
    for (let r = 9; r < 17; r++) await this.list(r, nodesPerList);
    await this.collect('young');
    this.overflowBytes += this.heap.lastRecord?.promotedBytes ?? 0;
    await this.collect('young');
    // Garbage in tenured, then full collections that sweep it and evacuate young.
    for (let r = 0; r < 9; r += 2) slots[r] = 0;
    for (let r = 17; r < 21; r++) await this.list(r, 12 * this.volume);
    await this.collect('full');
    for (let r = 9; r < 21; r += 3) slots[r] = 0;
    await this.collect('full');
    slots.fill(0);
    await this.collect('full');
  }
}
