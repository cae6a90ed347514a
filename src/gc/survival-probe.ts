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
 * own visited set, an open-addressing table of addresses.
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
  private readonly table: Int32Array;
  private readonly mask: number;
  private stack = new Int32Array(256);
  private sp = 0;
  private count = 0;
  /** Reference slots the last probe read. */
  lastSlots = 0;

  constructor(readonly budget = PROBE_OBJECTS) {
    let cap = 16;
    while (cap < 2 * budget) cap <<= 1;
    this.table = new Int32Array(cap);
    this.mask = cap - 1;
  }

  /** Words of the young objects the roots reach, or -1 when more than
   *  `budget` objects are reached or a card is dirty. */
  youngLiveWords(h: HeapImpl): number {
    if (h.cards.nextDirty(0, h.cardsInUse()) < h.cardsInUse()) return -1;
    return this.liveWords(h, true);
  }

  /** Words of all the objects the roots reach, or -1 past `budget` objects. */
  heapLiveWords(h: HeapImpl): number {
    return this.liveWords(h, false);
  }

  /** Probes `h` (the warm-up's scratch heap, its objects live) until V8 has
   *  compiled the probe: a program asks it once or twice, which would run it cold. */
  rehearse(h: HeapImpl): void {
    for (let i = 0; i < REHEARSALS; i++) this.heapLiveWords(h);
  }

  private liveWords(h: HeapImpl, young: boolean): number {
    this.table.fill(0);
    this.sp = 0;
    this.count = 0;
    const ys = young ? h.youngStart : 1;
    const ye = young ? h.youngEnd : h.words.length;
    gatherRoots(h, young, this);
    const words = h.words;
    const { contiguous, kind, refBegin, refCount, refOffsets } = h.refSlots.view();
    let live = 0;
    let slots = 0;
    // Slots are read up to SLOTS_PER_OBJECT times the object budget, and each
    // slot loop stops once a budget is spent: a large array's slots (even
    // nulls, or old objects a young probe does not follow) would otherwise all
    // be read.
    const budget = this.budget;
    const slotBudget = SLOTS_PER_OBJECT * budget;
    while (this.sp > 0 && this.count <= budget && slots <= slotBudget) {
      const a = this.stack[--this.sp]!;
      live += h.types.objectWords(words, a);
      const end = refRunEnd(words, kind, contiguous, a);
      if (end !== SCATTERED) {
        for (let s = a + HEADER_WORDS; s < end && this.count <= budget && slots <= slotBudget; s++) {
          slots++;
          const c = words[s]!;
          if (c >= ys && c < ye) this.push(c);
        }
      } else {
        const t = words[a + TYPE_WORD]!;
        for (let j = refBegin[t]!, e = j + refCount[t]!; j < e && this.count <= budget && slots <= slotBudget; j++) {
          slots++;
          const c = words[a + refOffsets[j]!]!;
          if (c >= ys && c < ye) this.push(c);
        }
      }
    }
    this.lastSlots = slots;
    return this.count > budget || slots > slotBudget ? -1 : live;
  }

  /** Visits `a` (an address the probe follows) once: into the table and onto the stack. */
  push(a: number): void {
    if (this.count > this.budget) return;
    const mask = this.mask;
    let i = Math.imul(a, 0x9e3779b1) & mask;
    for (;;) {
      const v = this.table[i]!;
      if (v === a) return;
      if (v === 0) break;
      i = (i + 1) & mask;
    }
    this.table[i] = a;
    this.count++;
    if (this.sp === this.stack.length) {
      const grown = new Int32Array(this.stack.length * 2);
      grown.set(this.stack);
      this.stack = grown;
    }
    this.stack[this.sp++] = a;
  }
}
