/**
 * Sweeping tenured after a full mark: one address-ordered walk that turns every
 * unmarked object into free space, coalesces it with the free space around it,
 * rebuilds the free list in address order (so next-fit allocation starts low again)
 * and rewrites the block offset table for the blocks it leaves. Marks are cleared on
 * the way (a marker may have set STATUS_MARK).
 */

import type { HeapImpl } from '../heap/heap.js';
import { FREE_CHUNK, HEADER_WORDS, STATUS_MARK, headerAt } from '../heap/object-model.js';

export function sweepTenured(heap: HeapImpl, bitmap: Uint32Array, onLive?: (a: number) => void): void {
  const words = heap.words;
  const types = heap.types;
  const cards = heap.cards;
  const fl = heap.freeList;
  const end = heap.tenuredEnd;
  fl.reset();
  let p = heap.tenuredStart;
  let run = -1; // start of the current run of free space, or -1
  while (p < end) {
    const w = words[p]!;
    if (w < 0) {
      if (run < 0) run = p;
      p = w === FREE_CHUNK ? p + words[p + 1]! : p + 1;
      continue;
    }
    const a = headerAt(words, p);
    const next = a + HEADER_WORDS + types.rightWords(words, a);
    if ((bitmap[a >>> 5]! & (1 << (a & 31))) !== 0) {
      if (run >= 0) {
        fl.addFree(run, p - run);
        cards.recordBlock(run, p);
        run = -1;
      }
      words[a] = words[a]! & ~STATUS_MARK;
      cards.recordBlock(p, next);
      onLive?.(a);
    } else if (run < 0) {
      run = p;
    }
    p = next;
  }
  if (run >= 0) {
    fl.addFree(run, end - run);
    cards.recordBlock(run, end);
  }
}
