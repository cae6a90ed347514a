// auto's pause model (src/collectors/pause-model.ts, decaying-fit.ts), fed
// synthetic phase costs: what it predicts, what it chooses, and how it learns.
import { describe, expect, it } from 'vitest';
import { DecayingFit, SHIFT_KEEP } from '../../src/collectors/decaying-fit.js';
import {
  EXPLORE_AFTER,
  EXPLORE_MARGIN,
  PauseModel,
  REFRESH_AFTER,
  type Engine,
  type Features,
  type Observation,
} from '../../src/collectors/pause-model.js';

const CPU: Engine[] = ['serial', 'parallel'];
const ALL: Engine[] = ['serial', 'parallel', 'gpu-dfs', 'gpu-bfs'];

/** A young collection of 1 Mi live words out of a 16 Mi-word eden. */
function young(over: Partial<Features> = {}): Features {
  return {
    kind: 'young', rootWork: 100, markWords: 1 << 20, copyWords: 1 << 20, sweepWords: 0,
    uploadWords: { 'gpu-dfs': 1 << 24, 'gpu-bfs': 1 << 26 }, ...over,
  };
}

/** A collection of `f` by `engine` whose phases sum to `pauseMs` (all in the mark). */
function ran(engine: Engine, f: Features, pauseMs: number, uploadMs = 0): Observation {
  return { ...f, engine, rootsMs: 0, markMs: pauseMs - uploadMs, uploadMs, copyMs: 0, sweepMs: 0, otherMs: 0 };
}

describe('DecayingFit', () => {
  it('is its prior without samples', () => {
    const fit = new DecayingFit({ fixed: 2, perUnit: 0.001 }, 1000);
    expect(fit.predict(0)).toBeCloseTo(2, 9);
    expect(fit.predict(5000)).toBeCloseTo(7, 9);
    expect(fit.samples).toBe(0);
  });

  it('recovers a fixed cost and a per-unit cost from samples of two sizes', () => {
    const fit = new DecayingFit({ fixed: 0, perUnit: 0 }, 1000);
    for (let i = 0; i < 20; i++) {
      fit.add(1000, 3 + 0.01 * 1000);
      fit.add(9000, 3 + 0.01 * 9000);
    }
    const l = fit.line();
    // The prior's two light pseudo-samples (here a wrong line through 0) pull a
    // little; the real samples dominate.
    expect(l.fixed).toBeGreaterThan(1.5);
    expect(l.fixed).toBeLessThan(4.5);
    expect(l.perUnit).toBeGreaterThan(0.0095);
    expect(l.perUnit).toBeLessThan(0.0105);
    expect(Math.abs(fit.predict(1000) - 13) / 13).toBeLessThan(0.1);
    expect(Math.abs(fit.predict(9000) - 93) / 93).toBeLessThan(0.05);
  });

  it('decays: newer samples weigh more, so it follows a drift', () => {
    const fit = new DecayingFit({ fixed: 0, perUnit: 0.001 }, 1000);
    for (let i = 0; i < 10; i++) fit.add(1000, 10);
    const before = fit.predict(1000);
    expect(before).toBeGreaterThan(9.5);
    // Within SHIFT_FACTOR: an ordinary change, followed by the decay alone.
    fit.add(1000, 6);
    const one = fit.predict(1000);
    expect(one).toBeLessThan(before);
    expect(one).toBeGreaterThan(6);
    for (let i = 0; i < 10; i++) fit.add(1000, 6);
    expect(fit.predict(1000)).toBeLessThan(6.2);
  });

  it('a sample far off the prediction (a change of regime) discounts the older ones at once', () => {
    const fit = new DecayingFit({ fixed: 0, perUnit: 0.001 }, 1000);
    fit.add(1000, 200); // a JIT warm-up
    fit.add(1000, 10);
    // With ordinary decay (0.7) the mean would be (0.7*200 + 10)/1.7 = 88.
    const expected = (SHIFT_KEEP * 200 + 10) / (SHIFT_KEEP + 1);
    expect(fit.predict(1000)).toBeLessThan(expected * 1.1);
  });

  it('never predicts a negative cost', () => {
    const fit = new DecayingFit({ fixed: 1, perUnit: 0.001 }, 1000);
    fit.add(100, 5);
    fit.add(10000, 0.5);
    expect(fit.line().perUnit).toBeGreaterThanOrEqual(0);
    expect(fit.line().fixed).toBeGreaterThanOrEqual(0);
    expect(fit.predict(1e9)).toBeGreaterThanOrEqual(0);
  });
});

describe('PauseModel: predictions', () => {
  it('sums the terms: a larger collection is predicted slower, full dearer than young', () => {
    const m = new PauseModel(8);
    const small = m.predict('serial', young({ markWords: 1000, copyWords: 1000 })).pauseMs;
    const large = m.predict('serial', young()).pauseMs;
    expect(large).toBeGreaterThan(small);
    const full = m.predict('serial', { ...young(), kind: 'full', sweepWords: 1 << 24 }).pauseMs;
    expect(full).toBeGreaterThan(large);
  });

  it("a GPU engine's upload is priced: the same work costs more with more to upload", () => {
    const m = new PauseModel(8);
    const little = m.predict('gpu-dfs', young({ uploadWords: { 'gpu-dfs': 1000 } })).pauseMs;
    const much = m.predict('gpu-dfs', young({ uploadWords: { 'gpu-dfs': 1 << 24 } })).pauseMs;
    expect(much).toBeGreaterThan(little);
  });

  it('CPU time: the parallel pause times its threads, the others their pause', () => {
    const m = new PauseModel(8);
    for (const e of ALL) {
      const p = m.predict(e, young());
      expect(p.cpuMs).toBeCloseTo(e === 'parallel' ? p.pauseMs * 8 : p.pauseMs, 9);
    }
  });
});

describe('PauseModel: choices', () => {
  it('without samples, the fastest by its priors: serial for a small collection', () => {
    const m = new PauseModel(8);
    const c = m.choose(young({ markWords: 100, copyWords: 100 }), ALL);
    expect(c.engine).toBe('serial');
    expect(c.reason).toBe('fastest');
  });

  it('learns that an engine is cheaper and switches to it, and back when it gets dear', () => {
    const m = new PauseModel(8);
    const f = young();
    // Both measured: parallel is the cheaper one here.
    m.observe(ran('serial', f, 10));
    m.observe(ran('parallel', f, 2));
    expect(m.choose(f, CPU).engine).toBe('parallel');
    // Parallel gets dear (a loaded machine): the model follows and goes back.
    let switched = -1;
    for (let i = 0; i < 10 && switched < 0; i++) {
      m.observe(ran('parallel', f, 16));
      if (m.choose(f, CPU).engine === 'serial') switched = i;
    }
    expect(switched).toBeGreaterThanOrEqual(0);
    expect(switched).toBeLessThan(3);
  });

  it('an engine with no samples is tried when its prior is competitive, not otherwise', () => {
    const m = new PauseModel(8);
    // All the work in the mark, which the samples below measure.
    const f = young({ copyWords: 0, rootWork: 0 });
    const parallelPrior = m.predict('parallel', f).pauseMs;
    // Serial measured a little faster than parallel's prior: once serial has
    // EXPLORE_AFTER samples (its first may be a JIT warm-up), parallel is tried.
    m.observe(ran('serial', f, parallelPrior / 1.1));
    expect(EXPLORE_AFTER).toBe(2);
    expect(m.choose(f, CPU).reason).not.toBe('explore');
    for (let i = 0; i < 9; i++) m.observe(ran('serial', f, parallelPrior / 1.1));
    const serial = m.predict('serial', f).pauseMs;
    expect(serial).toBeLessThan(parallelPrior);
    expect(serial * EXPLORE_MARGIN).toBeGreaterThan(parallelPrior);
    expect(m.choose(f, CPU)).toMatchObject({ engine: 'parallel', reason: 'explore' });
    // Serial measured far faster than parallel's prior: parallel is not tried.
    const m2 = new PauseModel(8);
    for (let i = 0; i < 3; i++) m2.observe(ran('serial', f, parallelPrior / (EXPLORE_MARGIN * 2)));
    expect(m2.choose(f, CPU)).toMatchObject({ engine: 'serial', reason: 'fastest' });
  });

  it('a software GPU adapter is never chosen without evidence', () => {
    const m = new PauseModel(2, 'software');
    // A collection so large that a hardware GPU's priors would win it.
    const huge = young({ markWords: 1 << 26, copyWords: 1 << 14, uploadWords: { 'gpu-dfs': 1 << 10, 'gpu-bfs': 1 << 10 } });
    expect(new PauseModel(2).choose(huge, ['serial', 'gpu-dfs', 'gpu-bfs']).engine).not.toBe('serial');
    m.observe(ran('serial', huge, m.predict('serial', huge).pauseMs));
    expect(m.choose(huge, ['serial', 'gpu-dfs', 'gpu-bfs']).engine).toBe('serial');
    // The same after the probe turns a model's hardware priors into software ones.
    const probed = new PauseModel(2);
    probed.setAdapter('software');
    expect(probed.choose(huge, ['serial', 'gpu-dfs', 'gpu-bfs']).engine).toBe('serial');
  });

  it('a pause goal picks the engine that meets it at least CPU time, else the fastest', () => {
    const m = new PauseModel(8);
    const f = young();
    m.observe(ran('serial', f, 8)); // CPU 8 ms
    m.observe(ran('parallel', f, 3)); // CPU 24 ms
    expect(m.choose(f, CPU).engine).toBe('parallel');
    expect(m.choose(f, CPU, { pauseGoalMs: 10 })).toMatchObject({ engine: 'serial', reason: 'goal' });
    expect(m.choose(f, CPU, { pauseGoalMs: 5 })).toMatchObject({ engine: 'parallel', reason: 'goal' });
    expect(m.choose(f, CPU, { pauseGoalMs: 1 })).toMatchObject({ engine: 'parallel', reason: 'fastest' });
  });

  it('an engine left unrun for a while is tried again when it is close', () => {
    const m = new PauseModel(8);
    const f = young();
    m.observe(ran('serial', f, 10));
    m.observe(ran('parallel', f, 9));
    let tried = -1;
    for (let i = 0; i < REFRESH_AFTER + 3 && tried < 0; i++) {
      const c = m.choose(f, CPU);
      if (c.engine === 'serial') tried = i;
      m.observe(ran(c.engine, f, c.engine === 'parallel' ? 9 : 10));
    }
    expect(tried).toBeGreaterThanOrEqual(REFRESH_AFTER - 2);
    expect(tried).toBeLessThanOrEqual(REFRESH_AFTER + 1);
  });

  it('young and full collections are learned apart', () => {
    const m = new PauseModel(8);
    const y = young();
    const full: Features = { ...y, kind: 'full', sweepWords: 1 << 22 };
    m.observe(ran('serial', y, 10));
    m.observe(ran('parallel', y, 2));
    expect(m.samples('parallel', 'young')).toBe(1);
    expect(m.samples('parallel', 'full')).toBe(0);
    expect(m.choose(y, CPU).engine).toBe('parallel');
    m.observe(ran('serial', full, 5));
    m.observe(ran('parallel', full, 40));
    expect(m.choose(full, CPU).engine).toBe('serial');
    expect(m.choose(y, CPU).engine).toBe('parallel');
  });

  it('is deterministic: the same observations give the same choices', () => {
    const run = (): string[] => {
      const m = new PauseModel(8);
      const out: string[] = [];
      for (let i = 0; i < 40; i++) {
        const f = young({ markWords: (1 << 16) * (1 + (i % 5)), copyWords: (1 << 16) * (1 + (i % 3)) });
        const c = m.choose(f, ALL);
        out.push(c.engine);
        const cost = { serial: 6, parallel: 4, 'gpu-dfs': 30, 'gpu-bfs': 35 }[c.engine] * (1 + (i % 5) / 4);
        m.observe(ran(c.engine, f, cost));
      }
      return out;
    };
    const a = run();
    expect(run()).toEqual(a);
    expect(new Set(a).size).toBeGreaterThan(1);
  });

  it('its error is the median and worst |actual - predicted| / actual', () => {
    const m = new PauseModel(8);
    expect(m.error()).toEqual({ count: 0, median: 0, worst: 0, warm: { count: 0, median: 0, worst: 0 } });
    m.checkPrediction(9, 10, 0); // 10%, from the priors
    m.checkPrediction(10, 10, 5); // 0%
    m.checkPrediction(15, 10, 2); // 50%
    m.checkPrediction(12, 10, 3); // 20%
    const e = m.error();
    expect(e.count).toBe(4);
    expect(e.median).toBeCloseTo(0.15, 9);
    expect(e.worst).toBeCloseTo(0.5, 9);
    // Warm: the predictions made with EXPLORE_AFTER samples or more.
    expect(e.warm.count).toBe(3);
    expect(e.warm.median).toBeCloseTo(0.2, 9);
  });
});
