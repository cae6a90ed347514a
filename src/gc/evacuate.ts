/**
 * Evacuation of the live young objects, shared by young and full collections.
 *
 * Two passes over the marker's live list, all in typed arrays:
 *  1. assign: choose each object's destination: the to-survivor space (bump) while
 *     the object's age is below `tenureAge` and it fits, else tenured (promotion by
 *     age, or early promotion when the survivor space overflows), and install the
 *     forwarding header at once (status | forwarded, new address in a+1), saving the
 *     type word aside. If tenured cannot take an object the pass is
 *     undone (headers restored, chunks back to the free list) and the caller
 *     escalates: a young collection becomes a full one ("promotion failed"), as in
 *     HotSpot; nothing has been copied, so the heap is intact.
 *  2. copy: copy each object, give the copy its type and new age from the saved
 *     words, and redirect the young references inside it through the forwarding
 *     headers, all of which exist by then; promoted copies that still refer to young
 *     objects dirty their cards. One pass over the copies reads each copy once.
 * The plan fixes the root slots and the remembered-set slots itself.
 */

import { CARD_SHIFT } from '../heap/card-table.js';
import type { HeapImpl } from '../heap/heap.js';
import { wordsByRule } from '../heap/layout.js';
import type { MirrorLog } from '../heap/mirror-log.js';
import {
  FORWARD_WORD,
  HEADER_WORDS,
  LAYOUT_WORD,
  LENGTH_WORD,
  STATUS_FORWARDED,
  TYPE_WORD,
  ageOf,
  statusWithAge,
} from '../heap/object-model.js';
import { SCATTERED, refRunEnd } from '../heap/ref-slots.js';
import { copyWords } from '../heap/word-parity.js';
import { CALL_BLOCK } from './call-block.js';
import { IntList } from './int-list.js';

/** Entries of a streamed live list that assign waits for at a time. */
const READY_BLOCK = 1 << 16;

export class Evacuator {
  /** New header address of each live object (parallel to the live list) after a
   *  CPU evacuation; a device evacuation hands back its own (gc/device-evacuation.ts). */
  readonly forward = new IntList();
  /** Each live object's type word, which its forwarding address overwrites; the
   *  status word keeps its bits (forwarded added), and sizes come from the type, so
   *  nothing else is saved aside: fewer side arrays to write and read back. */
  private readonly savedType = new IntList();
  toTop = 0;
  survivedWords = 0;
  promotedWords = 0;

  constructor(private readonly heap: HeapImpl) {}

  /**
   * Pass 1. `fullCollection`: an object that tenured cannot take may stay young even
   * past its age (there is nothing further to escalate to). Returns false, with
   * everything undone, when some object has nowhere to go. `ready` (a list still
   * being written: MarkResult.liveReady) is asked for each block before it is read.
   */
  assign(live: Int32Array, fullCollection: boolean, ready?: (count: number) => void): boolean {
    const h = this.heap;
    const n = live.length;
    this.forward.reserve(n);
    this.savedType.reserve(n);
    this.forward.length = this.savedType.length = n;
    this.toTop = h.toStart;
    this.survivedWords = 0;
    this.promotedWords = 0;
    // A streamed list is waited for once per READY_BLOCK objects.
    for (let b = 0; b < n; b += CALL_BLOCK) {
      if (ready !== undefined && b % READY_BLOCK === 0) ready(Math.min(n, b + READY_BLOCK));
      if (!this.assignBlock(live, b, Math.min(n, b + CALL_BLOCK), fullCollection)) return false;
    }
    return true;
  }

  /** `assign` of live objects [from, to), from `toTop` and the totals so far. */
  private assignBlock(live: Int32Array, from: number, to: number, fullCollection: boolean): boolean {
    const h = this.heap;
    const words = h.words;
    const rule = h.types.sizeRules();
    // The object model's names as locals: V8 reads an imported binding from its
    // module's cell, with a check, at every use, which here would be every object;
    // for the same reason both passes spell out `wordsByRule` with `left` at hand.
    const typeWord = TYPE_WORD;
    const lengthWord = LENGTH_WORD;
    const forwardWord = FORWARD_WORD;
    const forwarded = STATUS_FORWARDED;
    const fwd = this.forward.data;
    const typeIds = this.savedType.data;
    const tenureAge = h.tenureAge;
    const toEnd = h.toEnd;
    let toTop = this.toTop;
    let survived = 0;
    let promoted = 0;
    for (let i = from; i < to; i++) {
      const a = live[i]!;
      const status = words[a]!;
      const t = words[a + typeWord]!;
      const left = rule[4 * t]!;
      const size = left + rule[4 * t + 1]! + rule[4 * t + 2]! * words[a + lengthWord]!;
      const age = ageOf(status);
      let start = 0;
      if (age < tenureAge && toTop + size <= toEnd) {
        start = toTop;
        toTop += size;
        survived += size;
      } else {
        start = h.allocTenured(size);
        if (start !== 0) {
          promoted += size;
        } else if (fullCollection && toTop + size <= toEnd) {
          start = toTop;
          toTop += size;
          survived += size;
        } else {
          this.undo(live, i);
          return false;
        }
      }
      const na = start + left;
      fwd[i] = na;
      typeIds[i] = t;
      words[a] = status | forwarded;
      words[a + forwardWord] = na;
    }
    this.toTop = toTop;
    this.survivedWords += survived;
    this.promotedWords += promoted;
    return true;
  }

  /**
   * The live list reordered largest object first (ties in address order). A full
   * collection whose evacuation failed in address order retries with it: small
   * promotions carve up the free blocks of a fragmented tenured space that a large
   * survivor needed, while taken largest first each large object gets first pick.
   */
  largestFirst(live: Int32Array): Int32Array {
    const h = this.heap;
    const words = h.words;
    const n = live.length;
    const sizes = new Int32Array(n);
    const order = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      sizes[i] = h.types.objectWords(words, live[i]!);
      order[i] = i;
    }
    order.sort((x, y) => sizes[y]! - sizes[x]! || live[x]! - live[y]!);
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++) out[i] = live[order[i]!]!;
    return out;
  }

  /** Restores the first `count` headers and gives back the tenured chunks they took. */
  private undo(live: Int32Array, count: number): void {
    const h = this.heap;
    const words = h.words;
    const rule = h.types.sizeRules();
    const fwd = this.forward.data;
    for (let i = 0; i < count; i++) {
      const a = live[i]!;
      const t = this.savedType.data[i]!;
      words[a] = words[a]! & ~STATUS_FORWARDED;
      words[a + TYPE_WORD] = t;
      const dest = fwd[i]!;
      if (dest >= h.tenuredStart) h.freeList.addFree(dest - rule[4 * t]!, wordsByRule(rule, t, words[a + LENGTH_WORD]!));
    }
  }

  /** Pass 2: copy, then redirect the young references inside each copy.
   *  `log`: where to record the promoted copies as written for a heap mirror
   *  (null when there is none, or the marker replays the evacuation on it). */
  copy(live: Int32Array, log: MirrorLog | null): void {
    const n = live.length;
    for (let b = 0; b < n; b += CALL_BLOCK) this.copyBlock(live, b, Math.min(n, b + CALL_BLOCK), log);
  }

  /** `copy` of live objects [from, to). */
  private copyBlock(live: Int32Array, from: number, to: number, log: MirrorLog | null): void {
    const h = this.heap;
    const words = h.words;
    const ys = h.youngStart;
    const ye = h.youngEnd;
    const tenuredStart = h.tenuredStart;
    const cards = h.cards.cards;
    const { contiguous, kind, refBegin, refCount, refOffsets } = h.refSlots.view();
    // As in assign: the names as locals, read once rather than per object or slot.
    const header = HEADER_WORDS;
    const countWord = LAYOUT_WORD;
    const typeWord = TYPE_WORD;
    const forwardWord = FORWARD_WORD;
    const scattered = SCATTERED;
    const cardShift = CARD_SHIFT;
    const lengthWord = LENGTH_WORD;
    const rule = h.types.sizeRules();
    const fwd = this.forward.data;
    const typeIds = this.savedType.data;
    for (let i = from; i < to; i++) {
      const a = live[i]!;
      const na = fwd[i]!;
      const t = typeIds[i]!;
      const left = rule[4 * t]!;
      const size = left + rule[4 * t + 1]! + rule[4 * t + 2]! * words[a + lengthWord]!;
      const status = words[a]!;
      const src = a - left;
      const dst = na - left;
      if (size <= 32) {
        for (let k = 0; k < size; k++) words[dst + k] = words[src + k]!;
      } else {
        copyWords(words, dst, src, size);
      }
      words[na] = statusWithAge(ageOf(status) + 1);
      words[na + typeWord] = t;
      const promoted = na >= tenuredStart;
      if (promoted && log !== null) log.noteWrite(dst, dst + size);
      // The copy's reference slots, in either form of heap/ref-slots.ts (a sable
      // run computed here, so that the sable copy calls nothing per object); the
      // run gets a loop of its own so that it stays as tight as a sable-only copier's.
      const end = contiguous ? na + header + words[na + countWord]! : refRunEnd(words, kind, false, na);
      if (end !== scattered) {
        for (let s = na + header; s < end; s++) {
          const v = words[s]!;
          if (v < ys || v >= ye) continue;
          const nv = words[v + forwardWord]!;
          words[s] = nv;
          if (promoted && nv < ye) cards[(s - tenuredStart) >> cardShift] = 1;
        }
        continue;
      }
      const e = refBegin[t]! + refCount[t]!;
      for (let j = refBegin[t]!; j < e; j++) {
        const s = na + refOffsets[j]!;
        const v = words[s]!;
        if (v < ys || v >= ye) continue;
        const nv = words[v + forwardWord]!;
        words[s] = nv;
        if (promoted && nv < ye) cards[(s - tenuredStart) >> cardShift] = 1;
      }
    }
  }
}
