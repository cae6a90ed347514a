/**
 * Self-contained HTML reports for `compare --report` and `heapshape --report`: one
 * file with inline CSS and inline SVG plots drawn here (no scripts, fonts, images or
 * other external resources), so a report opens offline and can be mailed or archived
 * as it is.
 *
 * The plotting is deliberately small: line plots (optionally with a log y axis) and
 * grouped bar charts, axes with "nice" ticks, and a legend. Long series (a linked
 * list's 50,000 BFS levels) are thinned to per-bucket minima and maxima so that the
 * page stays light while keeping the envelope of the data visible.
 */

import type { CompareResult, HeapshapeResult } from './results.js';

export interface Series {
  name: string;
  points: Array<[number, number]>;
  /** Draw a small square at each point (kept only for short series). */
  markers?: boolean;
}

export interface PlotOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  logY?: boolean;
  width?: number;
  height?: number;
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];
const MAX_POINTS = 1500;
const LOG_FLOOR = 0.5;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Round tick positions covering [lo, hi]: steps of 1, 2 or 5 times a power of ten. */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) hi = lo + 1;
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw)!;
  const ticks: number[] = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) ticks.push(Number(t.toPrecision(12)));
  return ticks;
}

function fmtTick(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e6) return `${+(v / 1e6).toPrecision(3)}M`;
  if (a >= 1e4) return `${+(v / 1e3).toPrecision(3)}k`;
  return String(+v.toPrecision(4));
}

/** Keeps each bucket's lowest and highest point, in x order, for long series. */
export function thin(points: Array<[number, number]>, max = MAX_POINTS): Array<[number, number]> {
  if (points.length <= max) return points;
  const buckets = Math.floor(max / 2);
  const out: Array<[number, number]> = [];
  for (let b = 0; b < buckets; b++) {
    const from = Math.floor((b * points.length) / buckets);
    const to = Math.floor(((b + 1) * points.length) / buckets);
    let lo = from;
    let hi = from;
    for (let i = from; i < to; i++) {
      if (points[i]![1] < points[lo]![1]) lo = i;
      if (points[i]![1] > points[hi]![1]) hi = i;
    }
    for (const i of lo <= hi ? [lo, hi] : [hi, lo]) if (out[out.length - 1] !== points[i]) out.push(points[i]!);
  }
  return out;
}

interface Frame {
  svg: string[];
  x(v: number): number;
  y(v: number): number;
}

/** The axes, grid and labels of a plot; returns the coordinate maps. */
function frame(o: PlotOptions, xr: [number, number], yr: [number, number], legend: string[], xTicks = true): Frame {
  const W = o.width ?? 900;
  const H = o.height ?? 320;
  const L = 70, R = legend.length > 0 ? 190 : 20, T = 34, B = 46;
  const pw = W - L - R, ph = H - T - B;
  const logY = o.logY === true;
  // Log axes start at 0.5 so that a count of 1 still shows as a bar or above the axis.
  const ty = (v: number): number => (logY ? Math.log10(Math.max(v, LOG_FLOOR)) : v);
  const [y0, y1] = [ty(yr[0]), ty(yr[1])];
  const x = (v: number): number => L + ((v - xr[0]) / (xr[1] - xr[0] || 1)) * pw;
  const y = (v: number): number => T + ph - ((ty(v) - y0) / (y1 - y0 || 1)) * ph;
  const svg: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="plot" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="${escapeHtml(o.title)}">`,
    `<text class="title" x="${L}" y="20">${escapeHtml(o.title)}</text>`,
    `<rect class="area" x="${L}" y="${T}" width="${pw}" height="${ph}"/>`,
  ];
  const yTicks = logY
    ? Array.from({ length: Math.floor(y1) - Math.ceil(y0) + 1 }, (_, i) => 10 ** (Math.ceil(y0) + i))
    : niceTicks(yr[0], yr[1]);
  for (const t of yTicks) {
    const py = y(t).toFixed(1);
    svg.push(`<line class="grid" x1="${L}" x2="${L + pw}" y1="${py}" y2="${py}"/>`);
    svg.push(`<text class="tick" x="${L - 6}" y="${py}" text-anchor="end" dominant-baseline="middle">${fmtTick(t)}</text>`);
  }
  for (const t of xTicks ? niceTicks(xr[0], xr[1], 8) : []) {
    const px = x(t).toFixed(1);
    svg.push(`<line class="grid" x1="${px}" x2="${px}" y1="${T}" y2="${T + ph}"/>`);
    svg.push(`<text class="tick" x="${px}" y="${T + ph + 16}" text-anchor="middle">${fmtTick(t)}</text>`);
  }
  svg.push(`<text class="label" x="${L + pw / 2}" y="${H - 8}" text-anchor="middle">${escapeHtml(o.xLabel)}</text>`);
  svg.push(
    `<text class="label" transform="translate(16 ${T + ph / 2}) rotate(-90)" text-anchor="middle">${escapeHtml(o.yLabel)}${logY ? ' (log)' : ''}</text>`,
  );
  legend.forEach((name, i) => {
    const ly = T + 6 + i * 18;
    svg.push(`<rect class="swatch" x="${L + pw + 14}" y="${ly}" width="12" height="12" fill="${COLORS[i % COLORS.length]}"/>`);
    svg.push(`<text class="legend" x="${L + pw + 32}" y="${ly + 10}">${escapeHtml(name)}</text>`);
  });
  return { svg, x, y };
}

/** A line plot of one or more series sharing axes. */
export function linePlot(series: Series[], o: PlotOptions): string {
  const all = series.flatMap((s) => s.points);
  if (all.length === 0) return `<p class="empty">${escapeHtml(o.title)}: no data</p>`;
  const xs = all.map((p) => p[0]);
  const ys = all.map((p) => p[1]);
  const xr: [number, number] = [Math.min(0, ...xs), Math.max(...xs)];
  const yr: [number, number] = o.logY ? [LOG_FLOOR, Math.max(10, ...ys) * 1.5] : [Math.min(0, ...ys), Math.max(...ys) * 1.05 || 1];
  const f = frame(o, xr, yr, series.map((s) => s.name));
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length]!;
    const pts = thin(s.points);
    const coords = pts.map(([px, py]) => `${f.x(px).toFixed(1)},${f.y(py).toFixed(1)}`);
    f.svg.push(`<polyline class="series" fill="none" stroke="${color}" points="${coords.join(' ')}"/>`);
    if (s.markers && pts.length <= 400) {
      for (const [px, py] of pts) {
        f.svg.push(`<rect class="marker" x="${(f.x(px) - 2).toFixed(1)}" y="${(f.y(py) - 2).toFixed(1)}" width="4" height="4" fill="${color}"/>`);
      }
    }
  });
  f.svg.push('</svg>');
  return f.svg.join('\n');
}

/** Grouped bars: one group per category, one bar per series. */
export function barChart(categories: string[], series: Array<{ name: string; values: number[] }>, o: PlotOptions): string {
  const max = Math.max(1, ...series.flatMap((s) => s.values));
  // Category names stand in for numeric x ticks.
  const legend = series.length > 1 ? series.map((s) => s.name) : [];
  const f = frame(o, [0, categories.length], o.logY ? [LOG_FLOOR, Math.max(10, max) * 1.5] : [0, max * 1.05], legend, false);
  const group = f.x(1) - f.x(0);
  const bw = (group * 0.8) / Math.max(1, series.length);
  categories.forEach((c, ci) => {
    f.svg.push(`<text class="tick" x="${(f.x(ci) + group / 2).toFixed(1)}" y="${(f.y(o.logY ? LOG_FLOOR : 0) + 16).toFixed(1)}" text-anchor="middle">${escapeHtml(c)}</text>`);
    series.forEach((s, si) => {
      const v = s.values[ci] ?? 0;
      if (v <= 0) return;
      const x0 = f.x(ci) + group * 0.1 + si * bw;
      const top = f.y(v);
      const base = f.y(o.logY ? LOG_FLOOR : 0);
      f.svg.push(
        `<rect class="bar" x="${x0.toFixed(1)}" y="${top.toFixed(1)}" width="${Math.max(1, bw - 1).toFixed(1)}" height="${Math.max(1, base - top).toFixed(1)}" fill="${COLORS[si % COLORS.length]}"><title>${escapeHtml(`${s.name} ${c}: ${v}`)}</title></rect>`,
      );
    });
  });
  f.svg.push('</svg>');
  return f.svg.join('\n');
}

export function htmlTable(header: string[], rows: string[][], leftColumns = 2): string {
  const cls = (i: number): string => (i < leftColumns ? ' class="l"' : '');
  const head = `<tr>${header.map((h, i) => `<th${cls(i)}>${escapeHtml(h)}</th>`).join('')}</tr>`;
  const body = rows.map((r) => `<tr>${r.map((c, i) => `<td${cls(i)}>${escapeHtml(c)}</td>`).join('')}</tr>`).join('\n');
  return `<table class="data"><thead>${head}</thead><tbody>\n${body}\n</tbody></table>`;
}

const CSS = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; background: #fff; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; }
table.data { border-collapse: collapse; margin: 8px 0; font-size: 13px; }
table.data th, table.data td { border: 1px solid #ccc; padding: 3px 8px; text-align: right; white-space: nowrap; }
table.data th { background: #f0f0f0; } table.data .l { text-align: left; }
.note { color: #666; } .bad { color: #b00; font-weight: bold; } .good { color: #070; }
svg.plot { display: block; margin: 12px 0; font: 12px system-ui, sans-serif; }
svg .title { font-weight: bold; font-size: 13px; } svg .area { fill: #fafafa; stroke: #999; }
svg .grid { stroke: #e4e4e4; } svg .series { stroke-width: 1.5; } svg .label { fill: #444; }
`;

export function htmlPage(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>${CSS}</style></head>
<body>
<h1>${escapeHtml(title)}</h1>
${body}
</body></html>
`;
}

/** `compare --report`: the table, then pauses per collection and heap occupancy over time. */
export function compareReport(r: CompareResult, table: { header: string[]; rows: string[][] }): string {
  const parts: string[] = [];
  parts.push(
    `<p>Program <code>${escapeHtml(r.file)}</code>, ${r.repeat > 1 ? `medians (min-max) of ${r.repeat} runs` : 'one run'} per collector and layout` +
      `${r.warmup > 0 ? ` after ${r.warmup} warm-up runs` : ''}, ${escapeHtml(r.provenance.mode === 'fresh process' ? 'each run in a fresh process' : 'all runs in one process')}, rounds interleaved.</p>`,
  );
  parts.push(htmlTable(table.header, table.rows));
  for (const run of r.runs) {
    for (const i of run.outliers) parts.push(`<p class="note">${escapeHtml(`${run.collector}/${run.layout} run ${i}: wall time outside Tukey's fences (outlier)`)}</p>`);
  }
  parts.push(
    r.outputIdentical
      ? `<p class="good">output identical across ${r.comparedRuns} runs</p>`
      : `<p class="bad">outputs differ</p><pre>${escapeHtml(r.difference ?? '')}</pre>`,
  );
  for (const run of r.runs) {
    if (run.status !== 'ok') {
      const why = run.collector === 'none' && run.status === 'out of memory' ? ' (never collects; excluded from the output check)' : '';
      parts.push(`<p class="note">${escapeHtml(`${run.collector}/${run.layout}: ${run.status}, exit ${run.exitCode}${why}`)}</p>`);
    }
  }
  for (const s of r.skipped) parts.push(`<p class="note">skipped ${escapeHtml(`${s.collector}/${s.layout}: ${s.reason}`)}</p>`);
  const plotted = r.runs.filter((run) => run.collections.length > 0);
  parts.push('<h2>Pause time per collection</h2>');
  parts.push(
    linePlot(
      plotted.map((run) => ({
        name: `${run.collector}/${run.layout}`,
        points: run.collections.map((c) => [c.number, c.pauseMs] as [number, number]),
        markers: true,
      })),
      { title: 'GC pause per collection', xLabel: 'collection number', yLabel: 'pause (ms)' },
    ),
  );
  parts.push('<h2>Heap occupancy over time</h2>');
  parts.push(
    linePlot(
      plotted.map((run) => ({
        name: `${run.collector}/${run.layout}`,
        // A sawtooth: occupancy rises to usedBefore when a collection starts, drops by its end.
        points: [[0, 0] as [number, number], ...run.collections.flatMap((c) => [
          [c.startMs, c.usedBefore / 2 ** 20] as [number, number],
          [c.endMs, c.usedAfter / 2 ** 20] as [number, number],
        ])],
      })),
      { title: 'Heap occupancy (representative run)', xLabel: 'time since start (ms)', yLabel: 'heap used (MiB)' },
    ),
  );
  if (plotted.length === 0) parts.push('<p class="note">No run collected: nothing to plot per collection.</p>');
  const p = r.provenance;
  parts.push('<h2>Provenance</h2>');
  parts.push(htmlTable(['what', 'value'], [
    ['minivm', `${p.version}${p.commit ? ` (${p.commit})` : ''}`], ['command', `minivm ${p.argv.join(' ')}`], ['mode', p.mode],
    ['warm-up runs', String(p.warmup)], ['heap', `${p.heapBytes} bytes`], ['node', p.node], ['os', p.os],
    ['cpu', `${p.cpu}, ${p.cores} cores`], ['memory', `${p.memoryBytes} bytes`], ['GPU adapter', p.adapter ?? '-'], ['date', p.date],
  ], 1));
  return htmlPage(`minivm compare: ${r.file}`, parts.join('\n'));
}

/** `heapshape --report`: the table, then per snapshot the width per depth and the out-degree histogram. */
export function heapshapeReport(r: HeapshapeResult, table: { header: string[]; rows: string[][] }, limit = 60): string {
  const parts: string[] = [];
  parts.push(
    `<p>Program <code>${escapeHtml(r.file)}</code> under ${escapeHtml(`${r.collector}/${r.layout}`)}; ` +
      `a level is narrow below ${r.narrowThreshold} objects (Maas et al. 5.4's fallback threshold).</p>`,
  );
  // Two tables (shape, then out-degree bins) so that neither runs off the page.
  const split = table.header.findIndex((h) => h.startsWith('deg '));
  const cut = split < 0 ? table.header.length : split;
  parts.push(htmlTable(table.header.slice(0, cut), table.rows.map((row) => row.slice(0, cut)), 3));
  if (cut < table.header.length) {
    parts.push('<p>Objects by number of non-null references (out-degree):</p>');
    parts.push(htmlTable(['gc', ...table.header.slice(cut)], table.rows.map((row) => [row[0]!, ...row.slice(cut)]), 1));
  }
  parts.push('<h2>Verdicts</h2><ul>');
  for (const s of r.snapshots) parts.push(`<li class="${s.verdict.rating === 'poor' ? 'bad' : s.verdict.rating === 'good' ? 'good' : ''}">gc ${s.collection}: ${escapeHtml(s.verdict.text)}</li>`);
  parts.push('</ul>');
  if (r.snapshots.length > 0) {
    parts.push('<h2>Out-degree distribution (section 3.2)</h2>');
    const pick = r.snapshots.length <= 8 ? r.snapshots : [r.snapshots[0]!, r.snapshots[Math.floor(r.snapshots.length / 2)]!, r.snapshots[r.snapshots.length - 1]!];
    parts.push(
      barChart(
        r.outDegreeBins,
        pick.map((s) => ({ name: `gc ${s.collection}`, values: s.outDegree })),
        { title: 'Objects by number of non-null references', xLabel: 'out-degree', yLabel: 'objects', logY: true },
      ),
    );
  }
  parts.push('<h2>Objects per BFS depth (section 3.1)</h2>');
  const shown = r.snapshots.slice(0, limit);
  for (const s of shown) {
    parts.push(
      linePlot([{ name: `gc ${s.collection}`, points: s.widths.map((w, d) => [d, w] as [number, number]), markers: s.widths.length <= 60 }], {
        title: `gc ${s.collection} (${s.kind}, ${s.cause}): ${s.objects} objects, depth ${s.depth}, max width ${s.maxWidth}`,
        xLabel: 'BFS depth from the roots',
        yLabel: 'objects at depth',
        logY: true,
        height: 240,
      }),
    );
  }
  if (r.snapshots.length > shown.length) parts.push(`<p class="note">${r.snapshots.length - shown.length} more snapshots not plotted.</p>`);
  return htmlPage(`minivm heapshape: ${r.file}`, parts.join('\n'));
}
