/**
 * `auto`'s pause model: for each engine it may choose, a prediction of the next
 * collection's pause as a sum of per-phase terms, each a line (fixed + per unit)
 * learned from the phases every collection already records (heap/telemetry.ts
 * GcRecord), in the spirit of HotSpot G1's G1Analytics. Pure: no clock, no I/O,
 * no randomness, so a run's choices follow from its measurements alone.
 *
 * Terms (docs/decisions/i25-01-auto-pause-model.md gives the defaults):
 *   roots    per root reference                the CPU's, shared by serial and the GPU engines;
 *                                              parallel's own (its threads scan the
 *                                              remembered set in their copy)
 *   mark     per word marked, per engine+kind   a GPU engine's excludes its upload
 *   upload   per word uploaded, per GPU engine  what its mirror lacks
 *   copy     per word copied, per copier+kind   parallel copies with its threads, a GPU
 *                                              engine's young ones on its device (sable),
 *                                              the others on the CPU
 *   sweep    per tenured word swept            full collections: parallel sweeps with its
 *                                              threads, the others on the CPU's main thread
 *   other    per collection, per kind          graph upkeep and the untimed rest
 *
 * A term's first run is cold (the JIT): its first sample is divided by a learned
 * warm-up factor, and a term never measured is predicted with it. A CPU engine's
 * term never measured follows the other CPU engine's measurement of it, scaled
 * by their defaults (`termCost`). An engine not yet measured is tried only when
 * the try is expected to pay for itself over the collections expected to remain
 * (explore-value.ts; docs/decisions/s28a-01).
 */

import { DecayingFit, type Line } from './decaying-fit.js';
import { lognormalMean, remainingCollections, tryValue } from './explore-value.js';

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
  /** Below `--gc-solo-below`: the parallel engine would run on the main thread alone. */
  readonly solo?: boolean;
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
  roots: { cpu: Line; parallel: Line };
  sweep: { cpu: Line; parallel: Line };
  other: Line;
  mark: Record<Engine, Line>;
  copy: { cpu: Line; parallel: Line; gpu: Line };
  upload: Line;
  /** Parallel's young terms, where they differ from its full ones. */
  parallelYoung: { mark: Line; copy: Line };
}

/** Threads past which the parallel collector stops gaining, and its efficiency
 *  up to there (docs/decisions/s48-01-auto-parallel-priors.md). */
const PARALLEL_USEFUL_THREADS = 16;
const PARALLEL_EFFICIENCY = 0.5;
/** The parallel young collection on one thread against serial's mark and copy of
 *  the same survivors: it traces and copies in one pass (docs/decisions/s48-01). */
const PARALLEL_YOUNG_ONE_THREAD = 0.55;

/** Serial's defaults on a current x86 core running V8; parallel's divide the
 *  per-word costs among its useful threads at its efficiency and add waking them,
 *  and a young collection's by its one-pass advantage as well. (Its young
 *  collection has no mark phase of its own, its copy traces: the split between
 *  the two terms is learned from its first collection.) */
function cpuPriors(threads: number): Pick<Priors, 'roots' | 'sweep' | 'other'> & { copy: Omit<Priors['copy'], 'gpu'>; serial: Line; parallel: Line; parallelYoung: { mark: Line; copy: Line } } {
  const share = 1 / Math.max(1, PARALLEL_EFFICIENCY * Math.min(PARALLEL_USEFUL_THREADS, Math.max(1, threads)));
  const mark = 2e-6;
  const copy = 6e-6;
  const young = share * PARALLEL_YOUNG_ONE_THREAD;
  return {
    roots: { cpu: { fixed: 0.02, perUnit: 2e-4 }, parallel: { fixed: 0.02, perUnit: 0 } },
    sweep: { cpu: { fixed: 0.02, perUnit: 5e-7 }, parallel: { fixed: 0.2, perUnit: 5e-7 * share } },
    other: { fixed: 0.02, perUnit: 0 },
    serial: { fixed: 0.01, perUnit: mark },
    parallel: { fixed: 0.2, perUnit: mark * share },
    copy: { cpu: { fixed: 0.01, perUnit: copy }, parallel: { fixed: 0.2, perUnit: copy * share } },
    parallelYoung: { mark: { fixed: 0.2, perUnit: mark * young }, copy: { fixed: 0.2, perUnit: copy * young } },
  };
}

/** GPU defaults by adapter: a software adapter (lavapipe, SwiftShader) starts so
 *  dear that it is never chosen without evidence, which it then never gets. */
function gpuPriors(adapter: AdapterKind): { dfs: Line; bfs: Line; upload: Line; copy: Line } {
  if (adapter === 'software') {
    return { dfs: { fixed: 1000, perUnit: 1e-4 }, bfs: { fixed: 1000, perUnit: 1e-4 }, upload: { fixed: 10, perUnit: 1e-5 }, copy: { fixed: 100, perUnit: 1e-4 } };
  }
  // Fixed costs as measured for a small heap's collections (docs/decisions/s43-02).
  return { dfs: { fixed: 2.2, perUnit: 3e-7 }, bfs: { fixed: 2.6, perUnit: 3e-7 }, upload: { fixed: 0.5, perUnit: 8e-7 }, copy: { fixed: 2.5, perUnit: 2e-6 } };
}

export function defaultPriors(threads: number, adapter: AdapterKind): Priors {
  const c = cpuPriors(threads);
  const g = gpuPriors(adapter);
  return {
    roots: c.roots, sweep: c.sweep, other: c.other, copy: { ...c.copy, gpu: g.copy }, upload: g.upload,
    mark: { serial: c.serial, parallel: c.parallel, 'gpu-dfs': g.dfs, 'gpu-bfs': g.bfs }, parallelYoung: c.parallelYoung,
  };
}

/** Typical sizes of the terms, where the prior's second point sits (DecayingFit). */
const SCALE = { roots: 1 << 12, words: 1 << 20, other: 1 };

/** Predictions made with this many samples of the engine's mark term or more
 *  are "warm" (`--stats`): its first collection is often a JIT warm-up. */
export const WARM_SAMPLES = 2;
/** Samples of an engine's mark term grow stale after this many collections of
 *  other engines (a JIT warm-up, a heap that changed shape): it is then as
 *  uncertain as STALE_SIGMA says, and tried again when that pays. */
export const REFRESH_AFTER = 24;

/** Uncertainty of a prediction no sample of the engine has checked: the
 *  standard deviation of ln(actual / predicted). Serial's priors are its own
 *  measurements on another machine; parallel's hang on the cores and the load as
 *  well; a GPU's on the adapter, the driver and the bus (docs/decisions/s28a-01). */
export const PRIOR_SIGMA: Record<Engine, number> = { serial: 0.7, parallel: 1.0, 'gpu-dfs': 1.2, 'gpu-bfs': 1.2 };
/** Uncertainty of an engine whose samples are stale (REFRESH_AFTER). */
export const STALE_SIGMA = 0.5;
/** An engine's first collection runs its code cold (V8 compiles it as it runs):
 *  until a run has measured its own (PauseModel.warmup), a term's first run is
 *  expected to cost this many times its steady cost (docs/decisions/s28a-01). */
export const WARMUP_PRIOR = 3;
/** The learned warm-up factor is kept within these bounds. */
const WARMUP_BOUNDS = [1, 30] as const;

export interface ChoiceOptions {
  /** `--pause-goal`: prefer the engine that meets it at least CPU time. */
  readonly pauseGoalMs?: number;
  /** Collections of this kind expected after this one; by default the doubling
   *  estimate from those observed (explore-value.ts remainingCollections). */
  readonly remaining?: number;
  /** The same collection's choice asked again with its sizes better known
   *  (auto's survival probe). This model's choice is pure and ignores it; a
   *  model that counts its choices (a test's rotation) counts this one no more. */
  readonly again?: boolean;
}

export interface Prediction {
  readonly engine: Engine;
  /** This collection's pause as the choice weighs it: the terms never measured count their warm-up. */
  readonly pauseMs: number;
  /** This collection's pause as auto reports and checks it: the terms measured
   *  by their samples as taken, a first run's coldness included (`PauseModel.raw`). */
  readonly expectedMs: number;
  /** The pause once every term is warm. */
  readonly steadyMs: number;
  /** CPU time: the pause times the threads it keeps busy (GPU engines: their host time). */
  readonly cpuMs: number;
  /** Samples of its mark term for this kind. */
  readonly samples: number;
}

export interface Choice {
  readonly engine: Engine;
  readonly predictedMs: number;
  /** Why: the fastest, the cheapest meeting the goal, a try of an engine
   *  with no (or stale) samples that is expected to pay for itself, or serial
   *  for a collection too small for any other engine to pay (`serialChoice`). */
  readonly reason: 'fastest' | 'goal' | 'explore' | 'small';
  /** Collections of this kind expected after this one (the exploration's horizon). */
  readonly remaining: number;
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

/** The key of the same term on the other CPU engine (serial's mark, copy and
 *  sweep against parallel's), or null for a term no other engine shares. */
function counterpartOf(key: string): string | null {
  const [term, a, kind] = key.split(':');
  if (term === 'mark' && (a === 'serial' || a === 'parallel')) return `mark:${a === 'serial' ? 'parallel' : 'serial'}:${kind}`;
  if ((term === 'copy' || term === 'sweep') && (a === 'cpu' || a === 'parallel')) {
    const other = a === 'cpu' ? 'parallel' : 'cpu';
    return kind === undefined ? `${term}:${other}` : `${term}:${other}:${kind}`;
  }
  return null;
}

/** An engine's terms for a kind of collection, in the order of SLOT. */
function termKeys(engine: Engine, kind: Kind): readonly (string | null)[] {
  return [
    engine === 'parallel' ? `roots:parallel:${kind}` : `roots:cpu:${kind}`,
    `mark:${engine}:${kind}`,
    `copy:${engine === 'parallel' ? 'parallel' : isGpu(engine) && kind === 'young' ? 'gpu' : 'cpu'}:${kind}`,
    `other:${kind}`,
    kind === 'full' ? `sweep:${engine === 'parallel' ? 'parallel' : 'cpu'}` : null,
    isGpu(engine) ? `upload:${engine}` : null,
  ];
}

/** The feature each of an engine's terms is a line of. */
const SLOT = { roots: 0, mark: 1, copy: 2, other: 3, sweep: 4, upload: 5 } as const;
const SLOTS = 6;
const KINDS: readonly Kind[] = ['young', 'full'];

/**
 * The terms as numbers, fixed once: a choice runs between two collections with
 * its code and data gone cold, so it reads typed arrays indexed by term rather
 * than maps keyed by strings. TERM_KEYS names each term (its prior and scale
 * follow from the name); TERMS_OF[(engine · 2 + kind) · SLOTS + slot] is the
 * term of that slot, or -1; COUNTERPART_OF[term] the other CPU engine's, or -1.
 */
const TERM_KEYS: string[] = [];
const TERMS_OF = new Int8Array(ENGINES.length * KINDS.length * SLOTS).fill(-1);
for (let e = 0; e < ENGINES.length; e++) {
  for (let k = 0; k < KINDS.length; k++) {
    termKeys(ENGINES[e]!, KINDS[k]!).forEach((key, slot) => {
      if (key === null) return;
      if (!TERM_KEYS.includes(key)) TERM_KEYS.push(key);
      TERMS_OF[(e * KINDS.length + k) * SLOTS + slot] = TERM_KEYS.indexOf(key);
    });
  }
}
const TERM_COUNT = TERM_KEYS.length;
const COUNTERPART_OF = Int8Array.from(TERM_KEYS, (key) => {
  const other = counterpartOf(key);
  return other === null ? -1 : TERM_KEYS.indexOf(other);
});

/** Whether term t is one of the parallel engine's own (its mark, copy or sweep). */
const PARALLEL_TERM = Uint8Array.from(TERM_KEYS, (key) => (/^(mark|copy|sweep):parallel\b/.test(key) ? 1 : 0));

/** Each engine's position in ENGINES. */
const ENGINE_INDEX = Object.fromEntries(ENGINES.map((e, i) => [e, i])) as Record<Engine, number>;

function termsOf(engine: Engine, kind: Kind): number {
  return (ENGINE_INDEX[engine] * KINDS.length + (kind === 'young' ? 0 : 1)) * SLOTS;
}

/** The size a slot's line is of, in `f` for `engine`. */
function slotSize(slot: number, engine: Engine, f: Features): number {
  switch (slot) {
    case SLOT.roots:
      return f.rootWork;
    case SLOT.mark:
      return f.markWords;
    case SLOT.copy:
      return f.copyWords;
    case SLOT.sweep:
      return f.sweepWords;
    case SLOT.upload:
      return f.uploadWords[engine] ?? 0;
    default:
      return 0;
  }
}

export class PauseModel {
  /** Each term's fit, indexed as TERM_KEYS: of its steady cost (a first sample
   *  enters divided by the warm-up), which the choices compare. */
  private readonly fits: DecayingFit[];
  /** The same terms fitted to their samples as taken: the pause predicted for
   *  the next collection. An engine's second collection still runs partly cold,
   *  nearer its first than its steady cost
   *  (docs/decisions/s59-01-auto-predicts-from-samples-as-taken.md). */
  private readonly raw: DecayingFit[];
  private priors: Priors;
  /** What a choice reads, refreshed whenever a fit or prior changes: each term's
   *  fitted line and prior line (fixed, per unit), its samples, and the warm-up
   *  factor (`warmup`). */
  private readonly lines = new Float64Array(2 * TERM_COUNT);
  /** The raw fits' lines, as `lines` (Prediction.expectedMs reads them). */
  private readonly rawLines = new Float64Array(2 * TERM_COUNT);
  private readonly priorLines = new Float64Array(2 * TERM_COUNT);
  private readonly termSamples = new Float64Array(TERM_COUNT);
  private warm = WARMUP_PRIOR;
  /** Collections observed, of each kind, and the one each engine last ran in. */
  private observed = 0;
  private readonly observedOf: Record<Kind, number> = { young: 0, full: 0 };
  private readonly lastRun = new Float64Array(ENGINES.length).fill(-Infinity);
  /** |actual - predicted| / actual of each prediction checked against its
   *  collection, and of those made with WARM_SAMPLES samples or more (warm). */
  private readonly errors: number[] = [];
  private readonly warmErrors: number[] = [];

  /** `cores`: the cores the threads share; parallel's priors count no more
   *  threads than cores, since more only take turns (`--threads 4` on 2 cores). */
  constructor(readonly threads: number, private adapter: AdapterKind = 'hardware', private readonly cores = threads) {
    this.priors = defaultPriors(Math.min(threads, cores), adapter);
    const fit = (key: string): DecayingFit => {
      const term = key.split(':')[0];
      return new DecayingFit(this.priorFromKey(key), term === 'roots' ? SCALE.roots : term === 'other' ? SCALE.other : SCALE.words);
    };
    this.fits = TERM_KEYS.map(fit);
    this.raw = TERM_KEYS.map(fit);
    this.takePriors();
  }

  get adapterKind(): AdapterKind {
    return this.adapter;
  }

  /** The probe found the adapter: its priors replace the hardware ones. */
  setAdapter(adapter: AdapterKind): void {
    this.adapter = adapter;
    this.priors = defaultPriors(Math.min(this.threads, this.cores), adapter);
    this.takePriors();
  }

  /** Gives each term its prior under `priors`, and copies them where a choice reads them. */
  private takePriors(): void {
    for (let t = 0; t < TERM_COUNT; t++) {
      const prior = this.priorFromKey(TERM_KEYS[t]!);
      this.fits[t]!.setPrior(prior);
      this.raw[t]!.setPrior(prior);
      this.priorLines[2 * t] = prior.fixed;
      this.priorLines[2 * t + 1] = prior.perUnit;
    }
    this.refresh();
  }

  private priorFromKey(key: string): Line {
    const [term, a, kind] = key.split(':') as [string, string, string | undefined];
    const p = this.priors;
    switch (term) {
      case 'mark':
        return a === 'parallel' && kind === 'young' ? p.parallelYoung.mark : p.mark[a as Engine];
      case 'copy':
        return a === 'parallel' && kind === 'young' ? p.parallelYoung.copy : p.copy[a as keyof Priors['copy']];
      case 'upload':
        return p.upload;
      case 'roots':
        return p.roots[a as keyof Priors['roots']];
      case 'sweep':
        return p.sweep[a as keyof Priors['sweep']];
      default:
        return p.other;
    }
  }

  /** Copies the fits' lines and samples where a choice reads them. */
  private refresh(): void {
    for (let t = 0; t < TERM_COUNT; t++) {
      const fit = this.fits[t]!;
      const line = fit.line();
      this.lines[2 * t] = line.fixed;
      this.lines[2 * t + 1] = line.perUnit;
      const raw = this.raw[t]!.line();
      this.rawLines[2 * t] = raw.fixed;
      this.rawLines[2 * t + 1] = raw.perUnit;
      this.termSamples[t] = fit.samples;
    }
    this.warm = this.measuredWarmup();
  }

  /** Samples of `engine`'s mark term for `kind`: how much the model has seen it. */
  samples(engine: Engine, kind: Kind): number {
    return this.termSamples[TERMS_OF[termsOf(engine, kind) + SLOT.mark]!]!;
  }

  /** Term `t`'s cost at size `x` on `l`: the fitted lines, the prior ones or the raw ones. */
  private lineAt(t: number, x: number, l: Float64Array = this.lines): number {
    return l[2 * t]! + l[2 * t + 1]! * Math.max(0, x);
  }

  /**
   * A term's cost at size `x`. One never measured whose counterpart on the other
   * CPU engine has been (serial's and parallel's mark, copy and sweep run the same
   * algorithm, on one thread or several) is that measurement scaled by the ratio
   * of their defaults: what makes this heap dear for one (its shape, this
   * machine) makes it dear for the other, where the defaults alone know neither.
   * Below the solo threshold (`solo`) the parallel engine's own terms never
   * measured are serial's as they stand, unscaled: alone on the main thread it wakes
   * no threads, the fixed cost its threaded defaults count.
   */
  private termCost(t: number, x: number, solo: boolean): number {
    const other = COUNTERPART_OF[t]!;
    if (this.termSamples[t]! > 0 || other < 0) return this.lineAt(t, x);
    if (solo && PARALLEL_TERM[t] === 1) return this.lineAt(other, x);
    if (this.termSamples[other] === 0) return this.lineAt(t, x);
    const theirs = this.lineAt(other, x, this.priorLines);
    return theirs > 0 ? (this.lineAt(other, x) * this.lineAt(t, x, this.priorLines)) / theirs : this.lineAt(t, x);
  }

  /**
   * How much dearer a term's first run is than its steady cost: over the terms
   * measured WARM_SAMPLES + 1 times or more, their first samples as measured
   * against what their lines now say for the same sizes (weighted by time, so
   * the dear terms decide); WARMUP_PRIOR until a term has that many.
   */
  warmup(): number {
    return this.warm;
  }

  private measuredWarmup(): number {
    let first = 0;
    let steady = 0;
    for (const fit of this.fits) {
      if (fit.first === null || fit.samples <= WARM_SAMPLES) continue;
      first += fit.first.y;
      steady += fit.predict(fit.first.x);
    }
    if (!(steady > 0)) return WARMUP_PRIOR;
    return Math.min(WARMUP_BOUNDS[1], Math.max(WARMUP_BOUNDS[0], first / steady));
  }

  /** The pause of `engine`'s next collection of `f`: its terms' steady lines,
   *  a term never measured counting its warm-up as well. */
  predict(engine: Engine, f: Features, w = this.warmup()): Prediction {
    const base = termsOf(engine, f.kind);
    let ms = 0;
    let steady = 0;
    let expected = 0;
    for (let slot = 0; slot < SLOTS; slot++) {
      const t = TERMS_OF[base + slot]!;
      if (t < 0) continue;
      const x = slotSize(slot, engine, f);
      const y = this.termCost(t, x, f.solo === true);
      steady += y;
      const measured = this.termSamples[t]! > 0;
      ms += measured ? y : y * w;
      expected += measured ? this.lineAt(t, x, this.rawLines) : y * w;
    }
    const cpu = engine === 'parallel' ? ms * this.threads : ms;
    return { engine, pauseMs: ms, expectedMs: expected, steadyMs: steady, cpuMs: cpu, samples: this.termSamples[TERMS_OF[base + SLOT.mark]!]! };
  }

  /** Learns from one collection's phases (for the choices, a term's first sample divided by the warm-up). */
  observe(o: Observation): void {
    const w = this.warmup();
    const base = termsOf(o.engine, o.kind);
    const ms = [o.rootsMs, o.markMs, o.copyMs, o.otherMs, o.sweepMs, o.uploadMs];
    for (let slot = 0; slot < SLOTS; slot++) {
      const t = TERMS_OF[base + slot]!;
      if (t < 0) continue;
      const x = slotSize(slot, o.engine, o);
      this.fits[t]!.add(x, ms[slot]!, w);
      this.raw[t]!.add(x, ms[slot]!);
    }
    this.lastRun[ENGINE_INDEX[o.engine]] = this.observed;
    this.observed++;
    this.observedOf[o.kind]++;
    this.refresh();
  }

  /** Records how far a prediction, made with `samples` samples of its engine's
   *  mark term, was from the pause it predicted. */
  checkPrediction(predictedMs: number, actualMs: number, samples: number): void {
    if (!(actualMs > 0) || !Number.isFinite(predictedMs)) return;
    const e = Math.abs(actualMs - predictedMs) / actualMs;
    this.errors.push(e);
    if (samples >= WARM_SAMPLES) this.warmErrors.push(e);
  }

  /** Median and worst relative error of the checked predictions (0.1 = 10%):
   *  all of them, and (warm) those made with WARM_SAMPLES samples or more. */
  error(): ErrorSummary & { warm: ErrorSummary } {
    return { ...summarize(this.errors), warm: summarize(this.warmErrors) };
  }

  /** Serial for a collection the caller knows no other engine can win, with its prediction. */
  serialChoice(f: Features): Choice {
    const p = this.predict('serial', f);
    return { engine: 'serial', predictedMs: p.expectedMs, reason: 'small', remaining: remainingCollections(this.observedOf[f.kind]), predictions: [p] };
  }

  /**
   * The engine for a collection of features `f` among `candidates` (in order of
   * preference on ties).
   *
   * With no engine measured for this kind yet: the least expected pause by the
   * priors, each engine's prediction (a GPU's upload of what its mirror lacks
   * included) widened by its uncertainty (PRIOR_SIGMA), so a confident prior
   * beats an equal but doubtful one.
   *
   * Afterwards, an engine never measured (or stale, REFRESH_AFTER) is tried only
   * when the try pays for itself (explore-value.ts): the collections expected
   * after this one, times what each would save should the engine prove cheaper
   * than the best measured one, exceeds the try's expected extra cost, its
   * warm-up included. Otherwise, among the measured engines: the fastest, or
   * with a goal the least CPU time among those predicted to meet it.
   */
  choose(f: Features, candidates: readonly Engine[], options: ChoiceOptions = {}): Choice {
    if (candidates.length === 0) throw new Error('pause model: no engine to choose from');
    const predictions: Prediction[] = [];
    for (const e of candidates) predictions.push(this.predict(e, f));
    const remaining = options.remaining ?? remainingCollections(this.observedOf[f.kind]);
    const goal = options.pauseGoalMs;
    const pick = (p: Prediction, reason: Choice['reason']): Choice => ({ engine: p.engine, predictedMs: p.expectedMs, reason, remaining, predictions });
    let best: Prediction | null = null;
    for (const p of predictions) if (p.samples > 0 && (best === null || p.pauseMs < best.pauseMs)) best = p;
    if (best === null) {
      const known = meetingGoal(predictions, goal, false);
      if (known) return pick(known, 'goal');
      let bestPrior = predictions[0]!;
      for (const p of predictions) {
        if (lognormalMean(p.pauseMs, PRIOR_SIGMA[p.engine]) < lognormalMean(bestPrior.pauseMs, PRIOR_SIGMA[bestPrior.engine])) bestPrior = p;
      }
      return pick(bestPrior, 'fastest');
    }
    let bestTry: Prediction | null = null;
    let bestValue = 0;
    for (const p of predictions) {
      const stale = p.samples > 0 && this.observed - this.lastRun[ENGINE_INDEX[p.engine]]! > REFRESH_AFTER;
      if (p === best || (p.samples > 0 && !stale)) continue;
      const value = tryValue({
        bestMs: best.pauseMs,
        medianMs: p.steadyMs,
        sigma: p.samples === 0 ? PRIOR_SIGMA[p.engine] : STALE_SIGMA,
        warmup: p.steadyMs > 0 ? p.pauseMs / p.steadyMs : 1,
        remaining,
      });
      if (value > bestValue) {
        bestTry = p;
        bestValue = value;
      }
    }
    if (bestTry !== null) return pick(bestTry, 'explore');
    const meeting = meetingGoal(predictions, goal, true);
    return meeting ? pick(meeting, 'goal') : pick(best, 'fastest');
  }
}

/** With a goal: the least CPU time among `list` (only the sampled ones if
 *  `sampled`) predicted to meet it, if any. */
function meetingGoal(list: readonly Prediction[], goal: number | undefined, sampled: boolean): Prediction | null {
  if (goal === undefined) return null;
  let best: Prediction | null = null;
  for (const p of list) {
    if (p.pauseMs <= goal && (!sampled || p.samples > 0) && (best === null || p.cpuMs < best.cpuMs)) best = p;
  }
  return best;
}

/**
 * Runs a scratch model's arithmetic (choices over every engine, learning,
 * the error summary) over made-up collections of both kinds, so that V8 has
 * compiled it before a run's first real choice, which counts as GC time
 * (`--gc auto`'s warm-up, with the collectors' own). Touches no other model.
 */
export function warmUpModel(threads: number, adapter: AdapterKind, rounds = 64): void {
  const m = new PauseModel(threads, adapter);
  for (let i = 0; i < rounds; i++) {
    const kind: Kind = i % 3 === 2 ? 'full' : 'young';
    const words = (1 + (i % 7)) << 14;
    const f: Features = {
      kind, rootWork: 64 + i, markWords: words, copyWords: kind === 'young' ? words : words >> 2,
      sweepWords: kind === 'full' ? words << 1 : 0, uploadWords: { 'gpu-dfs': words, 'gpu-bfs': words },
    };
    const c = m.choose(f, ENGINES);
    const ms = 0.05 + words * 1e-6;
    m.observe({ ...f, engine: c.engine, rootsMs: 0.01, markMs: ms, uploadMs: isGpu(c.engine) ? ms : 0, copyMs: ms, sweepMs: kind === 'full' ? ms : 0, otherMs: 0.01 });
    m.checkPrediction(c.predictedMs, ms * 3, i % WARM_SAMPLES === 0 ? 0 : WARM_SAMPLES);
  }
  m.error();
}
