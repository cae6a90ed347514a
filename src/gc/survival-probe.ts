/**
 * A bounded trace, before a collection, of the objects the interpreter's roots
 * reach: how many words are live when that is few, or that more than `budget`
 * objects are. `auto` asks it before a program's first collection of a kind,
 * when it knows nothing of the program's survival: the programs here keep either
 * almost nothing of their first eden or most of it, and a guess of half
 * (pause-model.ts's priors) is wrong both ways
 * (docs/decisions/s52-03-first-young-survival-probe.md).
 *
 * It follows references from the roots the interpreter holds (its reference
 * stack and globals). A young probe follows young objects only and does not walk
 * the remembered set, so it answers only while no card is dirty (-1 otherwise);
 * a full one follows every object. It reads the heap and writes nothing but its
 * own visited set, a bit per heap word.
 */

import type { HeapImpl } from '../heap/heap.js';
import { HEADER_WORDS, TYPE_WORD } from '../heap/object-model.js';
import { refRunEnd, SCATTERED } from '../heap/ref-slots.js';
import { gatherRoots } from './roots.js';

/** Objects past which the probe stops: enough to count a first young
 *  collection that keeps about a thousand objects, few enough that a probe that
 *  gives up, its loops compiled by the warm-up's rehearsals, costs little beside
 *  the collection it sizes (docs/decisions/s52-03, s55-01). */
export const PROBE_OBJECTS = 2048;
/** Probes of the warm-up's scratch heap (`rehearse`): enough for V8 to compile
 *  the probe's loops (docs/decisions/s55-01). */
const REHEARSALS = 40;
/** Reference slots the probe reads at most, per object of its budget. */
const SLOTS_PER_OBJECT = 32;

export class SurvivalProbe {
  /** The visited set: a bit per heap word, set at each object's address. Its
   *  pages are touched only where objects were visited, and only the words a
   *  probe set are cleared after it. */
  private bits = new Int32Array(0);
  /** The words of `bits` the probe in progress set, to clear them after it. */
  private touched = new Int32Array(0);
  private nTouched = 0;
  private stack = new Int32Array(256);
  private sp = 0;
  private count = 0;
  /** Objects the probe in progress may visit. */
  private limit = 0;
  /** Reference slots the last probe read. */
  lastSlots = 0;

  constructor(readonly budget = PROBE_OBJECTS) {}

  /** Words of the young objects the roots reach, or -1 when more than
   *  `budget` objects are reached or a card is dirty. */
  youngLiveWords(h: HeapImpl): number {
    if (h.cards.nextDirty(0, h.cardsInUse()) < h.cardsInUse()) return -1;
    return this.liveWords(h, true, this.budget, Infinity);
  }

  /**
   * Whether the young objects the roots reach are more than `maxWords`: their
   * words when at most that many, else a count past `maxWords` at which the
   * probe stopped; -1 while a card is dirty. It has no budget of objects, so it
   * answers for a heap of any shape, at the cost of tracing up to `maxWords`.
   */
  youngWordsUpTo(h: HeapImpl, maxWords: number): number {
    if (h.cards.nextDirty(0, h.cardsInUse()) < h.cardsInUse()) return -1;
    const words = this.liveWords(h, true, objectsIn(maxWords), maxWords);
    return words < 0 ? maxWords + 1 : words;
  }

  /** Makes the sets `youngWordsUpTo(h, maxWords)` needs now, before a program's pause. */
  reserveUpTo(h: HeapImpl, maxWords: number): void {
    this.prepare(h, objectsIn(maxWords));
  }

  /** Words of all the objects the roots reach, or -1 past `budget` objects. */
  heapLiveWords(h: HeapImpl): number {
    return this.liveWords(h, false, this.budget, Infinity);
  }

  /** Probes `h` (the warm-up's scratch heap, its objects live) until V8 has
   *  compiled the probe: a program asks it once or twice, which would run it cold. */
  rehearse(h: HeapImpl): void {
    const objects = h.words.length >> 2;
    for (let i = 0; i < REHEARSALS; i++) {
      // The young trace of a GPU collector's threshold, whatever the cards say.
      this.seed(h, true, objects);
      this.trace(h, true, objects, h.words.length);
      this.seed(h, false, this.budget);
      this.trace(h, false, this.budget, Infinity);
    }
  }

  /** An empty visited set and stack, then the roots of a young or full probe on the stack.
   *  Apart from `trace`: the program's roots are another class than the warm-up's,
   *  which would make V8 throw away `trace`'s code compiled by the rehearsals. */
  private seed(h: HeapImpl, young: boolean, maxObjects: number): void {
    this.prepare(h, maxObjects);
    gatherRoots(h, young, this);
  }

  private liveWords(h: HeapImpl, young: boolean, maxObjects: number, maxWords: number): number {
    this.seed(h, young, maxObjects);
    return this.trace(h, young, maxObjects, maxWords);
  }

  /** The reached objects' words; -1 past `maxObjects` objects or their slots'
   *  budget; a count past `maxWords` once the objects visited exceed it. */
  private trace(h: HeapImpl, young: boolean, maxObjects: number, maxWords: number): number {
    const ys = young ? h.youngStart : 1;
    const ye = young ? h.youngEnd : h.words.length;
    const words = h.words;
    const { contiguous, kind, refBegin, refCount, refOffsets } = h.refSlots.view();
    let live = 0;
    let slots = 0;
    // Slots are read up to SLOTS_PER_OBJECT times the object budget, and each
    // slot loop stops once a budget is spent: a large array's slots (even
    // nulls, or old objects a young probe does not follow) would otherwise all
    // be read.
    const slotBudget = SLOTS_PER_OBJECT * maxObjects;
    while (this.sp > 0 && this.count <= maxObjects && slots <= slotBudget && live <= maxWords) {
      const a = this.stack[--this.sp]!;
      live += h.types.objectWords(words, a);
      const end = refRunEnd(words, kind, contiguous, a);
      if (end !== SCATTERED) {
        for (let s = a + HEADER_WORDS; s < end && this.count <= maxObjects && slots <= slotBudget && live <= maxWords; s++) {
          slots++;
          const c = words[s]!;
          if (c >= ys && c < ye) this.push(c);
        }
      } else {
        const t = words[a + TYPE_WORD]!;
        for (let j = refBegin[t]!, e = j + refCount[t]!; j < e && this.count <= maxObjects && slots <= slotBudget && live <= maxWords; j++) {
          slots++;
          const c = words[a + refOffsets[j]!]!;
          if (c >= ys && c < ye) this.push(c);
        }
      }
    }
    this.lastSlots = slots;
    this.clear();
    if (live > maxWords) return live;
    if (this.count > maxObjects) return -1;
    return slots > slotBudget ? -1 : live;
  }

  /** An empty visited set for `h` and room to clear `maxObjects` objects' words. */
  private prepare(h: HeapImpl, maxObjects: number): void {
    this.limit = maxObjects;
    this.sp = 0;
    this.count = 0;
    this.nTouched = 0;
    const words = (h.words.length >>> 5) + 1;
    if (this.bits.length < words) this.bits = new Int32Array(words);
    if (this.touched.length < maxObjects + 1) this.touched = new Int32Array(maxObjects + 1);
  }

  /** Clears the words of the visited set the last probe set. */
  private clear(): void {
    const bits = this.bits, touched = this.touched;
    for (let k = 0; k < this.nTouched; k++) bits[touched[k]!] = 0;
  }

  /** Visits `a` (an address the probe follows) once: into the visited set and onto the stack. */
  push(a: number): void {
    if (this.count > this.limit) return;
    const w = a >>> 5;
    const m = 1 << (a & 31);
    const v = this.bits[w]!;
    if ((v & m) !== 0) return;
    if (v === 0) this.touched[this.nTouched++] = w;
    this.bits[w] = v | m;
    this.count++;
    if (this.sp === this.stack.length) {
      const grown = new Int32Array(this.stack.length * 2);
      grown.set(this.stack);
      this.stack = grown;
    }
    this.stack[this.sp++] = a;
  }
}

/** Objects that can fit in `words`: each has at least a header. One more is more words. */
function objectsIn(words: number): number {
  return Math.floor(words / HEADER_WORDS) + 1;
}
