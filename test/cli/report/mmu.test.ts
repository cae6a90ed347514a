// Minimum mutator utilization on pause lists small enough to work out by hand, and
// against a brute-force scan of every integer window on random integer pauses.
import { describe, expect, it } from 'vitest';
import { logWindows, mergePauses, mmuCurve, MutatorUtilization } from '../../../src/cli/report/mmu.js';

describe('mergePauses', () => {
  it('sorts, clamps to the run and joins overlapping or touching pauses', () => {
    expect(mergePauses([[30, 40], [-5, 2], [35, 50], [50, 55], [90, 120], [60, 60]], 100)).toEqual([[0, 2], [30, 55], [90, 100]]);
  });
});

describe('MutatorUtilization', () => {
  it('one pause of 10 in a run of 100', () => {
    const mu = new MutatorUtilization([[10, 20]], 100);
    expect(mu.at(5)).toBe(0); // a window inside the pause
    expect(mu.at(10)).toBe(0);
    expect(mu.at(20)).toBeCloseTo(0.5, 12); // [10, 30] holds the whole pause
    expect(mu.at(50)).toBeCloseTo(0.8, 12);
    expect(mu.at(100)).toBeCloseTo(0.9, 12); // the run's throughput
    expect(mu.at(1000)).toBeCloseTo(0.9, 12);
  });

  it('two pauses of 10, 10 apart: a window of 30 that spans both is a third mutator', () => {
    const mu = new MutatorUtilization([[30, 40], [10, 20]], 100);
    expect(mu.at(10)).toBe(0);
    expect(mu.at(20)).toBeCloseTo(0.5, 12);
    expect(mu.at(30)).toBeCloseTo(1 / 3, 12); // [10, 40]
    expect(mu.at(40)).toBeCloseTo(0.5, 12); // [5, 45] or [10, 50]: 20 of 40
    expect(mu.at(100)).toBeCloseTo(0.8, 12);
  });

  it('a pause at the very start and one at the very end', () => {
    const mu = new MutatorUtilization([[0, 5], [95, 100]], 100);
    expect(mu.at(5)).toBe(0);
    expect(mu.at(10)).toBeCloseTo(0.5, 12); // [0, 10]: the window cannot start before the run
    expect(mu.at(50)).toBeCloseTo(0.9, 12);
  });

  it('no pauses: the mutator has every window', () => {
    const mu = new MutatorUtilization([], 100);
    expect(mu.at(1)).toBe(1);
    expect(mu.at(100)).toBe(1);
    expect(mmuCurve([], 100)).toEqual([]);
  });

  it('matches a scan of every integer window on random integer pauses', () => {
    // A 32-bit linear congruential generator in integer arithmetic (Math.imul), high bits used.
    let seed = 12345;
    const rand = (n: number): number => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return Math.floor((seed / 2 ** 32) * n);
    };
    let paused = 0;
    for (let trial = 0; trial < 40; trial++) {
      const length = 50 + rand(150);
      const pauses: Array<[number, number]> = [];
      for (let k = 1 + rand(8); k > 0; k--) {
        const s = rand(length);
        pauses.push([s, s + 1 + rand(12)]);
      }
      paused += pauses.length;
      const busy = new Array<number>(length).fill(0);
      for (const [s, e] of pauses) for (let t = s; t < Math.min(e, length); t++) busy[t] = 1;
      const mu = new MutatorUtilization(pauses, length);
      for (const w of [1, 3, 7, 15, 40, length]) {
        if (w > length) continue;
        let worst = 0;
        for (let t = 0; t + w <= length; t++) {
          let g = 0;
          for (let u = t; u < t + w; u++) g += busy[u]!;
          worst = Math.max(worst, g);
        }
        expect(mu.at(w), `trial ${trial}, w ${w}, pauses ${JSON.stringify(pauses)}`).toBeCloseTo(1 - worst / w, 9);
      }
    }
    expect(paused, 'the random runs have pauses').toBeGreaterThan(100);
  });
});

describe('mmuCurve', () => {
  it('runs from the smallest pause to the run length, rising from 0 to the throughput', () => {
    const curve = mmuCurve([[10, 12], [50, 60]], 100, 20);
    expect(curve.length).toBe(20);
    expect(curve[0]![0]).toBeCloseTo(2, 12);
    expect(curve[0]![1]).toBe(0);
    expect(curve[19]).toEqual([100, 0.88]);
    for (let i = 1; i < curve.length; i++) expect(curve[i]![0]).toBeGreaterThan(curve[i - 1]![0]);
  });

  it('logWindows spaces sizes evenly on a log scale', () => {
    const w = logWindows(1, 1000, 4);
    expect(w.map((x) => +x.toPrecision(10))).toEqual([1, 10, 100, 1000]);
  });
});
