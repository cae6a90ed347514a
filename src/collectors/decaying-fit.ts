/**
 * A straight line y = fixed + perUnit·x fitted to recent samples, the newest
 * weighing most: each new sample scales the older ones' weights by `decay`, as
 * HotSpot G1's TruncatedSeq/G1Analytics keep decaying averages of per-unit
 * costs. G1 keeps only the per-unit cost; a GPU engine also has a large cost per
 * request (kernel launches, the read-back's round trip), so this fits both.
 *
 * A prior line (the defaults) takes part as two pseudo-samples of fixed small
 * weight, at x = 0 and at x = `scale`: with no samples the fit is the prior;
 * with samples all of one size it passes through their average there and leans
 * on the prior's slope elsewhere, rather than being undetermined. Pure and
 * deterministic: the same samples give the same line.
 */

export interface Line {
  /** Milliseconds whatever the size. */
  readonly fixed: number;
  /** Milliseconds per unit of size. */
  readonly perUnit: number;
}

/** Weight of each of the prior's two pseudo-samples; real samples weigh 1 when
 *  new, so the prior is a small share once a few samples are in. */
export const PRIOR_WEIGHT = 0.1;
/** G1's default decay (its `alpha`: each older sample keeps 0.7 of its weight). */
export const DEFAULT_DECAY = 0.7;
/** A sample this many times above or below the fit's prediction, by more than
 *  SHIFT_MIN_MS, marks a change of regime (the JIT warming up, the heap changing
 *  shape): the older samples then keep only SHIFT_KEEP of their weight, so the
 *  model follows in one or two collections rather than a dozen. */
export const SHIFT_FACTOR = 2.5;
export const SHIFT_MIN_MS = 0.05;
export const SHIFT_KEEP = 0.1;

export class DecayingFit {
  private w = 0;
  private sx = 0;
  private sy = 0;
  private sxx = 0;
  private sxy = 0;
  /** Samples taken (not decayed). */
  samples = 0;
  /** The first sample as measured, before `add` divided it by its warm-up factor. */
  first: { readonly x: number; readonly y: number } | null = null;
  private cached: Line | null = null;

  constructor(
    private prior: Line,
    /** A typical size (x) for this term: where the prior's second pseudo-sample sits. */
    private readonly scale: number,
    private readonly decay: number = DEFAULT_DECAY,
  ) {}

  /** Replaces the prior (e.g. once the GPU adapter is known to be a software one). */
  setPrior(prior: Line): void {
    this.prior = prior;
    this.cached = null;
  }

  /**
   * Takes a sample. The first one measured code running cold (V8 compiles it as
   * it runs): it enters divided by `warmup`, the caller's estimate of how much
   * dearer a first run is, so the line is of the steady cost.
   */
  add(x: number, y: number, warmup = 1): void {
    if (!Number.isFinite(x) || !Number.isFinite(y) || x < 0 || y < 0) return;
    if (this.samples === 0) {
      this.first = { x, y };
      y /= Math.max(1, warmup);
    }
    let d = this.decay;
    if (this.samples > 0) {
      const p = this.predict(x);
      const off = Math.max(y / Math.max(p, 1e-9), p / Math.max(y, 1e-9));
      if (off > SHIFT_FACTOR && Math.abs(y - p) > SHIFT_MIN_MS) d = SHIFT_KEEP;
    }
    this.w = this.w * d + 1;
    this.sx = this.sx * d + x;
    this.sy = this.sy * d + y;
    this.sxx = this.sxx * d + x * x;
    this.sxy = this.sxy * d + x * y;
    this.samples++;
    this.cached = null;
  }

  /** The fitted line: weighted least squares over the samples and the prior's two points. */
  line(): Line {
    if (this.cached) return this.cached;
    const p = PRIOR_WEIGHT;
    const X = this.scale;
    const y0 = this.prior.fixed;
    const y1 = this.prior.fixed + this.prior.perUnit * X;
    const w = this.w + 2 * p;
    const sx = this.sx + p * X;
    const sy = this.sy + p * (y0 + y1);
    const sxx = this.sxx + p * X * X;
    const sxy = this.sxy + p * X * y1;
    const det = w * sxx - sx * sx;
    let perUnit = det > 0 ? (w * sxy - sx * sy) / det : this.prior.perUnit;
    let fixed = (sy - perUnit * sx) / w;
    // Costs are never negative: a line that says so is noise; keep its other term.
    // Both fallbacks are computed every time, so that the rare branches hold no
    // arithmetic V8 has not seen (it would throw the optimized code away there).
    const level = sy / w;
    const throughZero = sxx > 0 ? sxy / sxx : this.prior.perUnit;
    if (perUnit < 0) {
      perUnit = 0;
      fixed = level;
    } else if (fixed < 0) {
      fixed = 0;
      perUnit = throughZero;
    }
    this.cached = { fixed, perUnit };
    return this.cached;
  }

  predict(x: number): number {
    const l = this.line();
    return l.fixed + l.perUnit * Math.max(0, x);
  }
}

/**
 * A ratio in [0, 1] (young survival, the live share of a full collection): the
 * newest observation weighs `weight`, as G1's decaying averages do, except the
 * first, which replaces the prior outright, since the prior is a guess and the
 * first observation is this program's own.
 */
export class DecayingRatio {
  private observed = false;

  constructor(private ratio: number, private readonly weight: number) {}

  get value(): number {
    return this.ratio;
  }

  /** Whether a ratio has been observed (else `value` is the starting guess). */
  get known(): boolean {
    return this.observed;
  }

  observe(x: number): void {
    const r = Math.min(1, Math.max(0, x));
    this.ratio = this.observed ? this.ratio + this.weight * (r - this.ratio) : r;
    this.observed = true;
  }
}
