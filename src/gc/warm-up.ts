/**
 * The collector's warm-up: before the program runs, the collector's code runs
 * over a small scratch heap of the same layout, taking every path a program's
 * collections take (survivors ageing, promotion, survivor overflow into tenured,
 * promoted copies still referring to young objects, remembered old-to-young slots
 * in large arrays and beside swept chunks, a young array too large for the
 * copiers' word loops, full collections with a sweep, each object kind, eden
 * filled by allocation, the collectors' lists growing past their first capacity,
 * the mirror change log when the program keeps one), so that V8 has seen all of
 * them before it optimizes that code (bench/deopt-probe.mjs lists what it still
 * throws away in a program).
 *
 * Why: V8 compiles a function with what its type feedback says so far; code
 * optimized during a first collection that met no promotion is thrown away
 * (deoptimized) at the first promotion, and runs unoptimized until V8 tries
 * again, inside the program's pause. HotSpot's collectors are compiled ahead of
 * time and have no such first pauses.
 *
 * The parallel collector's workers warm up too: the scratch heap borrows the
 * program's worker pool (WorkerPool.lend), which gets its own buffers back after.
 * Each worker is an isolate with feedback of its own, and which worker meets
 * which branch depends on stealing, so theirs are covered less surely.
 * Nothing of the program's heap is touched.
 */

import type { ClassShape, FieldKind, RootProvider } from '../heap/api.js';
import { CARD_DIRTY } from '../heap/card-table.js';
import { createHeap, type HeapImpl } from '../heap/heap.js';
import { choosingOf, type ChoosingMarker, type Marker } from './marker.js';
import { createCollector } from './index.js';
import { IntList } from './int-list.js';
import { ParallelMarker } from './parallel-marker.js';
import { dirtyCardRanges, RememberedRuns, scanRanges, YoungRoots } from './roots.js';
import { now } from '../heap/clock.js';

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
  /** Collections that allocation asked for because eden was full. */
  edenFull: number;
  /** Dirty cards right after the collection that promoted objects holding young
   *  references (the copies' own cards, dirtied by the evacuation). */
  promotedDirtyCards: number;
  /** The remembered set's warm-up walks met a float array on a dirty card. */
  walkedFloatArray: boolean;
}

/** The scratch heap: small, with a low tenure age so that promotion comes soon. */
const SCRATCH_HEAP_BYTES = 256 << 10;
const SCRATCH_TENURE_AGE = 2;
const ROOTS = 64;
/** The root of the warm-up's wide reference array, and its length (at most). */
const FAN_ROOT = 21;
const FAN_OUT = 1200;
/** The root of a float array that ages into tenured with the first lists. */
const FLOAT_ROOT = 62;
/** At most this many tenured nodes per list are pointed at young objects. */
const POINTED = 256;
/** Walks of the remembered set that make V8 optimize it (walkRememberedSet). */
const REMSET_WALKS = 64;

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
  /** The program's heap keeps a change log for a GPU mirror (heap/mirror-log.ts):
   *  the scratch heap keeps one too, so that the log's branches in allocation,
   *  stores and evacuation are warm. */
  mirrorLog?: boolean;
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
  const t0 = now();
  let choosing: ChoosingMarker | null = null;
  const heap = createHeap({
    heapBytes: SCRATCH_HEAP_BYTES * (options.volume ?? 1),
    tenureAge: SCRATCH_TENURE_AGE,
    verifyGc: options.verifyGc === true,
    ...(options.layout ? { layout: options.layout } : {}),
    logGc: (_line, record) => choosing?.observe(record),
  });
  if (options.mirrorLog === true) heap.attachMirrorLog();
  const roots = new ScratchRoots();
  heap.setRoots(roots);
  const marker = markerFor(heap);
  const plan = createCollector(name, heap, marker ? { marker } : {});
  // A marker that chooses around each collection (auto) runs its own path too.
  choosing = marker ? choosingOf(marker) : null;
  const collector = choosing ? choosing.around(plan) : plan;
  if (collector !== plan) heap.setCollector(collector);
  const w = new Workload(heap, roots, options.volume ?? 1);
  try {
    // A parallel marker built on a lent pool runs its threads on the scratch heap's buffers.
    // A choosing marker rehearses its probe while the workload's objects still live.
    const whileLive = (): void => choosing?.rehearse();
    if (marker instanceof ParallelMarker) await marker.gc.lent(() => w.round(whileLive));
    else await w.round(whileLive);
  } finally {
    // A lent pool is not the scratch collector's to stop (GcThreads.dispose).
    collector.dispose();
  }
  const s = heap.stats;
  return {
    ms: now() - t0,
    young: s.youngCollections,
    full: s.fullCollections,
    promotedBytes: s.bytesPromoted,
    overflowBytes: w.overflowBytes,
    dirtyCards: w.dirtyCards,
    edenFull: w.edenFull,
    promotedDirtyCards: w.promotedDirtyCards,
    walkedFloatArray: w.walkedFloatArray,
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
  edenFull = 0;
  promotedDirtyCards = 0;
  walkedFloatArray = false;

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

  private countDirtyCards(): number {
    let n = 0;
    for (const c of this.heap.cards.cards) if (c === CARD_DIRTY) n++;
    return n;
  }

  /**
   * The remembered set's walk over the dirty cards (gc/roots.ts), repeated until
   * V8 optimizes it: the scratch heap's few dirty cards never make it hot, and a
   * program whose whole tenured space is dirty would otherwise walk its cards
   * unoptimized inside its first pauses. The card of a tenured float array is
   * dirty for these walks: the walk steps over every object on a dirty card, and
   * code V8 optimized without ever sizing a float array is thrown away at the
   * first one a program's walk meets. It only reads the heap, and gives that
   * card back its state; the lists are its own.
   */
  private walkRememberedSet(): void {
    const h = this.heap;
    const cards = new IntList();
    const ranges = new IntList();
    const objects = new IntList();
    const runs = new RememberedRuns();
    const roots = new YoungRoots();
    const floats = this.roots.slots[FLOAT_ROOT]!;
    const card = floats < h.tenuredStart ? -1 : h.cards.cardOf(floats);
    const state = card < 0 ? CARD_DIRTY : h.cards.cards[card]!;
    if (card >= 0) h.cards.cards[card] = CARD_DIRTY;
    this.walkedFloatArray = card >= 0;
    try {
      for (let i = 0; i < REMSET_WALKS; i++) {
        // The search past clean cards, one and eight at a time, over the
        // clean cards past those in use: the scratch heap's walks meet none
        // (its cards in use are all dirty), and the walk optimized without
        // that feedback is thrown away at a program's first clean card.
        h.cards.nextDirty(h.cardsInUse() + 1);
        cards.clear();
        ranges.clear();
        objects.clear();
        runs.clear();
        roots.begin(h.youngStart, h.youngEnd);
        // Both forms a plan asks for: with the ranges' objects (refgraph) and without.
        dirtyCardRanges(h, cards, ranges, (i & 1) === 0 ? objects : null);
        scanRanges(h, ranges.view(), (i & 1) === 0 ? objects.view() : null, runs, roots);
        roots.end();
      }
    } finally {
      if (card >= 0) h.cards.cards[card] = state;
    }
  }

  /** Allocates unreferenced nodes until eden is full: the allocator's own
   *  "eden full" branch, which explicit collections never take. */
  private async fillEden(): Promise<void> {
    const h = this.heap;
    while (h.allocInstance(this.node) !== 0) {
      // garbage
    }
    await h.collectPending();
    if (h.lastRecord?.cause === 'eden full') this.edenFull++;
  }

  /** A reference array of `FAN_OUT` young nodes into root `r`: a copy too large
   *  for the copiers' word loops and their local buffers, spanning more than
   *  eight cards once promoted (its block offset entries are then filled, not
   *  stored one by one), and a trace that pushes more entries at once than the
   *  markers' stacks first hold. */
  private async fan(r: number): Promise<void> {
    const slots = this.roots.slots;
    const length = Math.min(FAN_OUT, this.heap.largeObjectWords - 8);
    slots[r] = await this.array(this.refs, length);
    for (let i = 0; i < length; i++) {
      let n = this.heap.allocInstance(this.node);
      if (n === 0) n = await this.instance(this.node);
      this.heap.writeRef(slots[r]!, this.heap.arrayDataOffset + i, i, n);
    }
  }

  /** A new young object in element `i` of the fan array, which these collections
   *  promote: a promoted array's copy that still refers to a young object. */
  private async youngFanReferent(i: number): Promise<void> {
    const y = await this.instance(this.node);
    this.heap.writeRef(this.roots.slots[FAN_ROOT]!, this.heap.arrayDataOffset + i, i, y);
  }

  /** One pass of the workload; `whileLive` runs before its last step drops every root. */
  async round(whileLive: () => void = () => undefined): Promise<void> {
    const slots = this.roots.slots;
    const survivorWords = this.heap.plan.survivorWords;
    await this.fillEden();
    slots[FLOAT_ROOT] = await this.array(this.floats, 8);
    // Lists that age into tenured over a few young collections.
    for (let r = 0; r < 8; r++) await this.list(r, 12 * this.volume);
    for (let c = 0; c <= SCRATCH_TENURE_AGE; c++) {
      // The collection that promotes the lists copies their heads with a
      // reference to a new object, which stays young: the copy's card is dirtied.
      if (c === SCRATCH_TENURE_AGE) {
        for (let r = 0; r < 8; r++) {
          const young = await this.instance(this.node);
          this.store(slots[r]!, this.node, 2, young);
        }
      }
      await this.collect('young');
    }
    this.promotedDirtyCards = this.countDirtyCards();
    // Old-to-young references: tenured nodes and a large array (in tenured from
    // the start) now point at young objects, through the write barrier. Every
    // element of the array points at the young object of its eighth: thousands of
    // remembered slots, in cards inside the array as well as its first, in each of
    // the next young collections, so that the remembered set's loops run hot
    // enough for V8 to optimize them before a program's first collection meets
    // its own large arrays.
    const h = this.heap;
    const bigLength = h.largeObjectWords + 64;
    const stride = Math.floor(bigLength / 8);
    slots[8] = await this.array(this.refs, bigLength);
    for (let r = 0; r < 8; r++) {
      const young = await this.instance(this.wide);
      this.store(slots[r]!, this.node, 1, young);
      for (let f = 0; f < 12; f += 3) this.store(young, this.wide, f, slots[(r + 1) % 8]!);
      const y2 = await this.instance(this.node);
      h.writeRef(slots[8]!, h.arrayDataOffset + r * stride, r * stride, y2);
    }
    for (let i = 0; i < bigLength; i++) {
      const y = h.words[slots[8]! + h.arrayDataOffset + Math.min(7, Math.floor(i / stride)) * stride]!;
      h.writeRef(slots[8]!, h.arrayDataOffset + i, i, y);
    }
    this.dirtyCards = this.countDirtyCards();
    this.walkRememberedSet();
    await this.fan(FAN_ROOT);
    await this.collect('young');
    // More live young data than a survivor space holds: the overflow goes to tenured.
    const nodesPerList = Math.ceil((2 * survivorWords) / 8 / 4);
    for (let r = 9; r < 17; r++) await this.list(r, nodesPerList);
    await this.youngFanReferent(0);
    await this.collect('young');
    this.overflowBytes += this.heap.lastRecord?.promotedBytes ?? 0;
    await this.youngFanReferent(1);
    await this.collect('young');
    // Garbage in tenured, then full collections that sweep it and evacuate young.
    for (let r = 0; r < 9; r += 2) slots[r] = 0;
    for (let r = 17; r < 21; r++) await this.list(r, 12 * this.volume);
    await this.collect('full');
    for (let r = 9; r < 21; r += 3) slots[r] = 0;
    await this.collect('full');
    // Young references from tenured objects beside the chunks the sweeps freed:
    // the remembered set's walk of a dirty card crosses free chunks.
    for (let r = 10; r < 21; r += 3) await this.pointAtYoung(r);
    await this.collect('young');
    whileLive();
    slots.fill(0);
    await this.collect('full');
  }

  /** Tenured nodes of the list in root `r` (up to POINTED) get a new young object in their pair field. */
  private async pointAtYoung(r: number): Promise<void> {
    const h = this.heap;
    const slots = this.roots.slots;
    const tmp = ROOTS - 1;
    const next = this.node.offsets[1]!;
    let count = 0;
    for (let a = slots[r]!; a !== 0 && count < POINTED; a = h.words[a + next]!) if (a >= h.tenuredStart) count++;
    if (count === 0) return;
    // The young objects first, held by an array, so that no allocation moves the list while it is walked.
    slots[tmp] = await this.array(this.refs, count);
    for (let i = 0; i < count; i++) {
      let y = h.allocInstance(this.node);
      if (y === 0) y = await this.instance(this.node);
      h.writeRef(slots[tmp]!, h.arrayDataOffset + i, i, y);
    }
    let i = 0;
    for (let a = slots[r]!; a !== 0 && i < count; a = h.words[a + next]!) {
      if (a >= h.tenuredStart) this.store(a, this.node, 2, h.words[slots[tmp]! + h.arrayDataOffset + i++]!);
    }
    slots[tmp] = 0;
  }
}
