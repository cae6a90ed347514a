/**
 * The plots of `compare --report`, one series per configuration that collected:
 * the pause distribution (a strip of every pause over a box of its quartiles, log
 * axis, so that one outlier does not flatten the rest), minimum mutator utilization
 * curves, and heap occupancy over time as small multiples sharing their scales.
 * Each plot's SVG carries an id or class and each series a data-config attribute,
 * so that a reader (or a test) can find them.
 */

import type { CollectionPoint } from '../results.js';
import { mmuCurve } from './mmu.js';
import { color, escapeHtml, frame, linePlot, logBound, type PlotOptions } from './svg.js';

/** What the plots need of a configuration: its name, collections and run length. */
export interface PlottedRun {
  name: string;
  collections: CollectionPoint[];
  wallMs: number;
}

/** The q-th quantile (0..1) of sorted values, interpolated. */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/** A collection's mark: a circle for young, a square outlined in black for full. */
function mark(c: CollectionPoint, x: number, y: number, fill: string, cls: string): string {
  const tip = `<title>${escapeHtml(`gc ${c.number} ${c.kind} (${c.cause}): ${c.pauseMs.toFixed(3)} ms`)}</title>`;
  if (c.kind === 'full') {
    return `<rect class="${cls} gc-full" x="${(x - 3).toFixed(1)}" y="${(y - 3).toFixed(1)}" width="6" height="6" fill="${fill}">${tip}</rect>`;
  }
  return `<circle class="${cls} gc-young" cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="2.5" fill="${fill}">${tip}</circle>`;
}

/** Every pause of every configuration on a log axis, with each one's median, quartiles and range. */
export function pauseDistribution(runs: PlottedRun[]): string {
  const pauses = runs.flatMap((r) => r.collections.map((c) => c.pauseMs)).filter((p) => p > 0);
  if (pauses.length === 0) return '<p class="empty">Pause distribution: no pauses</p>';
  // The axis ends on ticks a little beyond the data, so that the extremes are readable.
  const lo = logBound(Math.min(...pauses) / 1.2, false);
  const hi = logBound(Math.max(...pauses) * 1.2, true);
  const o: PlotOptions = {
    title: 'GC pauses: circles young, squares full; box: quartiles, median',
    xLabel: 'configuration', yLabel: 'pause (ms)', logY: true, id: 'pause-distribution',
    width: Math.max(600, Math.min(1400, 150 + 110 * runs.length)),
  };
  // Many columns (a heap sweep) get their names slanted, with room below for them.
  const slant = runs.length > 8;
  if (slant) {
    const longest = 6 * Math.max(...runs.map((r) => r.name.length));
    o.bottom = 8 + longest * 0.6;
    o.left = Math.max(0, longest * 0.85 - 70 - (o.width! - 150) / runs.length / 2);
  }
  const f = frame(o, [0, runs.length], [lo, Math.max(hi, lo * 5)], [], false);
  const group = f.x(1) - f.x(0);
  runs.forEach((run, i) => {
    const mid = f.x(i) + group / 2;
    const sorted = run.collections.map((c) => c.pauseMs).sort((a, b) => a - b);
    const [q1, q2, q3] = [0.25, 0.5, 0.75].map((q) => f.y(quantile(sorted, q)));
    const [min, max] = [f.y(sorted[0] ?? lo), f.y(sorted[sorted.length - 1] ?? lo)];
    const half = Math.min(30, group * 0.3);
    const g = [`<g class="pause-strip" data-config="${escapeHtml(run.name)}">`];
    g.push(`<line class="whisker" x1="${mid.toFixed(1)}" x2="${mid.toFixed(1)}" y1="${max.toFixed(1)}" y2="${q3!.toFixed(1)}"/>`);
    g.push(`<line class="whisker" x1="${mid.toFixed(1)}" x2="${mid.toFixed(1)}" y1="${q1!.toFixed(1)}" y2="${min.toFixed(1)}"/>`);
    g.push(`<rect class="box" x="${(mid - half).toFixed(1)}" y="${q3!.toFixed(1)}" width="${(2 * half).toFixed(1)}" height="${Math.max(1, q1! - q3!).toFixed(1)}"/>`);
    g.push(`<line class="median" x1="${(mid - half).toFixed(1)}" x2="${(mid + half).toFixed(1)}" y1="${q2!.toFixed(1)}" y2="${q2!.toFixed(1)}"/>`);
    // Spread the points sideways by a fixed low-discrepancy sequence, so that equal
    // pauses stay visible and the same data draws the same picture.
    run.collections.forEach((c, k) => {
      const jitter = (((k * 0.618034) % 1) - 0.5) * 2 * half;
      g.push(mark(c, mid + jitter, f.y(c.pauseMs), color(i), 'pause'));
    });
    const ny = f.area.top + f.area.height + 16;
    g.push(
      slant
        ? `<text class="tick" transform="translate(${mid.toFixed(1)} ${ny.toFixed(1)}) rotate(-35)" text-anchor="end">${escapeHtml(run.name)}</text>`
        : `<text class="tick" x="${mid.toFixed(1)}" y="${ny.toFixed(1)}" text-anchor="middle">${escapeHtml(run.name)}</text>`,
    );
    g.push('</g>');
    f.svg.push(g.join('\n'));
  });
  f.svg.push('</svg>');
  return f.svg.join('\n');
}

/** Minimum mutator utilization against window size, one curve per configuration. */
export function mmuPlot(runs: PlottedRun[]): string {
  const series = runs.map((run) => ({
    name: run.name,
    points: mmuCurve(run.collections.map((c) => [c.startMs, c.endMs] as const), runLength(run)),
  }));
  const xs = series.flatMap((s) => s.points.map((p) => p[0]));
  if (xs.length === 0) return '<p class="empty">Minimum mutator utilization: no pauses</p>';
  return linePlot(series, {
    title: 'Minimum mutator utilization: the worst share of any window the program ran',
    xLabel: 'window (ms)', yLabel: 'MMU', logX: true, id: 'mmu',
    xRange: [Math.min(...xs), Math.max(...xs)], yRange: [0, 1],
  });
}

/** The run's length as its collections see it: the wall time, or the last collection's end if later. */
export function runLength(run: PlottedRun): number {
  return Math.max(run.wallMs, ...run.collections.map((c) => c.endMs));
}

/**
 * Heap occupancy over time, one small plot per configuration on shared axes: a
 * sawtooth rising to `usedBefore` when a collection starts and dropping to
 * `usedAfter` at its end, each collection marked by kind.
 */
export function occupancyMultiples(runs: PlottedRun[]): string {
  if (runs.length === 0) return '<p class="empty">Heap occupancy: no collections</p>';
  const MiB = 2 ** 20;
  const xMax = Math.max(...runs.map(runLength));
  const yMax = Math.max(...runs.flatMap((r) => r.collections.map((c) => c.usedBefore / MiB))) * 1.05 || 1;
  const plots = runs.map((run, i) => {
    const o: PlotOptions = {
      title: run.name, xLabel: 'time since start (ms)', yLabel: 'heap used (MiB)',
      width: 440, height: 210, className: 'occupancy', xRange: [0, xMax], yRange: [0, yMax],
    };
    const f = frame(o, [0, xMax], [0, yMax], []);
    const pts: Array<[number, number]> = [[0, 0]];
    for (const c of run.collections) pts.push([c.startMs, c.usedBefore / MiB], [c.endMs, c.usedAfter / MiB]);
    const coords = pts.map(([x, y]) => `${f.x(x).toFixed(1)},${f.y(y).toFixed(1)}`).join(' ');
    f.svg.push(`<polyline class="series" data-config="${escapeHtml(run.name)}" fill="none" stroke="${color(i)}" points="${coords}"/>`);
    if (run.collections.length <= 2000) {
      for (const c of run.collections) f.svg.push(mark(c, f.x(c.startMs), f.y(c.usedBefore / MiB), color(i), 'gc'));
    }
    f.svg.push('</svg>');
    return f.svg.join('\n');
  });
  return `<div id="occupancy" class="multiples">\n${plots.join('\n')}\n</div>`;
}
