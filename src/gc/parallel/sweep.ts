/**
 * The parallel sweep of tenured after a full mark, run by every GC thread at once:
 * tenured is cut into regions of REGION_WORDS words; those the main thread lists
 * in `ranges` are claimed one at a time from a shared cursor. A region owns the
 * blocks (objects and free chunks) that start in it. Its thread finds the first
 * of them from the block offset table's hint, clears the live objects' marks and
 * records their block starts, and lists the region's free space (dead objects
 * and free chunks, joined) as (start, end) runs in address order. The main
 * thread (sweeper.ts) joins the runs that meet at region borders and rebuilds
 * the free list from them: the same result as gc/sweep.ts's walk on one thread.
 *
 * The threads write nothing but mark bits and block starts that the serial sweep
 * would write too, so a sweep whose runs did not fit in `out` is simply done again
 * on one thread.
 */

import { blockHint, CARD_SHIFT } from '../../heap/card-table.js';
import { IntList } from '../int-list.js';
import { sweepBlocks } from '../sweep.js';
import type { GcContext } from './context.js';
import { OUTCUR, P_OUT_CAP, P_REGIONS, P_TENURED_END, P_TENURED_START, RANGECUR, S_OBJECTS, STATS_WORDS } from './shared.js';

/** Words of tenured per region: 64 cards. */
export const REGION_WORDS = 64 << CARD_SHIFT;

/** A thread's runs of the region in hand (kept across sweeps). */
const runs = new IntList();

export function sweepPhase(c: GcContext): void {
  const ctl = c.ctl;
  const base = ctl[P_TENURED_START]!;
  const end = ctl[P_TENURED_END]!;
  const regions = ctl[P_REGIONS]!;
  const outCap = ctl[P_OUT_CAP]!;
  let live = 0;
  for (let i = Atomics.add(ctl, RANGECUR, 1); i < regions; i = Atomics.add(ctl, RANGECUR, 1)) {
    const r = c.ranges[i]!;
    const lo = base + r * REGION_WORDS;
    const hi = Math.min(lo + REGION_WORDS, end);
    runs.clear();
    // The hint is a block start at or before lo; blocks before lo belong to earlier regions.
    live += sweepBlocks(c.words, c.bitmap, c.kind, c.right, c.blockStart, base, blockHint(c.blockStart, base, (lo - base) >> CARD_SHIFT), lo, hi, runs);
    const n = runs.length;
    const at = Atomics.add(ctl, OUTCUR, n);
    // Past the capacity, the main thread sees OUTCUR > P_OUT_CAP and sweeps again alone.
    if (at + n <= outCap) c.out.set(runs.view(), at);
    c.tails[2 * r] = at;
    c.tails[2 * r + 1] = n;
  }
  c.stats[c.id * STATS_WORDS + S_OBJECTS] = live;
}
