/**
 * Root gathering and fixing: the interpreter's root slots (through RootProvider)
 * and the remembered set, i.e. the old-to-young reference slots found in dirty cards.
 *
 * A young collection takes its old-to-young roots from the dirty cards only (never
 * by scanning all of tenured), finds the objects overlapping each dirty card with the
 * block offset table, and keeps the slot addresses so that evacuation can redirect
 * them to the moved objects. Dead tenured objects in dirty cards count as roots too
 * (HotSpot does the same): the remembered set is conservative until the next full
 * collection sweeps them.
 */

import { CARD_DIRTY, CARD_WORDS, blockEnd, headerAt } from '../heap/card-table.js';
import type { HeapImpl } from '../heap/heap.js';
import { KIND_INSTANCE, KIND_REF_ARRAY, STATUS_FORWARDED } from '../heap/layout.js';
import type { IntList } from './int-list.js';

/** Appends every non-null root (only young ones when `youngOnly`) to `out`. */
export function gatherRoots(heap: HeapImpl, youngOnly: boolean, out: IntList): void {
  const lo = youngOnly ? heap.youngStart : 1;
  const hi = youngOnly ? heap.youngEnd : heap.words.length;
  heap.roots.visitRoots((slots, from, to) => {
    for (let i = from; i < to; i++) {
      const v = slots[i]!;
      if (v >= lo && v < hi) out.push(v);
    }
  });
}

/**
 * Scans the dirty cards: appends each card index to `cardsOut`, each slot holding a
 * young reference to `slotsOut`, and (when given) the young referent to
 * `referentsOut` and the slot's object header to `objectsOut` (for the refgraph).
 */
export function scanDirtyCards(
  heap: HeapImpl,
  cardsOut: IntList,
  slotsOut: IntList,
  referentsOut: IntList | null,
  objectsOut: IntList | null = null,
): void {
  const words = heap.words;
  const types = heap.types;
  const ct = heap.cards;
  const cards = ct.cards;
  const ys = heap.youngStart;
  const ye = heap.youngEnd;
  const sable = heap.layout.contiguousRefs;
  const n = ct.count;
  for (let c = 0; c < n; c++) {
    if (cards[c] !== CARD_DIRTY) continue;
    cardsOut.push(c);
    const cs = ct.cardStart(c);
    const ce = Math.min(cs + CARD_WORDS, heap.tenuredEnd);
    let p = ct.blockStartFor(c, words, types);
    while (p < ce) {
      const w = words[p]!;
      if (w < 0) {
        p = blockEnd(words, types, p);
        continue;
      }
      const a = headerAt(words, p);
      const t = words[a + 1]!;
      const end = a + 4 + types.rightWords(words, a);
      if (sable || types.kind[t] === KIND_REF_ARRAY) {
        const refEnd = a + 4 + (sable ? words[a + 2]! : words[a + 3]!);
        const lo = a + 4 > cs ? a + 4 : cs;
        const hi = refEnd < ce ? refEnd : ce;
        for (let s = lo; s < hi; s++) {
          const v = words[s]!;
          if (v >= ys && v < ye) {
            slotsOut.push(s);
            referentsOut?.push(v);
            objectsOut?.push(a);
          }
        }
      } else if (types.kind[t] === KIND_INSTANCE) {
        const b = types.refBegin[t]!;
        const e = b + types.refCount[t]!;
        for (let j = b; j < e; j++) {
          const s = a + types.refOffsets[j]!;
          if (s < cs || s >= ce) continue;
          const v = words[s]!;
          if (v >= ys && v < ye) {
            slotsOut.push(s);
            referentsOut?.push(v);
            objectsOut?.push(a);
          }
        }
      }
      p = end;
    }
  }
}

/** Redirects every root slot that refers to a forwarded young object. */
export function fixRoots(heap: HeapImpl): void {
  const words = heap.words;
  const ys = heap.youngStart;
  const ye = heap.youngEnd;
  heap.roots.visitRoots((slots, from, to) => {
    for (let i = from; i < to; i++) {
      const v = slots[i]!;
      // The forwarded test makes a slot reported twice harmless.
      if (v >= ys && v < ye && (words[v]! & STATUS_FORWARDED) !== 0) slots[i] = words[v + 1]!;
    }
  });
}
