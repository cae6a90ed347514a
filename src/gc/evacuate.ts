/**
 * Evacuation of the live young objects, shared by young and full collections.
 *
 * Three passes over the marker's live list, all in typed arrays:
 *  1. assign: choose each object's destination without moving anything: the
 *     to-survivor space (bump) while the object's age is below `tenureAge` and it
 *     fits, else tenured (promotion by age, or early promotion when the survivor
 *     space overflows). If tenured cannot take an object the pass is undone (the
 *     chunks taken go back to the free list) and the caller escalates: a young
 *     collection becomes a full one ("promotion failed"), as in HotSpot; nothing has
 *     moved yet, so the heap is intact.
 *  2. copy: copy each object, give the copy its new age, and turn the old header
 *     into a forwarding header (status | forwarded, new address in a+1).
 *  3. fix: redirect the young references inside the copies through the forwarding
 *     headers; promoted copies that still refer to young objects dirty their cards.
 * The plan fixes the root slots and the remembered-set slots itself.
 */

import type { HeapImpl } from '../heap/heap.js';
import {
  AGE_MASK,
  AGE_SHIFT,
  HEADER_TAG,
  KIND_INSTANCE,
  KIND_REF_ARRAY,
  STATUS_FORWARDED,
} from '../heap/layout.js';
import { IntList } from './int-list.js';

export class Evacuator {
  /** New header address of each live object (parallel to the live list). */
  readonly forward = new IntList();
  /** Words taken to the left of the header, and total size, of each live object. */
  private readonly left = new IntList();
  private readonly size = new IntList();
  toTop = 0;
  survivedWords = 0;
  promotedWords = 0;

  constructor(private readonly heap: HeapImpl) {}

  /**
   * Pass 1. `fullCollection`: an object that tenured cannot take may stay young even
   * past its age (there is nothing further to escalate to). Returns false, with
   * everything undone, when some object has nowhere to go.
   */
  assign(live: Int32Array, fullCollection: boolean): boolean {
    const h = this.heap;
    const words = h.words;
    const types = h.types;
    const n = live.length;
    const fwd = this.forward.reserve(n);
    const lefts = this.left.reserve(n);
    const sizes = this.size.reserve(n);
    this.forward.length = this.left.length = this.size.length = n;
    const tenureAge = h.tenureAge;
    const toEnd = h.toEnd;
    let toTop = h.toStart;
    let survived = 0;
    let promoted = 0;
    for (let i = 0; i < n; i++) {
      const a = live[i]!;
      const t = words[a + 1]!;
      const left = types.kind[t] === KIND_INSTANCE ? types.left[t]! : 0;
      const size = left + 4 + types.rightWords(words, a);
      lefts[i] = left;
      sizes[i] = size;
      const age = (words[a]! >> AGE_SHIFT) & AGE_MASK;
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
          this.undo(i);
          return false;
        }
      }
      fwd[i] = start + left;
    }
    this.toTop = toTop;
    this.survivedWords = survived;
    this.promotedWords = promoted;
    return true;
  }

  /** Gives back the tenured chunks taken for the first `count` objects. */
  private undo(count: number): void {
    const h = this.heap;
    const fwd = this.forward.data;
    for (let i = 0; i < count; i++) {
      const dest = fwd[i]!;
      if (dest >= h.tenuredStart) {
        const start = dest - this.left.data[i]!;
        h.freeList.addFree(start, this.size.data[i]!);
      }
    }
  }

  /** Pass 2: copy and forward. */
  copy(live: Int32Array): void {
    const words = this.heap.words;
    const fwd = this.forward.data;
    const lefts = this.left.data;
    const sizes = this.size.data;
    const n = live.length;
    for (let i = 0; i < n; i++) {
      const a = live[i]!;
      const na = fwd[i]!;
      const left = lefts[i]!;
      const size = sizes[i]!;
      const src = a - left;
      const dst = na - left;
      if (size <= 32) {
        for (let k = 0; k < size; k++) words[dst + k] = words[src + k]!;
      } else {
        words.copyWithin(dst, src, src + size);
      }
      const status = words[a]!;
      let age = ((status >> AGE_SHIFT) & AGE_MASK) + 1;
      if (age > AGE_MASK) age = AGE_MASK;
      // A promoted copy keeps its age only for the logs' sake; survivors age by one.
      words[na] = HEADER_TAG | (age << AGE_SHIFT);
      words[a] = status | STATUS_FORWARDED;
      words[a + 1] = na;
    }
  }

  /** Pass 3: redirect young references inside the copies. */
  fix(): void {
    const h = this.heap;
    const words = h.words;
    const types = h.types;
    const ys = h.youngStart;
    const ye = h.youngEnd;
    const tenuredStart = h.tenuredStart;
    const cards = h.cards.cards;
    const sable = h.layout.contiguousRefs;
    const fwd = this.forward.data;
    const n = this.forward.length;
    for (let i = 0; i < n; i++) {
      const na = fwd[i]!;
      const promoted = na >= tenuredStart;
      const t = words[na + 1]!;
      const k = types.kind[t];
      if (sable || k === KIND_REF_ARRAY) {
        const end = na + 4 + (sable ? words[na + 2]! : words[na + 3]!);
        for (let s = na + 4; s < end; s++) {
          const v = words[s]!;
          if (v < ys || v >= ye) continue;
          const nv = words[v + 1]!;
          words[s] = nv;
          if (promoted && nv < ye) cards[(s - tenuredStart) >> 7] = 1;
        }
      } else if (k === KIND_INSTANCE) {
        const b = types.refBegin[t]!;
        const e = b + types.refCount[t]!;
        for (let j = b; j < e; j++) {
          const s = na + types.refOffsets[j]!;
          const v = words[s]!;
          if (v < ys || v >= ye) continue;
          const nv = words[v + 1]!;
          words[s] = nv;
          if (promoted && nv < ye) cards[(s - tenuredStart) >> 7] = 1;
        }
      }
    }
  }
}
