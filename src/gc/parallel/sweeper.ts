/**
 * The main thread's side of the parallel sweep (sweep.ts): it hands the threads
 * the regions of tenured, then joins the free runs they listed where two meet at
 * a region border and rebuilds the free list from them in address order, as the
 * serial sweep (gc/sweep.ts) does in its walk. The runs go through `out`, sized
 * from the last sweep's count; a sweep that overflows it is done again serially.
 */

import type { HeapImpl } from '../../heap/heap.js';
import type { TenuredSweeper } from '../marker.js';
import { CMD_SWEEP, OUTCUR, P_OUT_CAP, P_REGIONS, P_TENURED_END, P_TENURED_START } from './shared.js';
import { REGION_WORDS } from './sweep.js';
import type { GcThreads } from './threads.js';

/** Free runs expected per tenured word before any sweep was seen (`out`'s first size). */
const FIRST_RUNS_PER_WORD = 1 / 64;

export class ParallelSweeper implements TenuredSweeper {
  /** Integers of `out` the last sweep needed. */
  private lastInts = -1;
  /** Sweeps the threads did, and those whose runs did not fit in `out` and were done again serially. */
  sweeps = 0;
  overflows = 0;

  constructor(
    private readonly heap: HeapImpl,
    private readonly gc: GcThreads,
  ) {}

  sweep(bitmap: Uint32Array): boolean {
    const h = this.heap;
    const gc = this.gc;
    if (bitmap.buffer !== gc.ctx.bitmap.buffer) return false;
    const tenuredWords = h.tenuredEnd - h.tenuredStart;
    const regions = Math.ceil(tenuredWords / REGION_WORDS);
    const want = this.lastInts < 0 ? 2 * Math.ceil(tenuredWords * FIRST_RUNS_PER_WORD) : 2 * this.lastInts;
    // A free chunk carved from its front leaves its later cards naming the chunk's old
    // start (still a block start, as the table allows), now the first of the objects
    // carved there; a region would walk all of them to find its first block. Naming
    // each chunk's start anew makes every region's first step short.
    for (const [start, size] of h.freeList.chunks()) h.cards.recordBlock(start, start + size);
    gc.syncTypes();
    gc.ensure({ tails: 2 * regions, out: Math.max(4096, want) });
    const c = gc.ctx;
    const ctl = c.ctl;
    ctl[P_TENURED_START] = h.tenuredStart;
    ctl[P_TENURED_END] = h.tenuredEnd;
    ctl[P_REGIONS] = regions;
    ctl[P_OUT_CAP] = c.out.length;
    gc.run(CMD_SWEEP);
    this.lastInts = ctl[OUTCUR]!;
    if (this.lastInts > c.out.length) {
      this.overflows++;
      return false;
    }
    const fl = h.freeList;
    const cards = h.cards;
    const out = c.out;
    const tails = c.tails;
    fl.reset();
    let start = -1;
    let end = -1;
    for (let r = 0; r < regions; r++) {
      const at = tails[2 * r]!;
      const stop = at + tails[2 * r + 1]!;
      for (let k = at; k < stop; k += 2) {
        const s = out[k]!;
        if (s === end) {
          end = out[k + 1]!;
          continue;
        }
        if (start >= 0) {
          fl.addFree(start, end - start);
          cards.recordBlock(start, end);
        }
        start = s;
        end = out[k + 1]!;
      }
    }
    if (start >= 0) {
      fl.addFree(start, end - start);
      cards.recordBlock(start, end);
    }
    this.sweeps++;
    return true;
  }
}
