/**
 * The per-configuration figures the report adds to compare's table: throughput
 * (the mutator's share of wall time), allocation and promotion rates, and the
 * sentence for a run that never collected. Pure: a compare row in, numbers out.
 */

import type { CompareResult, CompareRun } from '../results.js';

/** A figure over a configuration's repeats: the median and the range it sits in. */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

/** Megabytes (10^6 bytes) per second, as GC-log tools state rates. */
const MB = 1e6;

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * A ratio computed per repeat, then summarised: the median of the ratios, not the
 * ratio of the medians, which may come from two different repeats. Falls back to the
 * row's medians when it carries no per-repeat samples.
 */
function perRepeat(run: CompareRun, num: string, den: string, f: (n: number, d: number) => number): Spread {
  const ns = run.samples?.[num];
  const ds = run.samples?.[den];
  const values =
    ns !== undefined && ds !== undefined && ns.length === ds.length && ns.length > 0
      ? ns.map((n, i) => f(n, ds[i]!))
      : [f(run[num as keyof CompareRun] as number, run[den as keyof CompareRun] as number)];
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

const share = (n: number, d: number): number => (d > 0 ? (100 * n) / d : 0);
const rate = (bytes: number, ms: number): number => (ms > 0 ? bytes / MB / (ms / 1000) : 0);

/** Mutator time as a percentage of wall time (start-up of a GPU device or thread pool is not the mutator's). */
export function throughputPct(run: CompareRun): Spread {
  return perRepeat(run, 'mutatorMs', 'wallMs', share);
}

/** Bytes the program allocated per second of wall time, in MB/s. */
export function allocationRate(run: CompareRun): Spread {
  return perRepeat(run, 'bytesAllocated', 'wallMs', rate);
}

/** Bytes promoted to tenured per second of wall time, in MB/s. */
export function promotionRate(run: CompareRun): Spread {
  return perRepeat(run, 'bytesPromoted', 'wallMs', rate);
}

/** A row's heap size: its own `heap` when compare sweeps heaps, else the command's. */
export function heapOf(run: CompareRun, r: CompareResult): number {
  const own = (run as CompareRun & { heap?: unknown }).heap;
  if (typeof own === 'number' && own > 0) return own;
  const bytes = (run as CompareRun & { heapBytes?: unknown }).heapBytes;
  if (typeof bytes === 'number' && bytes > 0) return bytes;
  return r.provenance.heapBytes;
}

/** A size as the --heap flag takes it: `256m`, `1g`, `48k`, or bytes. */
export function heapFlag(bytes: number): string {
  for (const [size, unit] of [[2 ** 30, 'g'], [2 ** 20, 'm'], [2 ** 10, 'k']] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return String(bytes);
}

/** Whether the result holds rows at more than one heap size (a sweep). */
export function sweepsHeaps(r: CompareResult): boolean {
  return new Set(r.runs.map((run) => heapOf(run, r))).size > 1;
}

/** With `--heap Nx`: the row's N (a multiple of its minimum heap), else null. */
export function heapMultipleOf(run: CompareRun): number | null {
  const m = (run as CompareRun & { heapMultiple?: unknown }).heapMultiple;
  return typeof m === 'number' ? m : null;
}

/** The name of a configuration in legends and hints: collector/layout, and the heap when it varies. */
export function configName(run: CompareRun, r: CompareResult): string {
  const name = `${run.collector}/${run.layout}`;
  if (!sweepsHeaps(r)) return name;
  const m = heapMultipleOf(run);
  return `${name} @${heapFlag(heapOf(run, r))}${m !== null ? ` (${m}x)` : ''}`;
}

/**
 * The hint for a run that finished without a collection (so its GC figures are all
 * zero): name the program and heap, and what to change. `none` never collects by
 * design and gets no hint.
 */
export function neverCollectedHint(run: CompareRun, r: CompareResult): string | null {
  if (run.status !== 'ok' || run.collector === 'none') return null;
  if (run.youngCollections + run.fullCollections > 0 || run.collections.length > 0) return null;
  const program = r.file.replace(/^.*\//, '').replace(/\.mini$/, '');
  return (
    `${program} never collected under ${configName(run, r)} at --heap ${heapFlag(heapOf(run, r))}: ` +
    `its pause figures are zeros; try a smaller --heap (or --gc-stress N) to measure collections`
  );
}
