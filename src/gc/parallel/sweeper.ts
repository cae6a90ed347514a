/**
 * The main thread's side of the parallel sweep (sweep.ts): it hands the threads
 * the regions of tenured that hold blocks of their own, then joins the free runs
 * they listed where two meet at a region border and rebuilds the free list from
 * them in address order, as the serial sweep (gc/sweep.ts) does in its walk. The
 * runs go through `out`, sized from the last sweep's count; a sweep that
 * overflows it is done again serially.
 */

import { CARD_SHIFT } from '../../heap/card-table.js';
import type { HeapImpl } from '../../heap/heap.js';
import { IntList } from '../int-list.js';
import type { TenuredSweeper } from '../marker.js';
import { CMD_SWEEP, OUTCUR, P_OUT_CAP, P_REGIONS, P_TENURED_END, P_TENURED_START } from './shared.js';
import { REGION_WORDS } from './sweep.js';
import type { GcThreads } from './threads.js';

/** Free runs expected per tenured word before any sweep was seen (`out`'s first size). */
const FIRST_RUNS_PER_WORD = 1 / 64;

export class ParallelSweeper implements TenuredSweeper {
  /** Integers of `out` the last sweep needed. */
  private lastInts = -1;
  private readonly swept = new IntList();
  /** Sweeps the threads did, and those whose runs did not fit in `out` and were done again serially. */
  sweeps = 0;
  overflows = 0;

  constructor(
    private readonly heap: HeapImpl,
    private readonly gc: GcThreads,
  ) {}

  /**
   * The regions the threads sweep, in address order: all but those wholly inside
   * one free chunk that starts before them, which hold no block of their own (the
   * chunk's run belongs to the region it starts in). A region that a free chunk
   * reaches into from before gets the chunk's start as its first card's block
   * start: a chunk carved from its front leaves its later cards naming the chunk's
   * old start, now the first of the objects carved there, which the region would
   * otherwise walk through.
   */
  private regionsToSweep(regions: number, chunks: Array<[number, number]>): Int32Array {
    const h = this.heap;
    const base = h.tenuredStart;
    const blockStart = h.cards.blockStart;
    const list = this.swept;
    list.clear();
    let next = 0; // the first region not yet listed or skipped
    for (const [start, size] of chunks.sort((x, y) => x[0] - y[0])) {
      const end = start + size;
      // Regions after the one the chunk starts in, up to the last that ends inside it.
      const first = Math.floor((start - base) / REGION_WORDS) + 1;
      let last = Math.floor((end - base) / REGION_WORDS);
      if (end >= h.tenuredEnd) last = regions;
      for (; next < Math.min(first, regions); next++) list.push(next);
      if (last > next) next = last;
      const lo = base + last * REGION_WORDS;
      if (last < regions && lo > start && lo < end) blockStart[(lo - base) >> CARD_SHIFT] = start;
    }
    for (; next < regions; next++) list.push(next);
    return list.view();
  }

  sweep(bitmap: Uint32Array): boolean {
    const h = this.heap;
    const gc = this.gc;
    if (bitmap.buffer !== gc.ctx.bitmap.buffer) return false;
    const tenuredWords = h.tenuredEnd - h.tenuredStart;
    const regions = Math.ceil(tenuredWords / REGION_WORDS);
    const want = this.lastInts < 0 ? 2 * Math.ceil(tenuredWords * FIRST_RUNS_PER_WORD) : 2 * this.lastInts;
    const chunks = h.freeList.chunks();
    const swept = this.regionsToSweep(regions, chunks);
    gc.syncTypes();
    gc.ensure({ ranges: swept.length, tails: 2 * regions, out: Math.max(4096, want) });
    const c = gc.ctx;
    const ctl = c.ctl;
    c.ranges.set(swept);
    ctl[P_TENURED_START] = h.tenuredStart;
    ctl[P_TENURED_END] = h.tenuredEnd;
    ctl[P_REGIONS] = swept.length;
    ctl[P_OUT_CAP] = c.out.length;
    // The sweep steps through tenured's objects one by one and over a free chunk at once.
    gc.run(CMD_SWEEP, tenuredWords - h.freeList.freeWords + chunks.length);
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
    for (let i = 0; i < swept.length; i++) {
      const r = swept[i]!;
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
