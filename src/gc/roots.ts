/**
 * Root gathering and fixing: the interpreter's root slots (through RootProvider)
 * and the remembered set, i.e. the old-to-young reference slots found in dirty cards.
 *
 * A young collection takes its old-to-young roots from the dirty cards only (never
 * by scanning all of tenured), finds the objects overlapping each dirty card with the
 * block offset table, and keeps the slots so that evacuation can redirect them to the
 * moved objects. Dead tenured objects in dirty cards count as roots too (HotSpot does
 * the same): the remembered set is conservative until the next full collection sweeps
 * them.
 *
 * It is done in two steps. `dirtyCardRanges` walks the objects of each dirty card
 * and lists the reference slots each has inside the card as a range; `scanRanges`
 * (or a marker's `scanRememberedSet`, on its copy of the heap) reads those slots.
 * The slots holding young references are kept as runs of consecutive slots, never
 * crossing a card, rather than one by one: a remembered set of large reference
 * arrays is millions of slots, and both the scan and the fix-up after evacuation
 * are loops over it in every young pause.
 */

import { CARD_WORDS, blockEnd } from '../heap/card-table.js';
import type { HeapImpl } from '../heap/heap.js';
import { forwardee, HEADER_WORDS, STATUS_FORWARDED, TYPE_WORD, headerAt } from '../heap/object-model.js';
import { SCATTERED, refRunEnd } from '../heap/ref-slots.js';
import { IntList } from './int-list.js';
import { positionIn } from './list-search.js';

/** The remembered slots as runs: (first slot, count) pairs, and each run's object. */
export class RememberedRuns {
  /** (first slot, count) pairs. */
  readonly runs = new IntList();
  /** The header address of the object holding run i's slots (when the ranges
   *  came with their objects: the refgraph layout needs them). */
  readonly objects = new IntList();

  clear(): void {
    this.runs.clear();
    this.objects.clear();
  }

  /** Takes the runs a marker found (`HeapCopyMarker.scanRememberedSet`). */
  setRuns(runs: Int32Array): void {
    this.clear();
    this.runs.reserve(runs.length).set(runs);
    this.runs.length = runs.length;
  }

  /**
   * Takes the runs a marker found in `ranges` (ascending (first, end) pairs, the
   * object of pair k in `rangeObjects[k]`), in its order: run k < ranges/2 is
   * range k's first run, each later one lies in the range found by a binary
   * search. Refgraph's rebuild needs each run's object.
   */
  setRunsIn(runs: Int32Array, ranges: Int32Array, rangeObjects: Int32Array): void {
    this.setRuns(runs);
    const n = runs.length >>> 1;
    const first = ranges.length >>> 1;
    if (n < first) throw new Error(`remembered set: ${n} runs for ${first} ranges`);
    const objects = this.objects.reserve(n);
    objects.set(rangeObjects.subarray(0, first));
    for (let k = first; k < n; k++) objects[k] = rangeObjects[rangeOf(ranges, runs[2 * k]!)]!;
    this.objects.length = n;
  }
}

/** The pair of `ranges` (ascending, disjoint (first, end) pairs) holding slot `s`. */
function rangeOf(ranges: Int32Array, s: number): number {
  let lo = 0;
  let hi = (ranges.length >>> 1) - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (ranges[2 * mid]! <= s) lo = mid;
    else hi = mid - 1;
  }
  if (s < ranges[2 * lo]! || s >= ranges[2 * lo + 1]!) throw new Error(`remembered set: slot ${s} lies in no dirty card's range`);
  return lo;
}

/**
 * The young roots of a collection, each once: many old slots can point at one young
 * object (a dense graph's remembered set names each node many times), and
 * a marker needs each once (a GPU marker uploads every entry). A bitmap over the
 * young range, reused across collections, says which are in the list already.
 */
export class YoungRoots {
  readonly list = new IntList();
  private seen = new Uint32Array(0);
  private ys = 0;

  /** Starts an empty set for the young range [ys, ye). */
  begin(ys: number, ye: number): void {
    const words = ye - ys;
    if (this.seen.length * 32 < words) this.seen = new Uint32Array((words + 31) >>> 5);
    this.ys = ys;
    this.list.clear();
  }

  push(v: number): void {
    const o = v - this.ys, bit = 1 << (o & 31), seen = this.seen;
    if ((seen[o >>> 5]! & bit) !== 0) return;
    seen[o >>> 5]! |= bit;
    this.list.push(v);
  }

  /** Ends the set: clears the bits it set, leaving the roots in `list`. */
  end(): Int32Array {
    const d = this.list.data, ys = this.ys, seen = this.seen;
    for (let i = 0; i < this.list.length; i++) seen[(d[i]! - ys) >>> 5] = 0;
    return this.list.view();
  }
}

/** Pushes every non-null root (only young ones when `youngOnly`) to `out`. */
export function gatherRoots(heap: HeapImpl, youngOnly: boolean, out: { push(v: number): void }): void {
  const lo = youngOnly ? heap.youngStart : 1;
  const hi = youngOnly ? heap.youngEnd : heap.words.length;
  heap.roots.visitRoots((slots, from, to) => {
    for (let i = from; i < to; i++) {
      const v = slots[i]!;
      if (v >= lo && v < hi) out.push(v);
    }
  });
}

/** The slots of `dirtyCardRanges`'s [start, end) pairs. */
export function rangeSlots(ranges: Int32Array): number {
  let slots = 0;
  for (let i = 0; i < ranges.length; i += 2) slots += ranges[i + 1]! - ranges[i]!;
  return slots;
}

/**
 * The dirty cards as slot ranges: appends each dirty card's index to `cardsOut`
 * and, for each object overlapping the card, the (first, end) ranges of its
 * reference slots inside the card to `rangesOut`, and the object's header
 * address per range to `objectsOut` when given. An object whose references are
 * a run (heap/ref-slots.ts) gives one range; a scattered one gives one per slot.
 */
export function dirtyCardRanges(heap: HeapImpl, cardsOut: IntList, rangesOut: IntList, objectsOut: IntList | null): void {
  const words = heap.words;
  const types = heap.types;
  const ct = heap.cards;
  const { contiguous, kind, refBegin, refCount, refOffsets } = heap.refSlots.view();
  // Imported names as locals: V8 reads an imported binding from its module's
  // cell, with a check, at every use, which here would be every object.
  const header = HEADER_WORDS;
  const typeWord = TYPE_WORD;
  const scattered = SCATTERED;
  const range = (a: number, lo: number, hi: number): void => {
    rangesOut.push(lo);
    rangesOut.push(hi);
    objectsOut?.push(a);
  };
  const n = heap.cardsInUse();
  // The block that ran past the previous card's end: a large array spans many
  // cards, and the next dirty card inside it needs no lookup. `lastObject`'s
  // reference run [runStart, runEnd), when it has one, gives a card it covers
  // whole its range at once: the common card of a large reference array, and few
  // steps for each, as the first collections run the loop before it is optimized.
  let lastStart = -1;
  let lastEnd = -1;
  let lastObject = 0;
  let runStart = 0;
  let runEnd = 0;
  for (let c = ct.nextDirty(0, n); c < n; c = ct.nextDirty(c + 1, n)) {
    cardsOut.push(c);
    const cs = ct.cardStart(c);
    const ce = Math.min(cs + CARD_WORDS, heap.tenuredEnd);
    if (runStart <= cs && ce <= runEnd) {
      range(lastObject, cs, ce);
      continue;
    }
    let p = lastStart <= cs && cs < lastEnd ? lastStart : ct.blockStartFor(c, words, types);
    while (p < ce) {
      if (words[p]! < 0) {
        p = blockEnd(words, types, p);
        continue;
      }
      const a = headerAt(words, p);
      const refEnd = refRunEnd(words, kind, contiguous, a);
      if (refEnd !== scattered) {
        const lo = a + header > cs ? a + header : cs;
        const hi = refEnd < ce ? refEnd : ce;
        if (lo < hi) range(a, lo, hi);
      } else {
        const t = words[a + typeWord]!;
        const b = refBegin[t]!;
        const e = b + refCount[t]!;
        for (let j = b; j < e; j++) {
          const s = a + refOffsets[j]!;
          if (s >= cs && s < ce) range(a, s, s + 1);
        }
      }
      const end = a + header + types.rightWords(words, a);
      if (end > ce) {
        lastStart = p;
        lastEnd = end;
        lastObject = a;
        runStart = refEnd !== scattered ? a + header : 0;
        runEnd = refEnd !== scattered ? refEnd : 0;
      }
      p = end;
    }
  }
}

/**
 * Reads the slots of `ranges` (from `dirtyCardRanges`, with their objects when
 * `objects` is given): the runs of slots holding young references go to `rem`,
 * and each young referent to `roots` when given. What a marker's
 * `scanRememberedSet` does on its copy of the heap.
 */
export function scanRanges(
  heap: HeapImpl,
  ranges: Int32Array,
  objects: Int32Array | null,
  rem: RememberedRuns,
  roots: YoungRoots | null,
): void {
  const words = heap.words;
  const ys = heap.youngStart;
  const ye = heap.youngEnd;
  const runs = rem.runs;
  for (let r = 0; r < ranges.length; r += 2) {
    const hi = ranges[r + 1]!;
    let first = -1;
    for (let s = ranges[r]!; s <= hi; s++) {
      const v = s < hi ? words[s]! : 0;
      if (v >= ys && v < ye) {
        if (first < 0) first = s;
        roots?.push(v);
      } else if (first >= 0) {
        runs.push(first);
        runs.push(s - first);
        if (objects) rem.objects.push(objects[r >>> 1]!);
        first = -1;
      }
    }
  }
}

/**
 * The young objects the root slots refer to, ascending and each once, in
 * `out`: the only new addresses a device evacuation need hand back for
 * fixRootsFromReferents, in place of one per live object (found in the live
 * list by the GPU worker, or by the device where the list stayed). To-space
 * holds nothing during a young collection, so none lies there.
 */
export function rootReferents(heap: HeapImpl, out: IntList): Int32Array {
  const ys = heap.youngStart;
  const ye = heap.youngEnd;
  out.length = 0;
  heap.roots.visitRoots((slots, from, to) => {
    for (let i = from; i < to; i++) {
      const v = slots[i]!;
      if (v >= ys && v < ye) out.push(v);
    }
  });
  const all = out.view().sort();
  let n = 0;
  for (let i = 0; i < all.length; i++) if (n === 0 || all[i] !== all[n - 1]) all[n++] = all[i]!;
  out.length = n;
  return all.subarray(0, n);
}

/**
 * Redirects every root slot that refers to one of `referents` (rootReferents)
 * to its new address, `forward[k]` for `referents[k]`. A slot reported twice
 * is harmless: its new address lies in to-space or tenured.
 */
export function fixRootsFromReferents(heap: HeapImpl, referents: Int32Array, forward: Int32Array): void {
  const ys = heap.youngStart;
  const ye = heap.youngEnd;
  heap.roots.visitRoots((slots, from, to) => {
    for (let i = from; i < to; i++) {
      const v = slots[i]!;
      if (v < ys || v >= ye || (v >= heap.toStart && v < heap.toEnd)) continue;
      const k = positionIn(referents, v);
      if (k < 0) throw new Error(`device evacuation: the root referent ${v} was not among the picked new addresses`);
      slots[i] = forward[k]!;
    }
  });
}

/** Redirects every root slot that refers to a forwarded young object. */
export function fixRoots(heap: HeapImpl): void {
  const words = heap.words;
  const ys = heap.youngStart;
  const ye = heap.youngEnd;
  heap.roots.visitRoots((slots, from, to) => {
    const forwarded = STATUS_FORWARDED;
    for (let i = from; i < to; i++) {
      const v = slots[i]!;
      // The forwarded test makes a slot reported twice harmless.
      if (v >= ys && v < ye && (words[v]! & forwarded) !== 0) slots[i] = forwardee(words, v);
    }
  });
}
