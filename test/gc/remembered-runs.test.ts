/**
 * The remembered set's runs as a marker's scan of its heap copy reports them
 * (gc/roots.ts RememberedRuns.setRunsIn): each run gets the object of the dirty
 * card's range it lies in, which refgraph's rebuild needs.
 */

import { describe, expect, it } from 'vitest';
import { RememberedRuns } from '../../src/gc/roots.js';

describe('remembered runs matched to their ranges', () => {
  // Three ranges (first, end) with objects 100, 200, 300.
  const ranges = Int32Array.from([1000, 1010, 1020, 1024, 2000, 2100]);
  const objects = Int32Array.from([100, 200, 300]);

  it('takes range k\'s object for run k, and searches for the further runs', () => {
    const rem = new RememberedRuns();
    // Each range's first run (count 0: none), then further runs in any order.
    const runs = Int32Array.from([1001, 2, 1020, 0, 2000, 5, 2050, 3, 1005, 4, 2099, 1]);
    rem.setRunsIn(runs, ranges, objects);
    expect(Array.from(rem.runs.view())).toEqual(Array.from(runs));
    expect(Array.from(rem.objects.view())).toEqual([100, 200, 300, 300, 100, 300]);
  });

  it('refuses runs that name no range, or fewer runs than ranges', () => {
    const rem = new RememberedRuns();
    expect(() => rem.setRunsIn(Int32Array.from([1001, 1, 1020, 1, 2000, 1, 1500, 1]), ranges, objects)).toThrow(/lies in no dirty card's range/);
    expect(() => rem.setRunsIn(Int32Array.from([1001, 1]), ranges, objects)).toThrow(/1 runs for 3 ranges/);
  });
});
