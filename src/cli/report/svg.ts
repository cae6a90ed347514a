/**
 * The report's plotting, drawn as inline SVG text (no scripts, fonts or images):
 * a frame with axes, "nice" ticks (linear or log on either axis) and a legend, and
 * the line plot and grouped bar chart built on it. Long series (a linked list's
 * 50,000 BFS levels) are thinned to per-bucket minima and maxima so that the page
 * stays light while keeping the envelope of the data visible.
 */

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
  logX?: boolean;
  logY?: boolean;
  width?: number;
  height?: number;
  /** An id for the <svg> element, so that tests and readers can find a plot. */
  id?: string;
  /** Extra classes for the <svg> element. */
  className?: string;
  /** Extra room under the x axis and left of the y axis (for slanted category names). */
  bottom?: number;
  left?: number;
  /** Fixed axis ranges instead of the data's (small multiples share theirs). */
  xRange?: [number, number];
  yRange?: [number, number];
}

export const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];
const MAX_POINTS = 1500;
/** Log axes of counts start at 0.5 so that a count of 1 still shows as a bar or above the axis. */
export const LOG_FLOOR = 0.5;

export function color(i: number): string {
  return COLORS[i % COLORS.length]!;
}

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

/** Ticks of a log axis over [lo, hi]: the powers of ten, with 2 and 5 times them when the range is short. */
export function logTicks(lo: number, hi: number): number[] {
  const d0 = Math.floor(Math.log10(lo));
  const d1 = Math.ceil(Math.log10(hi));
  const steps = d1 - d0 <= 2 ? [1, 2, 5] : [1];
  const ticks: number[] = [];
  for (let d = d0; d <= d1; d++) {
    for (const m of steps) {
      const t = Number((m * 10 ** d).toPrecision(12));
      if (t >= lo * (1 - 1e-9) && t <= hi * (1 + 1e-9)) ticks.push(t);
    }
  }
  return ticks;
}

/** The nearest 1, 2 or 5 times a power of ten at or below `v` (`up`: at or above), to end a log axis on a tick. */
export function logBound(v: number, up: boolean): number {
  const d = Math.floor(Math.log10(v));
  const steps = [1, 2, 5, 10].map((m) => Number((m * 10 ** d).toPrecision(12)));
  return up ? steps.find((t) => t >= v * (1 - 1e-9))! : [...steps].reverse().find((t) => t <= v * (1 + 1e-9))!;
}

export function fmtTick(v: number): string {
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

export interface Frame {
  svg: string[];
  x(v: number): number;
  y(v: number): number;
  /** The plot area: left, top, width, height. */
  area: { left: number; top: number; width: number; height: number };
}

/** One axis's map from data to pixels; a log axis clamps values below its start to it. */
function axis(log: boolean, range: [number, number], from: number, span: number, flip: boolean): (v: number) => number {
  const t = (v: number): number => (log ? Math.log10(Math.max(v, range[0])) : v);
  const [a, b] = [t(range[0]), t(range[1])];
  return (v: number): number => {
    const f = (t(v) - a) / (b - a || 1);
    return flip ? from + span - f * span : from + f * span;
  };
}

/**
 * The axes, grid and labels of a plot; returns the coordinate maps. `legend` names
 * the colour swatches; `xTicks` false leaves the x axis to the caller (categories).
 */
export function frame(o: PlotOptions, xr: [number, number], yr: [number, number], legend: string[], xTicks = true): Frame {
  // The legend column is as wide as its longest name (about 7 px a character).
  const R = legend.length > 0 ? Math.max(190, 40 + 7 * Math.max(...legend.map((n) => n.length))) : 20;
  const L = 70 + (o.left ?? 0), T = 34, B = 46 + (o.bottom ?? 0);
  const W = (o.width ?? 900) + (o.left ?? 0) + (R - (legend.length > 0 ? 190 : 20));
  // A long legend makes the plot taller rather than running off its foot.
  const H = Math.max((o.height ?? 320) + (o.bottom ?? 0), T + 12 + legend.length * 18 + B);
  const pw = W - L - R, ph = H - T - B;
  const x = axis(o.logX === true, xr, L, pw, false);
  const y = axis(o.logY === true, yr, T, ph, true);
  const id = o.id !== undefined ? ` id="${escapeHtml(o.id)}"` : '';
  const cls = o.className !== undefined ? ` ${escapeHtml(o.className)}` : '';
  const svg: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg"${id} class="plot${cls}" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="${escapeHtml(o.title)}">`,
    `<text class="title" x="${L}" y="20">${escapeHtml(o.title)}</text>`,
    `<rect class="area" x="${L}" y="${T}" width="${pw}" height="${ph}"/>`,
  ];
  for (const t of o.logY ? logTicks(yr[0], yr[1]) : niceTicks(yr[0], yr[1], ph < 150 ? 3 : 5)) {
    const py = y(t).toFixed(1);
    svg.push(`<line class="grid" x1="${L}" x2="${L + pw}" y1="${py}" y2="${py}"/>`);
    svg.push(`<text class="tick" x="${L - 6}" y="${py}" text-anchor="end" dominant-baseline="middle">${fmtTick(t)}</text>`);
  }
  const xs = !xTicks ? [] : o.logX ? logTicks(xr[0], xr[1]) : niceTicks(xr[0], xr[1], pw < 500 ? 4 : 8);
  for (const t of xs) {
    const px = x(t).toFixed(1);
    svg.push(`<line class="grid" x1="${px}" x2="${px}" y1="${T}" y2="${T + ph}"/>`);
    svg.push(`<text class="tick" x="${px}" y="${T + ph + 16}" text-anchor="middle">${fmtTick(t)}</text>`);
  }
  svg.push(`<text class="label" x="${L + pw / 2}" y="${H - 8}" text-anchor="middle">${escapeHtml(o.xLabel)}${o.logX ? ' (log)' : ''}</text>`);
  svg.push(
    `<text class="label" transform="translate(16 ${T + ph / 2}) rotate(-90)" text-anchor="middle">${escapeHtml(o.yLabel)}${o.logY ? ' (log)' : ''}</text>`,
  );
  legend.forEach((name, i) => {
    const ly = T + 6 + i * 18;
    svg.push(`<rect class="swatch" x="${L + pw + 14}" y="${ly}" width="12" height="12" fill="${color(i)}"/>`);
    svg.push(`<text class="legend" x="${L + pw + 32}" y="${ly + 10}">${escapeHtml(name)}</text>`);
  });
  return { svg, x, y, area: { left: L, top: T, width: pw, height: ph } };
}

/** The data's range on one axis; a log axis starts at the smallest positive value. */
function dataRange(values: number[], log: boolean, pad: number): [number, number] {
  if (log) {
    const pos = values.filter((v) => v > 0);
    const lo = pos.length > 0 ? Math.min(...pos) : 1;
    return [lo, Math.max(lo * 10, ...pos)];
  }
  return [Math.min(0, ...values), Math.max(...values) * pad || 1];
}

/** A line plot of one or more series sharing axes. */
export function linePlot(series: Series[], o: PlotOptions): string {
  const all = series.flatMap((s) => s.points);
  if (all.length === 0) return `<p class="empty">${escapeHtml(o.title)}: no data</p>`;
  const xr = o.xRange ?? dataRange(all.map((p) => p[0]), o.logX === true, 1);
  const yr = o.yRange ?? (o.logY ? [LOG_FLOOR, Math.max(10, ...all.map((p) => p[1])) * 1.5] : dataRange(all.map((p) => p[1]), false, 1.05));
  const f = frame(o, xr, yr, series.length > 0 ? series.map((s) => s.name) : []);
  series.forEach((s, i) => {
    const pts = thin(s.points);
    const coords = pts.map(([px, py]) => `${f.x(px).toFixed(1)},${f.y(py).toFixed(1)}`);
    f.svg.push(`<polyline class="series" data-series="${escapeHtml(s.name)}" fill="none" stroke="${color(i)}" points="${coords.join(' ')}"/>`);
    if (s.markers && pts.length <= 400) {
      for (const [px, py] of pts) {
        f.svg.push(`<rect class="marker" x="${(f.x(px) - 2).toFixed(1)}" y="${(f.y(py) - 2).toFixed(1)}" width="4" height="4" fill="${color(i)}"/>`);
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
  const base0 = o.logY ? LOG_FLOOR : 0;
  const f = frame(o, [0, categories.length], o.logY ? [LOG_FLOOR, Math.max(10, max) * 1.5] : [0, max * 1.05], legend, false);
  const group = f.x(1) - f.x(0);
  const bw = (group * 0.8) / Math.max(1, series.length);
  categories.forEach((c, ci) => {
    f.svg.push(`<text class="tick" x="${(f.x(ci) + group / 2).toFixed(1)}" y="${(f.y(base0) + 16).toFixed(1)}" text-anchor="middle">${escapeHtml(c)}</text>`);
    series.forEach((s, si) => {
      const v = s.values[ci] ?? 0;
      if (v <= 0) return;
      const x0 = f.x(ci) + group * 0.1 + si * bw;
      const top = f.y(v);
      const base = f.y(base0);
      f.svg.push(
        `<rect class="bar" x="${x0.toFixed(1)}" y="${top.toFixed(1)}" width="${Math.max(1, bw - 1).toFixed(1)}" height="${Math.max(1, base - top).toFixed(1)}" fill="${color(si)}"><title>${escapeHtml(`${s.name} ${c}: ${v}`)}</title></rect>`,
      );
    });
  });
  f.svg.push('</svg>');
  return f.svg.join('\n');
}
