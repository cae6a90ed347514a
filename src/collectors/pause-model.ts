/**
 * `auto`'s pause model: for each engine it may choose, a prediction of the next
 * collection's pause as a sum of per-phase terms, each a line (fixed + per unit)
 * learned from the phases every collection already records (heap/telemetry.ts
 * GcRecord), in the spirit of HotSpot G1's G1Analytics. Pure: no clock, no I/O,
 * no randomness, so a run's choices follow from its measurements alone.
 *
 * Terms (docs/decisions/i25-01-auto-pause-model.md gives the defaults):
 *   roots    per root reference                shared: the CPU gathers roots for every engine
 *   mark     per word marked, per engine+kind   a GPU engine's excludes its upload
 *   upload   per word uploaded, per GPU engine  what its mirror lacks
 *   copy     per word copied, per copier+kind   parallel copies with its threads; the
 *                                              others evacuate on the CPU
 *   sweep    per tenured word swept            full collections, shared
 *   other    per collection, per kind          graph upkeep and the untimed rest
 */

import { DecayingFit, type Line } from './decaying-fit.js';

export const ENGINES = ['serial', 'parallel', 'gpu-dfs', 'gpu-bfs'] as const;
export type Engine = (typeof ENGINES)[number];
export type Kind = 'young' | 'full';
/** The GPU adapter, as far as the model knows: not yet probed counts as hardware. */
export type AdapterKind = 'hardware' | 'software';

export function isGpu(e: Engine): e is 'gpu-dfs' | 'gpu-bfs' {
  return e === 'gpu-dfs' || e === 'gpu-bfs';
}

/** What is known of a collection's work before it runs (the sizes of the terms). */
export interface Features {
  readonly kind: Kind;
  /** Root references (a young collection's include the remembered set's referents). */
  readonly rootWork: number;
  /** Words the trace visits: the live words of the traced range. */
  readonly markWords: number;
  /** Words evacuated (survivors and promotions). */
  readonly copyWords: number;
  /** Full collections: tenured words the sweep walks. */
  readonly sweepWords: number;
  /** Words each GPU engine's mirror would take before it marks. */
  readonly uploadWords: Readonly<Partial<Record<Engine, number>>>;
}

/** A collection's measured phases (milliseconds) with the sizes they worked on. */
export interface Observation extends Features {
  readonly engine: Engine;
  readonly rootsMs: number;
  /** The mark phase less the upload. */
  readonly markMs: number;
  readonly uploadMs: number;
  readonly copyMs: number;
  readonly sweepMs: number;
  /** The pause less the phases above. */
  readonly otherMs: number;
}

/** Default lines, in milliseconds and milliseconds per unit. */
export interface Priors {
  roots: Line;
  sweep: Line;
  other: Line;
  mark: Record<Engine, Line>;
  copy: { cpu: Line; parallel: Line };
  upload: Line;
}

/** Threads past which the parallel collector stops gaining, and its efficiency
 *  up to there (docs/decisions/i25-01). */
const PARALLEL_USEFUL_THREADS = 8;
const PARALLEL_EFFICIENCY = 0.5;

/** Serial's defaults on a current x86 core running V8; parallel's divide the
 *  per-word costs among its useful threads at its efficiency and add waking them. */
function cpuPriors(threads: number): Pick<Priors, 'roots' | 'sweep' | 'other' | 'copy'> & { serial: Line; parallel: Line } {
  const share = 1 / Math.max(1, PARALLEL_EFFICIENCY * Math.min(PARALLEL_USEFUL_THREADS, Math.max(1, threads)));
  return {
    roots: { fixed: 0.02, perUnit: 2e-4 },
    sweep: { fixed: 0.02, perUnit: 5e-7 },
    other: { fixed: 0.02, perUnit: 0 },
    serial: { fixed: 0.01, perUnit: 2e-6 },
    parallel: { fixed: 0.2, perUnit: 2e-6 * share },
    copy: { cpu: { fixed: 0.01, perUnit: 6e-6 }, parallel: { fixed: 0.2, perUnit: 6e-6 * share } },
  };
}

/** GPU defaults by adapter: a software adapter (lavapipe, SwiftShader) starts so
 *  dear that it is never chosen without evidence, which it then never gets. */
function gpuPriors(adapter: AdapterKind): { dfs: Line; bfs: Line; upload: Line } {
  if (adapter === 'software') {
    return { dfs: { fixed: 1000, perUnit: 1e-4 }, bfs: { fixed: 1000, perUnit: 1e-4 }, upload: { fixed: 10, perUnit: 1e-5 } };
  }
  return { dfs: { fixed: 1, perUnit: 3e-7 }, bfs: { fixed: 1.5, perUnit: 3e-7 }, upload: { fixed: 0.1, perUnit: 8e-7 } };
}

export function defaultPriors(threads: number, adapter: AdapterKind): Priors {
  const c = cpuPriors(threads);
  const g = gpuPriors(adapter);
  return {
    roots: c.roots, sweep: c.sweep, other: c.other, copy: c.copy, upload: g.upload,
    mark: { serial: c.serial, parallel: c.parallel, 'gpu-dfs': g.dfs, 'gpu-bfs': g.bfs },
  };
}

/** Typical sizes of the terms, where the prior's second point sits (DecayingFit). */
const SCALE = { roots: 1 << 12, words: 1 << 20, other: 1 };

/** An engine with no samples for this kind is tried when its prediction is at
 *  most this much above the best sampled engine's. */
export const EXPLORE_MARGIN = 1.25;
/** An engine not run for this many collections is tried again when its
 *  prediction is within EXPLORE_MARGIN: its samples may be stale (a JIT warm-up,
 *  a heap that changed shape). */
export const REFRESH_AFTER = 24;
/** Tries wait until the best measured engine has this many samples: its first
 *  one is often a JIT warm-up, next to which every prior looks competitive. */
export const EXPLORE_AFTER = 2;

export interface ChoiceOptions {
  /** `--pause-goal`: prefer the engine that meets it at least CPU time. */
  readonly pauseGoalMs?: number;
}

export interface Prediction {
  readonly engine: Engine;
  readonly pauseMs: number;
  /** CPU time: the pause times the threads it keeps busy (GPU engines: their host time). */
  readonly cpuMs: number;
  /** Samples of its mark term for this kind. */
  readonly samples: number;
}

export interface Choice {
  readonly engine: Engine;
  readonly predictedMs: number;
  /** Why: the fastest, the cheapest meeting the goal, or a try of an engine with no (or stale) samples. */
  readonly reason: 'fastest' | 'goal' | 'explore';
  readonly predictions: readonly Prediction[];
}

export interface ErrorSummary {
  readonly count: number;
  readonly median: number;
  readonly worst: number;
}

function summarize(errors: readonly number[]): ErrorSummary {
  const e = [...errors].sort((a, b) => a - b);
  if (e.length === 0) return { count: 0, median: 0, worst: 0 };
  const mid = e.length >> 1;
  const median = e.length % 2 === 1 ? e[mid]! : (e[mid - 1]! + e[mid]!) / 2;
  return { count: e.length, median, worst: e[e.length - 1]! };
}

export class PauseModel {
  private readonly fits = new Map<string, DecayingFit>();
  private priors: Priors;
  /** Collections observed, and the one each engine last ran in. */
  private observed = 0;
  private readonly lastRun = new Map<Engine, number>();
  /** |actual - predicted| / actual of each prediction checked against its
   *  collection, and of those made with EXPLORE_AFTER samples or more (warm). */
  private readonly errors: number[] = [];
  private readonly warmErrors: number[] = [];

  constructor(readonly threads: number, private adapter: AdapterKind = 'hardware') {
    this.priors = defaultPriors(threads, adapter);
  }

  get adapterKind(): AdapterKind {
    return this.adapter;
  }

  /** The probe found the adapter: its priors replace the hardware ones. */
  setAdapter(adapter: AdapterKind): void {
    this.adapter = adapter;
    this.priors = defaultPriors(this.threads, adapter);
    for (const [key, fit] of this.fits) fit.setPrior(this.priorOf(key));
  }

  private priorOf(key: string): Line {
    const [term, a] = key.split(':') as [string, string];
    const p = this.priors;
    switch (term) {
      case 'mark':
        return p.mark[a as Engine];
      case 'copy':
        return p.copy[a as 'cpu' | 'parallel'];
      case 'upload':
        return p.upload;
      case 'roots':
        return p.roots;
      case 'sweep':
        return p.sweep;
      default:
        return p.other;
    }
  }

  private fit(key: string): DecayingFit {
    let f = this.fits.get(key);
    if (!f) {
      const term = key.split(':')[0];
      const scale = term === 'roots' ? SCALE.roots : term === 'other' ? SCALE.other : SCALE.words;
      f = new DecayingFit(this.priorOf(key), scale);
      this.fits.set(key, f);
    }
    return f;
  }

  private keys(engine: Engine, kind: Kind) {
    return {
      roots: `roots:${kind}`,
      mark: `mark:${engine}:${kind}`,
      copy: `copy:${engine === 'parallel' ? 'parallel' : 'cpu'}:${kind}`,
      upload: isGpu(engine) ? `upload:${engine}` : null,
      sweep: kind === 'full' ? 'sweep' : null,
      other: `other:${kind}`,
    };
  }

  /** Samples of `engine`'s mark term for `kind`: how much the model has seen it. */
  samples(engine: Engine, kind: Kind): number {
    return this.fits.get(`mark:${engine}:${kind}`)?.samples ?? 0;
  }

  predict(engine: Engine, f: Features): Prediction {
    const k = this.keys(engine, f.kind);
    let ms = this.fit(k.roots).predict(f.rootWork) + this.fit(k.mark).predict(f.markWords);
    ms += this.fit(k.copy).predict(f.copyWords) + this.fit(k.other).predict(0);
    if (k.sweep) ms += this.fit(k.sweep).predict(f.sweepWords);
    if (k.upload) ms += this.fit(k.upload).predict(f.uploadWords[engine] ?? 0);
    const cpu = engine === 'parallel' ? ms * this.threads : ms;
    return { engine, pauseMs: ms, cpuMs: cpu, samples: this.samples(engine, f.kind) };
  }

  /** Learns from one collection's phases. */
  observe(o: Observation): void {
    const k = this.keys(o.engine, o.kind);
    this.fit(k.roots).add(o.rootWork, o.rootsMs);
    this.fit(k.mark).add(o.markWords, o.markMs);
    this.fit(k.copy).add(o.copyWords, o.copyMs);
    this.fit(k.other).add(0, o.otherMs);
    if (k.sweep) this.fit(k.sweep).add(o.sweepWords, o.sweepMs);
    if (k.upload) this.fit(k.upload).add(o.uploadWords[o.engine] ?? 0, o.uploadMs);
    this.lastRun.set(o.engine, this.observed);
    this.observed++;
  }

  /** Records how far a prediction, made with `samples` samples of its engine's
   *  mark term, was from the pause it predicted. */
  checkPrediction(predictedMs: number, actualMs: number, samples: number): void {
    if (!(actualMs > 0) || !Number.isFinite(predictedMs)) return;
    const e = Math.abs(actualMs - predictedMs) / actualMs;
    this.errors.push(e);
    if (samples >= EXPLORE_AFTER) this.warmErrors.push(e);
  }

  /** Median and worst relative error of the checked predictions (0.1 = 10%):
   *  all of them, and (warm) those made with EXPLORE_AFTER samples or more. */
  error(): ErrorSummary & { warm: ErrorSummary } {
    return { ...summarize(this.errors), warm: summarize(this.warmErrors) };
  }

  /**
   * The engine for a collection of features `f` among `candidates` (in order of
   * preference on ties). Without a goal: the fastest predicted. With a goal: the
   * least CPU time among those predicted to meet it, else the fastest. Before
   * either, an engine with no samples for this kind, or none for REFRESH_AFTER
   * collections, is tried when its prediction is within EXPLORE_MARGIN of the
   * best sampled one (the lowest such first), so a prior that flatters or
   * wrongs an engine is corrected by one measurement, not kept.
   */
  choose(f: Features, candidates: readonly Engine[], options: ChoiceOptions = {}): Choice {
    if (candidates.length === 0) throw new Error('pause model: no engine to choose from');
    const predictions = candidates.map((e) => this.predict(e, f));
    const fastest = (list: Prediction[]): Prediction => list.reduce((a, b) => (b.pauseMs < a.pauseMs ? b : a));
    const sampled = predictions.filter((p) => p.samples > 0);
    const bestSampled = sampled.length > 0 ? fastest(sampled) : null;
    if (bestSampled !== null && bestSampled.samples >= EXPLORE_AFTER) {
      const best = bestSampled.pauseMs;
      const stale = (p: Prediction): boolean =>
        p.samples === 0 || this.observed - (this.lastRun.get(p.engine) ?? -Infinity) > REFRESH_AFTER;
      const tries = predictions.filter((p) => stale(p) && p.pauseMs <= best * EXPLORE_MARGIN);
      if (tries.length > 0) {
        const t = fastest(tries);
        return { engine: t.engine, predictedMs: t.pauseMs, reason: 'explore', predictions };
      }
    }
    const goal = options.pauseGoalMs;
    if (goal !== undefined) {
      const meeting = predictions.filter((p) => p.pauseMs <= goal);
      if (meeting.length > 0) {
        const c = meeting.reduce((a, b) => (b.cpuMs < a.cpuMs ? b : a));
        return { engine: c.engine, predictedMs: c.pauseMs, reason: 'goal', predictions };
      }
    }
    const c = fastest(predictions);
    return { engine: c.engine, predictedMs: c.pauseMs, reason: 'fastest', predictions };
  }
}
