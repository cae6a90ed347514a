// One mirror change log read by two GPU mirrors (src/collectors/shared-dirty-ranges.ts):
// each reader gets everything written since its own last take, whoever took it from the log.
import { describe, expect, it } from 'vitest';
import { mergeRanges, SharedDirtyRanges } from '../../src/collectors/shared-dirty-ranges.js';

/** Words covered by (start, end) pairs. */
function covered(ranges: readonly number[]): Set<number> {
  const out = new Set<number>();
  for (let i = 0; i < ranges.length; i += 2) for (let w = ranges[i]!; w < ranges[i + 1]!; w++) out.add(w);
  return out;
}

describe('SharedDirtyRanges', () => {
  it('gives each reader what the others took since its last take, and the log gives once', () => {
    const log: number[][] = [];
    const shared = new SharedDirtyRanges(() => log.shift() ?? []);
    const a = shared.reader();
    const b = shared.reader();
    log.push([0, 10]);
    expect(a()).toEqual([0, 10]);
    log.push([20, 30]);
    expect(covered(b())).toEqual(covered([0, 10, 20, 30]));
    log.push([40, 41]);
    expect(covered(a())).toEqual(covered([20, 30, 40, 41]));
    expect(covered(b())).toEqual(covered([40, 41]));
    expect(a()).toEqual([]);
    expect(b()).toEqual([]);
  });

  it('gives what one reader\'s copy wrote itself to the others only', () => {
    const log: number[][] = [];
    const shared = new SharedDirtyRanges(() => log.shift() ?? []);
    const a = shared.reader();
    const b = shared.reader();
    const c = shared.reader();
    shared.wroteBy(a, [100, 110, 200, 201]);
    log.push([0, 4]);
    expect(covered(a())).toEqual(covered([0, 4]));
    expect(covered(b())).toEqual(covered([0, 4, 100, 110, 200, 201]));
    expect(covered(c())).toEqual(covered([0, 4, 100, 110, 200, 201]));
    expect(a()).toEqual([]);
  });

  it("keeps an idle reader's list bounded by merging it", () => {
    const shared = new SharedDirtyRanges(() => [0, 8, 4, 16]);
    const busy = shared.reader();
    const idle = shared.reader();
    for (let i = 0; i < 10_000; i++) busy();
    const r = idle();
    expect(r.length).toBeLessThan(20_000);
    expect(covered(r)).toEqual(covered([0, 16]));
  });

  it('mergeRanges sorts and joins overlapping and touching ranges', () => {
    expect(mergeRanges([30, 40, 0, 10, 5, 12, 12, 14, 50, 50])).toEqual([0, 14, 30, 40]);
  });
});
