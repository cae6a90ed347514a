/**
 * Whether trying an engine pays for itself: the arithmetic behind `auto`'s
 * exploration (pause-model.ts), kept apart because it is pure probability.
 *
 * An engine whose cost is uncertain (a prior never checked, or samples grown
 * stale) is modelled as lognormal around its prediction: c = median·e^(σZ),
 * Z standard normal. Trying it costs, this collection, its expected pause less
 * the best known engine's (plus any one-time warm-up); if it then proves
 * cheaper than the best known, every later collection saves the difference.
 * The try pays when the expected saving over the collections left exceeds
 * that cost. Deterministic: no sampling, only closed forms.
 */

/** The standard normal distribution function, by Abramowitz and Stegun 7.1.26
 *  (absolute error under 1.5e-7: far below what a choice can notice). */
export function normalCdf(x: number): number {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * z);
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-z * z);
  return x >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}

/** E[c] for c = median·e^(σZ). */
export function lognormalMean(median: number, sigma: number): number {
  return median * Math.exp((sigma * sigma) / 2);
}

/** E[max(0, best - c)] for c = median·e^(σZ): what one collection is expected to
 *  save by running this engine rather than one known to cost `best`. */
export function expectedSaving(best: number, median: number, sigma: number): number {
  if (!(best > 0)) return 0;
  if (!(median > 0)) return best;
  if (!(sigma > 0)) return Math.max(0, best - median);
  // c < best exactly when Z < a.
  const a = Math.log(best / median) / sigma;
  return best * normalCdf(a) - lognormalMean(median, sigma) * normalCdf(a - sigma);
}

export interface Try {
  /** The best known engine's predicted pause (ms). */
  readonly bestMs: number;
  /** The candidate's predicted (median) pause once warm (ms). */
  readonly medianMs: number;
  /** Its uncertainty: the standard deviation of ln(actual / predicted). */
  readonly sigma: number;
  /** The try's extra cost factor: its first collection runs its code cold (JIT). */
  readonly warmup: number;
  /** Collections expected after this one. */
  readonly remaining: number;
}

/**
 * The expected net gain (ms, over the rest of the run) of trying an engine now
 * rather than running the best known one: the saving of the collections after
 * the try, less what the try is expected to cost beyond the best known.
 */
export function tryValue(t: Try): number {
  const tryCost = lognormalMean(t.medianMs, t.sigma) * t.warmup - t.bestMs;
  return Math.max(0, t.remaining) * expectedSaving(t.bestMs, t.medianMs, t.sigma) - tryCost;
}

/**
 * Collections expected after this one, from the `elapsed` ones of its kind so
 * far: the doubling (Lindy, Gott's Copernican) estimate, that a run observed at
 * an arbitrary point of its life is as likely past its middle as before it, so
 * its median remaining length is what has elapsed. The program's length is
 * unknown to the VM; allocation rate tells how often it collects, not for how
 * long it will.
 */
export function remainingCollections(elapsed: number): number {
  return Math.max(0, elapsed);
}
