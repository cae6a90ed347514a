/**
 * Sweeping tenured after a full mark: an address-ordered walk that turns every
 * unmarked object into free space, joins it with the free space around it,
 * rebuilds the free list in address order (so next-fit allocation starts low again)
 * and rewrites the block offset table for the blocks it leaves. Marks are cleared on
 * the way (a marker may have set STATUS_MARK). The walk (`sweepBlocks`) is also what
 * each of the parallel collector's threads runs over its regions (parallel/sweep.ts).
 */

import { recordBlockStart } from '../heap/card-table.js';
import type { HeapImpl } from '../heap/heap.js';
import { rightWordsBy } from '../heap/layout.js';
import { FREE_CHUNK, HEADER_TAG, HEADER_WORDS, STATUS_MARK } from '../heap/object-model.js';
import { IntList } from './int-list.js';

/**
 * Sweeps the blocks (objects and free chunks) that start in [`lo`, `hi`), walking
 * from `p`, a block start at or before `lo`: clears the live objects' marks, records
 * their block starts (cards from `base` on), and appends the free space as (start,
 * end) runs to `runs`, each as long as it goes (the last may end past `hi`). Writes
 * nothing else, so a walk done twice leaves what one does. Returns the live objects.
 */
export function sweepBlocks(
  words: Int32Array,
  bitmap: Int32Array | Uint32Array,
  kind: ArrayLike<number>,
  right: ArrayLike<number>,
  blockStart: Int32Array,
  base: number,
  p: number,
  lo: number,
  hi: number,
  runs: IntList,
  onLive?: (a: number) => void,
): number {
  let live = 0;
  let run = -1; // start of the current run of free space, or -1
  while (p < hi) {
    const w = words[p]!;
    // A free block has no header (-1); an object's header is at p or its lead word's offset.
    const a = w < 0 ? -1 : (w & HEADER_TAG) !== 0 ? p : p + w;
    const next = a < 0 ? (w === FREE_CHUNK ? p + words[p + 1]! : p + 1) : a + HEADER_WORDS + rightWordsBy(kind, right, words, a);
    if (p >= lo) {
      if (a >= 0 && (bitmap[a >>> 5]! & (1 << (a & 31))) !== 0) {
        if (run >= 0) {
          runs.push(run);
          runs.push(p);
          run = -1;
        }
        // Only a header that holds the bit is written: a store to every live
        // header would make the sweep write all of tenured back to memory.
        const status = a === p ? w : words[a]!;
        if ((status & STATUS_MARK) !== 0) words[a] = status & ~STATUS_MARK;
        recordBlockStart(blockStart, base, p, next);
        onLive?.(a);
        live++;
      } else if (run < 0) {
        run = p;
      }
    }
    p = next;
  }
  if (run >= 0) {
    runs.push(run);
    runs.push(p);
  }
  return live;
}

/** The serial sweep's runs (kept across sweeps). */
const runs = new IntList();

export function sweepTenured(heap: HeapImpl, bitmap: Uint32Array, onLive?: (a: number) => void): void {
  const cards = heap.cards;
  runs.clear();
  sweepBlocks(heap.words, bitmap, heap.types.kind, heap.types.right, cards.blockStart, heap.tenuredStart, heap.tenuredStart, heap.tenuredStart, heap.tenuredEnd, runs, onLive);
  const fl = heap.freeList;
  fl.reset();
  const r = runs.view();
  for (let k = 0; k < r.length; k += 2) {
    fl.addFree(r[k]!, r[k + 1]! - r[k]!);
    cards.recordBlock(r[k]!, r[k + 1]!);
  }
}
