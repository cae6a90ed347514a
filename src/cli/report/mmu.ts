/**
 * Minimum mutator utilization (Cheng and Blelloch 2001): for a window size w, the
 * smallest fraction of any window of length w inside the run in which the program,
 * not the collector, ran. A curve of MMU(w) over w shows both the longest pause (the
 * w below which MMU is 0) and how pauses cluster, which a pause list alone hides.
 * Pure: pauses in, numbers out.
 */

/** A pause as [start, end], in the same unit as the run's length. */
export type Interval = readonly [number, number];

/**
 * The pauses clamped to [0, length], sorted and merged where they overlap or touch,
 * so that summing their lengths never counts a moment twice.
 */
export function mergePauses(pauses: readonly Interval[], length: number): Array<[number, number]> {
  const clamped = pauses
    .map(([s, e]): [number, number] => [Math.max(0, Math.min(s, e)), Math.min(length, Math.max(s, e))])
    .filter(([s, e]) => e > s)
    .sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [s, e] of clamped) {
    const last = out[out.length - 1];
    if (last !== undefined && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/** MMU of one run at any window size; build once, ask for many windows. */
export class MutatorUtilization {
  private readonly starts: number[];
  private readonly ends: number[];
  /** before[i]: total pause time in the merged pauses before the i-th. */
  private readonly before: number[];

  constructor(pauses: readonly Interval[], readonly length: number) {
    const merged = mergePauses(pauses, length);
    this.starts = merged.map((p) => p[0]);
    this.ends = merged.map((p) => p[1]);
    this.before = [0];
    for (const [s, e] of merged) this.before.push(this.before[this.before.length - 1]! + e - s);
  }

  /** Pause time in [0, t]. */
  private paused(t: number): number {
    // The last pause that starts before t, by binary search.
    let lo = 0;
    let hi = this.starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.starts[mid]! < t) lo = mid + 1;
      else hi = mid;
    }
    if (lo === 0) return 0;
    const i = lo - 1;
    return this.before[i]! + Math.min(t, this.ends[i]!) - this.starts[i]!;
  }

  /** The minimum over windows [t, t + w] within the run of the mutator's share of the window. */
  at(w: number): number {
    if (this.starts.length === 0 || !(w > 0)) return this.starts.length === 0 ? 1 : 0;
    if (w >= this.length) return 1 - this.before[this.before.length - 1]! / this.length;
    // Pause time in the window is piecewise linear in t, with corners where either
    // edge of the window meets either edge of a pause: the minimum is at a corner.
    const last = this.length - w;
    let worst = 0;
    const consider = (t: number): void => {
      const a = Math.min(last, Math.max(0, t));
      worst = Math.max(worst, this.paused(a + w) - this.paused(a));
    };
    consider(0);
    consider(last);
    for (let i = 0; i < this.starts.length; i++) {
      const s = this.starts[i]!;
      const e = this.ends[i]!;
      consider(s);
      consider(e);
      consider(s - w);
      consider(e - w);
    }
    return Math.max(0, 1 - worst / w);
  }
}

/**
 * Window sizes for an MMU curve: `count` sizes spaced evenly on a log scale from
 * `from` to `to` (both included).
 */
export function logWindows(from: number, to: number, count = 48): number[] {
  if (!(from > 0) || !(to > from)) return to > 0 ? [to] : [];
  const step = Math.log(to / from) / (count - 1);
  return Array.from({ length: count }, (_, i) => (i === count - 1 ? to : from * Math.exp(step * i)));
}

/** The MMU curve of a run: [window, MMU] from its smallest pause to its length. */
export function mmuCurve(pauses: readonly Interval[], length: number, count = 48): Array<[number, number]> {
  const mu = new MutatorUtilization(pauses, length);
  const lengths = mergePauses(pauses, length).map(([s, e]) => e - s);
  if (lengths.length === 0 || !(length > 0)) return [];
  return logWindows(Math.min(...lengths), length, count).map((w) => [w, mu.at(w)]);
}
