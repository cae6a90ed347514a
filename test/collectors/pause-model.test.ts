// auto's pause model (src/collectors/pause-model.ts, decaying-fit.ts), fed
// synthetic phase costs: what it predicts, what it chooses, and how it learns.
import { describe, expect, it } from 'vitest';
import { DecayingFit, DecayingRatio, SHIFT_KEEP } from '../../src/collectors/decaying-fit.js';
import { expectedSaving, lognormalMean, normalCdf, remainingCollections, tryValue } from '../../src/collectors/explore-value.js';
import {
  PauseModel,
  REFRESH_AFTER,
  WARM_SAMPLES,
  WARMUP_PRIOR,
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

/** `engine` measured `n` times at `pauseMs` for `f`: past its warm-up. */
function warm(m: PauseModel, engine: Engine, f: Features, pauseMs: number, n = 4): void {
  for (let i = 0; i < n; i++) m.observe(ran(engine, f, pauseMs));
}

/**
 * A program of `collections` young collections of `f` under the model's choices,
 * where each engine really costs `cost[engine]` once warm and WARMUP_PRIOR times
 * that the first time it runs. Returns the engines chosen, in order.
 */
function simulate(m: PauseModel, f: Features, engines: Engine[], cost: Partial<Record<Engine, number>>, collections: number): Engine[] {
  const ranBefore = new Set<Engine>();
  const chosen: Engine[] = [];
  for (let i = 0; i < collections; i++) {
    const c = m.choose(f, engines);
    chosen.push(c.engine);
    const steady = cost[c.engine]!;
    const pause = ranBefore.has(c.engine) ? steady : steady * WARMUP_PRIOR;
    ranBefore.add(c.engine);
    // All of it in the mark: the other terms are shared and measured in any case.
    m.observe(ran(c.engine, { ...f, rootWork: 0, copyWords: 0 }, pause));
  }
  return chosen;
}

/** Sizes of a young collection at which parallel's prior is `ratio` times serial's (8 threads). */
function whereParallelIs(ratio: number): Features {
  const m = new PauseModel(8);
  let lo = 1;
  let hi = 1 << 24;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    const f = young({ markWords: mid, copyWords: 0, rootWork: 0, uploadWords: {} });
    // Parallel's fixed costs lose at small sizes; its per-word costs win at large ones.
    if (m.predict('parallel', f).steadyMs / m.predict('serial', f).steadyMs > ratio) lo = mid;
    else hi = mid;
  }
  return young({ markWords: lo, copyWords: 0, rootWork: 0, uploadWords: {} });
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

describe('DecayingRatio', () => {
  it('takes its first observation whole, then leans on the newest by its weight, within [0, 1]', () => {
    const r = new DecayingRatio(0.5, 0.3);
    expect(r.value).toBe(0.5);
    r.observe(0.04);
    expect(r.value).toBe(0.04);
    r.observe(1.04);
    expect(r.value).toBeCloseTo(0.04 + 0.3 * (1 - 0.04), 12);
    r.observe(-1);
    expect(r.value).toBeCloseTo(0.328 * 0.7, 12);
  });
});

describe('PauseModel: predictions', () => {
  it("learns a GPU engine's young copy (on its device) apart from the CPU's", () => {
    const m = new PauseModel(1, 'hardware', 1);
    const f = young({ uploadWords: {} });
    for (let i = 0; i < 4; i++) m.observe({ ...ran('serial', f, 30), markMs: 5, copyMs: 25 });
    const serial = m.predict('serial', f).steadyMs;
    const gpuBefore = m.predict('gpu-dfs', f).steadyMs;
    // The device copies the same words in a tenth of the CPU's time.
    for (let i = 0; i < 4; i++) m.observe({ ...ran('gpu-dfs', f, 4), markMs: 1.5, copyMs: 2.5 });
    // Serial's copy term is its own (the shared roots and other terms barely move).
    expect(Math.abs(m.predict('serial', f).steadyMs - serial)).toBeLessThan(0.01 * serial);
    const gpu = m.predict('gpu-dfs', f).steadyMs;
    expect(gpu).toBeLessThan(gpuBefore);
    expect(gpu).toBeLessThan(serial / 3);
    // gpu-bfs evacuates with the same kernels: its copy term is learned too.
    expect(m.predict('gpu-bfs', f).steadyMs).toBeLessThan(serial);
  });

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

  it("parallel's young prior is below serial's on two threads, its full prior no lower: it traces and copies in one pass", () => {
    const m = new PauseModel(2);
    const f = young();
    expect(m.predict('parallel', f).steadyMs).toBeLessThan(0.75 * m.predict('serial', f).steadyMs);
    const full: Features = { ...f, kind: 'full', sweepWords: 1 << 22 };
    expect(m.predict('parallel', full).steadyMs).toBeGreaterThanOrEqual(m.predict('serial', full).steadyMs);
  });

  it("parallel's roots are its own term: serial's remembered-set scan does not price them", () => {
    const m = new PauseModel(8);
    const f = young({ rootWork: 1 << 20 });
    const before = m.predict('parallel', f).steadyMs;
    // Serial measured with 200 ms of roots (a large remembered set scanned on the main thread).
    warm(m, 'serial', f, 50);
    for (let i = 0; i < 4; i++) m.observe({ ...ran('serial', f, 50), rootsMs: 200 });
    expect(m.predict('serial', f).steadyMs).toBeGreaterThan(200);
    // Parallel's threads scan it in their copy: its prediction follows serial's
    // mark and copy, not serial's roots.
    expect(m.predict('parallel', f).steadyMs).toBeLessThan(before + 50);
    expect(m.predict('parallel', f).steadyMs).toBeLessThan(100);
  });

  it('parallel counts no more threads than cores: more only take turns', () => {
    const f = young();
    const two = new PauseModel(2).predict('parallel', f).steadyMs;
    expect(new PauseModel(4, 'hardware', 2).predict('parallel', f).steadyMs).toBeCloseTo(two, 9);
    expect(new PauseModel(4, 'hardware', 4).predict('parallel', f).steadyMs).toBeLessThan(two);
    // Its CPU time still counts every thread.
    const p = new PauseModel(4, 'hardware', 2).predict('parallel', f);
    expect(p.cpuMs).toBeCloseTo(p.pauseMs * 4, 9);
  });

  it('CPU time: the parallel pause times its threads, the others their pause', () => {
    const m = new PauseModel(8);
    for (const e of ALL) {
      const p = m.predict(e, young());
      expect(p.cpuMs).toBeCloseTo(e === 'parallel' ? p.pauseMs * 8 : p.pauseMs, 9);
    }
  });
});

describe('explore-value: whether a try pays', () => {
  it('the normal distribution function', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1.959964)).toBeCloseTo(0.975, 6);
    expect(normalCdf(-1)).toBeCloseTo(0.158655, 6);
  });

  it('the expected saving is E[max(0, best - c)] for a lognormal c (checked by quadrature)', () => {
    for (const [best, median, sigma] of [[10, 12, 1], [10, 5, 0.7], [3, 30, 1.2], [8, 8, 0.5]] as const) {
      let sum = 0;
      const dz = 1e-3;
      for (let z = -8; z < 8; z += dz) {
        const c = median * Math.exp(sigma * z);
        sum += Math.max(0, best - c) * Math.exp(-z * z / 2) / Math.sqrt(2 * Math.PI) * dz;
      }
      expect(expectedSaving(best, median, sigma)).toBeCloseTo(sum, 4);
    }
    expect(lognormalMean(2, 1)).toBeCloseTo(2 * Math.exp(0.5), 9);
    // Certain costs: the plain difference.
    expect(expectedSaving(10, 4, 0)).toBe(6);
    expect(expectedSaving(10, 14, 0)).toBe(0);
  });

  it('a try pays only with enough collections left; the doubling estimate gives them', () => {
    const t = { bestMs: 10, medianMs: 11, sigma: 1, warmup: 3 };
    expect(tryValue({ ...t, remaining: 2 })).toBeLessThan(0);
    expect(tryValue({ ...t, remaining: 500 })).toBeGreaterThan(0);
    // More remaining, more value; a dearer warm-up, less.
    expect(tryValue({ ...t, remaining: 50 })).toBeGreaterThan(tryValue({ ...t, remaining: 40 }));
    expect(tryValue({ ...t, remaining: 50, warmup: 5 })).toBeLessThan(tryValue({ ...t, remaining: 50 }));
    expect(remainingCollections(0)).toBe(0);
    expect(remainingCollections(17)).toBe(17);
  });
});

describe('PauseModel: warm-up', () => {
  it("a term's first sample enters divided by the warm-up, so a cold first run does not stick", () => {
    const m = new PauseModel(8);
    const f = young({ copyWords: 0, rootWork: 0 });
    m.observe(ran('serial', f, 30 * WARMUP_PRIOR));
    expect(m.predict('serial', f).pauseMs).toBeLessThan(40);
    expect(m.predict('serial', f).pauseMs).toBeGreaterThan(20);
  });

  it("reports an engine's next pause from its samples as taken, its second run still partly cold, while the choice weighs the steady cost", () => {
    const m = new PauseModel(8);
    const f = young({ copyWords: 0, rootWork: 0 });
    m.observe(ran('serial', f, 30 * WARMUP_PRIOR));
    const p = m.predict('serial', f);
    expect(p.pauseMs).toBeLessThan(40);
    expect(p.expectedMs).toBeGreaterThan(70);
    expect(p.expectedMs).toBeLessThan(30 * WARMUP_PRIOR + 1);
    expect(m.choose(f, ['serial']).predictedMs).toBe(p.expectedMs);
    expect(m.serialChoice(f).predictedMs).toBe(p.expectedMs);
    // Warm samples take the reported pause to the steady cost within a few collections.
    for (let i = 0; i < 4; i++) m.observe(ran('serial', f, 30));
    const later = m.predict('serial', f);
    expect(later.expectedMs).toBeGreaterThan(27);
    expect(later.expectedMs).toBeLessThan(36);
    // A term never measured is reported as the choice weighs it: its prior times the warm-up.
    const untried = m.predict('parallel', f);
    expect(untried.expectedMs).toBeCloseTo(untried.pauseMs, 9);
  });

  it('learns the warm-up from terms measured past it: their first samples against their lines', () => {
    const m = new PauseModel(8);
    expect(m.warmup()).toBe(WARMUP_PRIOR);
    const f = young({ copyWords: 0, rootWork: 0 });
    m.observe(ran('serial', f, 100));
    for (let i = 0; i < 6; i++) m.observe(ran('serial', f, 10));
    expect(m.warmup()).toBeGreaterThan(8);
    expect(m.warmup()).toBeLessThan(10.5);
    // A term never measured is predicted with the warm-up: parallel's first run.
    const p = m.predict('parallel', f);
    expect(p.pauseMs / p.steadyMs).toBeGreaterThan(3);
  });

  it('reads its warm-up through warmup() alone, so a variant that overrides it (bench autoreplay) changes predictions and learning', () => {
    const plain = new PauseModel(8);
    plain.warmup = () => 1;
    const f = young({ copyWords: 0, rootWork: 0 });
    const p = plain.predict('parallel', f);
    expect(p.pauseMs).toBeCloseTo(p.steadyMs, 12);
    plain.observe(ran('serial', f, 30));
    const built = new PauseModel(8);
    built.observe(ran('serial', f, 30));
    expect(plain.predict('serial', f).pauseMs).toBeGreaterThan(built.predict('serial', f).pauseMs * 1.5);
  });
});

describe('PauseModel: choices', () => {
  it('the first choice follows the priors and the sizes: serial for a small collection', () => {
    const m = new PauseModel(8);
    const c = m.choose(young({ markWords: 100, copyWords: 100 }), ALL);
    expect(c.engine).toBe('serial');
    expect(c.reason).toBe('fastest');
  });

  it("the first choice prices a GPU's upload of what its mirror lacks", () => {
    const m = new PauseModel(2);
    // 64 Mi words to mark and little to copy: a hardware GPU's prior wins ...
    const big = { markWords: 1 << 26, copyWords: 1 << 10 };
    const mirrored = young({ ...big, uploadWords: { 'gpu-dfs': 1 << 10, 'gpu-bfs': 1 << 10 } });
    expect(m.choose(mirrored, ALL).engine).toBe('gpu-dfs');
    // ... but not when its mirror must first take a 256 Mi-word heap: then the one that has it.
    const cold = young({ ...big, uploadWords: { 'gpu-dfs': 1 << 28, 'gpu-bfs': 1 << 10 } });
    expect(m.choose(cold, ALL).engine).toBe('gpu-bfs');
    const both = young({ ...big, uploadWords: { 'gpu-dfs': 1 << 28, 'gpu-bfs': 1 << 28 } });
    expect(m.choose(both, ALL).engine).not.toMatch(/^gpu/);
  });

  it('the first choice weighs uncertainty: of two equal priors the surer one', () => {
    const m = new PauseModel(8);
    const f = whereParallelIs(1);
    const c = m.choose(f, CPU);
    const [serial, parallel] = c.predictions;
    expect(Math.abs(parallel!.pauseMs / serial!.pauseMs - 1)).toBeLessThan(0.01);
    // Serial's priors are its own measurements; parallel's hang on cores and load.
    expect(c.engine).toBe('serial');
  });

  it('a short program never explores beyond the best prior', () => {
    // Parallel's prior 10% above serial's: the rule of a fixed margin tried it.
    const f = whereParallelIs(1.1);
    const m = new PauseModel(8);
    const serial = m.predict('serial', f).steadyMs;
    // Whatever parallel would really cost (here a quarter of serial), a run of
    // 8 collections cannot win back a try.
    const chosen = simulate(m, f, CPU, { serial, parallel: serial / 4 }, 8);
    expect(chosen).toEqual(Array(8).fill('serial'));
  });

  it('a long program with a clearly better untried engine explores it and then keeps it', () => {
    const f = whereParallelIs(1.1);
    const m = new PauseModel(8);
    const serial = m.predict('serial', f).steadyMs;
    const chosen = simulate(m, f, CPU, { serial, parallel: serial / 4 }, 200);
    const tried = chosen.indexOf('parallel');
    // Not at once: only when the collections seen so far promise enough left.
    expect(tried).toBeGreaterThanOrEqual(8);
    expect(tried).toBeLessThan(60);
    expect(chosen.slice(tried).every((e) => e === 'parallel')).toBe(true);
    // The same long program where parallel is really a little dearer: tried, then
    // dropped, and checked again at most once in REFRESH_AFTER collections.
    const m2 = new PauseModel(8);
    const chosen2 = simulate(m2, f, CPU, { serial, parallel: serial * 1.1 }, 200);
    const tries = chosen2.filter((e) => e === 'parallel').length;
    expect(tries).toBeGreaterThan(0);
    expect(tries).toBeLessThanOrEqual(Math.ceil(200 / REFRESH_AFTER));
    for (let i = 1; i < chosen2.length; i++) if (chosen2[i] === 'parallel') expect(chosen2[i - 1]).toBe('serial');
  });

  it("an engine never measured follows the other CPU engine's measurement, scaled by their defaults", () => {
    const f = young({ rootWork: 0, copyWords: 0, uploadWords: {} });
    const m = new PauseModel(16);
    const priorRatio = m.predict('serial', f).steadyMs / m.predict('parallel', f).steadyMs;
    expect(priorRatio).toBeGreaterThan(2);
    // Parallel measured at 40x its default (a heap far dearer than the defaults think):
    // serial, never run, is now expected dear by the same measure, and is not tried.
    const real = 40 * m.predict('parallel', f).steadyMs;
    warm(m, 'parallel', f, real);
    const serial = m.predict('serial', f).steadyMs;
    expect(serial / m.predict('parallel', f).steadyMs).toBeGreaterThan(2);
    expect(serial).toBeGreaterThan(10 * new PauseModel(16).predict('serial', f).steadyMs);
    const chosen = simulate(m, f, CPU, { serial: serial, parallel: real }, 24);
    expect(chosen.every((e) => e === 'parallel')).toBe(true);
  });

  it('below the solo threshold the parallel engine, never measured, is priced as serial: no threads to wake', () => {
    const f = young({ rootWork: 0, copyWords: 0, uploadWords: {} });
    const solo = { ...f, solo: true };
    const m = new PauseModel(16);
    // Its threaded prior counts waking threads, a fixed cost a small collection does not pay alone.
    expect(m.predict('parallel', f).steadyMs).not.toBeCloseTo(m.predict('serial', f).steadyMs, 3);
    expect(m.predict('parallel', solo).steadyMs).toBeCloseTo(m.predict('serial', solo).steadyMs, 9);
    // Serial measured: the unmeasured parallel engine follows its mark and copy at the same
    // cost, not scaled by the threaded defaults (its roots term, no counterpart, keeps its prior).
    warm(m, 'serial', solo, 0.3);
    const ratio = m.predict('parallel', solo).steadyMs / m.predict('serial', solo).steadyMs;
    expect(ratio).toBeGreaterThan(0.9);
    expect(ratio).toBeLessThan(1.1);
    expect(m.predict('parallel', f).steadyMs / m.predict('serial', f).steadyMs).toBeLessThan(0.5);
    // Once measured, its own samples price it.
    warm(m, 'parallel', solo, 0.1);
    expect(m.predict('parallel', solo).steadyMs).toBeLessThan(0.5 * m.predict('serial', solo).steadyMs);
  });

  it('learns that an engine is cheaper and switches to it, and back when it gets dear', () => {
    const m = new PauseModel(8);
    const f = young();
    // Both measured: parallel is the cheaper one here.
    warm(m, 'serial', f, 10);
    warm(m, 'parallel', f, 2);
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

  it('a software GPU adapter is never chosen without evidence', () => {
    const m = new PauseModel(2, 'software');
    // A collection so large that a hardware GPU's priors would win it.
    const huge = young({ markWords: 1 << 26, copyWords: 1 << 14, uploadWords: { 'gpu-dfs': 1 << 10, 'gpu-bfs': 1 << 10 } });
    expect(new PauseModel(2).choose(huge, ['serial', 'gpu-dfs', 'gpu-bfs']).engine).not.toBe('serial');
    expect(m.choose(huge, ['serial', 'gpu-dfs', 'gpu-bfs']).engine).toBe('serial');
    // Nor tried in a long run of them.
    const chosen = simulate(m, huge, ['serial', 'gpu-dfs', 'gpu-bfs'], { serial: m.predict('serial', huge).steadyMs, 'gpu-dfs': 1, 'gpu-bfs': 1 }, 300);
    expect(chosen.every((e) => e === 'serial')).toBe(true);
    // The same after the probe turns a model's hardware priors into software ones.
    const probed = new PauseModel(2);
    probed.setAdapter('software');
    expect(probed.choose(huge, ['serial', 'gpu-dfs', 'gpu-bfs']).engine).toBe('serial');
  });

  it('a pause goal picks the engine that meets it at least CPU time, else the fastest', () => {
    const m = new PauseModel(8);
    const f = young();
    warm(m, 'serial', f, 8); // CPU 8 ms
    warm(m, 'parallel', f, 3); // CPU 24 ms
    expect(m.choose(f, CPU).engine).toBe('parallel');
    expect(m.choose(f, CPU, { pauseGoalMs: 10 })).toMatchObject({ engine: 'serial', reason: 'goal' });
    expect(m.choose(f, CPU, { pauseGoalMs: 5 })).toMatchObject({ engine: 'parallel', reason: 'goal' });
    expect(m.choose(f, CPU, { pauseGoalMs: 1 })).toMatchObject({ engine: 'parallel', reason: 'fastest' });
  });

  it('an engine left unrun for a while is tried again when it is close and the run is long', () => {
    const m = new PauseModel(8);
    const f = young();
    warm(m, 'serial', f, 10);
    warm(m, 'parallel', f, 9);
    let tried = -1;
    for (let i = 0; i < REFRESH_AFTER + 3 && tried < 0; i++) {
      const c = m.choose(f, CPU);
      if (c.engine === 'serial') tried = i;
      m.observe(ran(c.engine, f, c.engine === 'parallel' ? 9 : 10));
    }
    // Right after REFRESH_AFTER collections of parallel (its 4 warm ones and `tried`).
    expect(tried + 4).toBe(REFRESH_AFTER);
  });

  it('young and full collections are learned apart', () => {
    const m = new PauseModel(8);
    const y = young();
    const full: Features = { ...y, kind: 'full', sweepWords: 1 << 22 };
    warm(m, 'serial', y, 10);
    warm(m, 'parallel', y, 2);
    expect(m.samples('parallel', 'young')).toBe(4);
    expect(m.samples('parallel', 'full')).toBe(0);
    expect(m.choose(y, CPU).engine).toBe('parallel');
    warm(m, 'serial', full, 5);
    warm(m, 'parallel', full, 40);
    expect(m.choose(full, CPU).engine).toBe('serial');
    expect(m.choose(y, CPU).engine).toBe('parallel');
  });

  it('is deterministic: the same observations give the same choices', () => {
    const run = (): string[] => {
      const m = new PauseModel(8);
      const out: string[] = [];
      for (let i = 0; i < 80; i++) {
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
    // Warm: the predictions made with WARM_SAMPLES samples or more.
    expect(WARM_SAMPLES).toBe(2);
    expect(e.warm.count).toBe(3);
    expect(e.warm.median).toBeCloseTo(0.2, 9);
  });
});
