/**
 * `minivm compare FILE [--gc LIST] [--layout LIST] [--repeat N] [--json] [--report F]`:
 * runs one program under several collectors and layouts, checks that every run
 * printed the same thing, and tabulates their times and collection statistics
 * (medians when repeated). Field names of `--json` are documented in docs/cli.md.
 *
 * Runs go through `runProgram` with an Io that captures the program's output (it is
 * compared, never shown) and the `--log-gc` lines, which are the one moment the
 * heap tells its caller that a collection ended: they give the time stamps of the
 * heap-occupancy plot. An unavailable collector (a GPU collector without an adapter,
 * or one refused with a usage error) is skipped with a note when it came from the
 * default list, and is an error (exit 69 / 64, as for `run`) when the user named it.
 */

import type { Command } from './args.js';
import { COLLECTOR_NAMES, LAYOUT_NAMES, type CollectorName, type LayoutName } from './options.js';
import { EXIT, loadProgram, type Io, type TimedRunStats } from './run.js';
import { runInChild, runInProcess, type OneRun } from './compare-runs.js';
import { provenance } from './provenance.js';
import { formatBytes } from '../heap/telemetry.js';
import { writeCompareReport } from './report.js';
import type { CompareResult, CompareRun, RunStatus } from './results.js';
import { formatTextTable, Progress, type CommandDeps } from './text.js';
import { isDawnLine } from './dawn-filter.js';
import { formatAutoChoices } from '../collectors/index.js';
import { minHeapTable, multipleOf, probeOutcome, searchMinHeap, type MinHeap } from './heap-sweep.js';

export type { CompareResult, CompareRun } from './results.js';

/** The numeric fields that are medians over repeats. */
const MEDIAN_FIELDS = [
  'wallMs', 'mutatorMs', 'gcMs', 'youngCollections', 'fullCollections', 'totalPauseMs', 'maxPauseMs',
  'p95PauseMs', 'markMs', 'transferMs', 'bytesAllocated', 'bytesPromoted', 'peakHeapBytes',
] as const;

export function median(values: number[]): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export interface CapturedOutput {
  label: string;
  stdout: string;
  exitCode: number;
}

/**
 * The output-equality check, pure: every output against the first. On a difference,
 * a diff of the first differing lines (one line of context before, up to three
 * differing lines after) of the first output that differs.
 */
export function compareOutputs(outputs: CapturedOutput[], context = 3): { identical: true } | { identical: false; diff: string } {
  const base = outputs[0];
  if (base === undefined) return { identical: true };
  const lines = (t: string): string[] => {
    const l = t.split('\n');
    if (l[l.length - 1] === '') l.pop();
    return l;
  };
  const a = lines(base.stdout);
  for (const other of outputs.slice(1)) {
    const b = lines(other.stdout);
    let i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) i++;
    const sameText = i === a.length && i === b.length;
    if (sameText && other.exitCode === base.exitCode) continue;
    const out = [`--- ${base.label}`, `+++ ${other.label}`];
    if (sameText) {
      out.push(`@@ exit status @@`, `-exit ${base.exitCode}`, `+exit ${other.exitCode}`);
    } else {
      out.push(`@@ line ${i + 1} @@`);
      if (i > 0) out.push(` ${a[i - 1]}`);
      for (let k = i; k < Math.min(a.length, i + context); k++) out.push(`-${a[k]}`);
      if (i >= a.length) out.push(`-(end of output, exit ${base.exitCode})`);
      for (let k = i; k < Math.min(b.length, i + context); k++) out.push(`+${b[k]}`);
      if (i >= b.length) out.push(`+(end of output, exit ${other.exitCode})`);
    }
    return { identical: false, diff: out.join('\n') };
  }
  return { identical: true };
}

function toRow(c: Config): CompareRun {
  const { gc, layout, runs } = c;
  const first = runs[0]!;
  // A heap too small to lay out (a sweep's smallest size) counts as out of memory too.
  const oom = probeOutcome(first) === 'too small';
  const status: RunStatus = first.exitCode === EXIT.ok ? 'ok' : oom ? 'out of memory' : 'runtime error';
  const stats = runs.map((r) => r.stats).filter((s): s is TimedRunStats => s !== undefined);
  const row = {
    collector: gc, layout, heapBytes: c.heapBytes, heapMultiple: c.heapMultiple, status, exitCode: first.exitCode, repeats: runs.length,
  } as CompareRun;
  row.min = {};
  row.max = {};
  row.samples = {};
  for (const f of MEDIAN_FIELDS) {
    const values = stats.map((s) => s[f]);
    row[f] = median(values);
    row.min[f] = values.length > 0 ? Math.min(...values) : 0;
    row.max[f] = values.length > 0 ? Math.max(...values) : 0;
    row.samples[f] = values;
  }
  row.outliers = outliers(stats.map((s) => s.wallMs));
  const autos = stats.flatMap((s) => (s.auto ? [s.auto] : []));
  if (autos.length > 0) {
    const choices: Record<string, number> = {};
    for (const a of autos) for (const [e, n] of Object.entries(a.choices)) choices[e] = (choices[e] ?? 0) + n;
    row.auto = { choices, medianError: median(autos.map((a) => a.error.median)) };
  }
  const gpus = stats.flatMap((s) => (s.gpu ? [{ gpu: s.gpu, collections: s.youngCollections + s.fullCollections }] : []));
  if (gpus.length > 0) {
    row.gpu = {
      collections: gpus.reduce((n, g) => n + g.collections, 0),
      cpuCollections: gpus.reduce((n, g) => n + g.gpu.cpuCollections, 0),
      minLiveBytes: gpus[0]!.gpu.minLiveBytes,
    };
  }
  // The plots show one real run, not a blend: the one nearest the median wall time.
  let rep = runs[0]!;
  for (const r of runs) {
    if (r.stats && Math.abs(r.stats.wallMs - row.wallMs) < Math.abs((rep.stats?.wallMs ?? Infinity) - row.wallMs)) rep = r;
  }
  row.collections = (rep.stats?.collections ?? []).map((c) => ({
    number: c.number, kind: c.kind, cause: c.cause, startMs: c.startMs,
    endMs: c.endMs, pauseMs: c.pauseMs, usedBefore: c.usedBefore, usedAfter: c.usedAfter,
  }));
  return row;
}

/** The table as cells, shared by the text output and the report. */
export function compareTable(r: CompareResult): { header: string[]; rows: string[][] } {
  const header = [
    'collector', 'layout', 'heap', 'wall ms', 'mutator ms', 'young', 'full', 'pause ms', 'max ms', 'p95 ms',
    'mark ms', 'transfer ms', 'promoted', 'peak heap',
  ];
  const ms = (x: number): string => x.toFixed(2);
  const count = (x: number): string => (Number.isInteger(x) ? String(x) : x.toFixed(1));
  // The median, and with repeats the range it sits in.
  const spread = (run: CompareRun, f: 'wallMs' | 'mutatorMs' | 'totalPauseMs' | 'maxPauseMs'): string =>
    run.repeats > 1 && run.min[f] !== undefined ? `${ms(run[f])} (${ms(run.min[f]!)}-${ms(run.max[f]!)})` : ms(run[f]);
  const rows = r.runs.map((run) => {
    const heap = `${formatBytes(run.heapBytes)}${run.heapMultiple !== null ? ` (${run.heapMultiple}x)` : ''}`;
    if (run.status === 'out of memory') return [run.collector, run.layout, heap, 'out of memory', ...new Array<string>(header.length - 4).fill('-')];
    return [
      run.collector, run.layout, heap, spread(run, 'wallMs'), spread(run, 'mutatorMs'), count(run.youngCollections), count(run.fullCollections),
      spread(run, 'totalPauseMs'), spread(run, 'maxPauseMs'), ms(run.p95PauseMs), ms(run.markMs), ms(run.transferMs),
      formatBytes(run.bytesPromoted), formatBytes(run.peakHeapBytes),
    ];
  });
  return { header, rows };
}

/** Indices (1-based) of values outside Tukey's fences, [Q1 - 1.5 IQR, Q3 + 1.5 IQR]; none below 4 values. */
export function outliers(values: number[]): number[] {
  if (values.length < 4) return [];
  const s = [...values].sort((a, b) => a - b);
  const half = s.length >> 1;
  const q1 = median(s.slice(0, half));
  const q3 = median(s.slice(s.length - half));
  const iqr = q3 - q1;
  return values.flatMap((v, i) => (v < q1 - 1.5 * iqr || v > q3 + 1.5 * iqr ? [i + 1] : []));
}

interface Config {
  gc: CollectorName;
  layout: LayoutName;
  heapBytes: number;
  /** With `--heap Nx`: N, the multiple of this configuration's minimum heap. */
  heapMultiple: number | null;
  runs: OneRun[];
}

/** A run's name in notes and diffs: its configuration, and its heap when the heap varies. */
function runLabel(run: { collector: string; layout: string; heapBytes: number }, sweep: boolean): string {
  return `${run.collector}/${run.layout}${sweep ? ` at ${formatBytes(run.heapBytes)}` : ''}`;
}

/**
 * Runs the comparison; returns the exit status and, unless a run was fatal, the result.
 * Every round runs each configuration once, in table order, so that a drift of the
 * machine (another job, the clock) spreads over all of them instead of favouring the
 * first; `--warmup N` rounds come first and are thrown away.
 */
export async function runComparison(
  cmd: Command,
  source: string,
  io: Io,
  deps: CommandDeps = {},
): Promise<{ exitCode: number; result?: CompareResult }> {
  const program = (await loadProgram(cmd.file, source, io))?.program;
  if (!program) return { exitCode: EXIT.compile };
  const explicitGc = cmd.compare.gcs.length > 0;
  const gcs = explicitGc ? cmd.compare.gcs : [...COLLECTOR_NAMES];
  const layouts = cmd.compare.layouts.length > 0 ? cmd.compare.layouts : [...LAYOUT_NAMES];
  const { repeat, warmup, inProcess, heaps, minHeap } = cmd.compare;
  const sweep = heaps !== undefined;
  const rounds = warmup + repeat;
  const progress = new Progress(io, deps.progress ?? false);
  const skipped = new Map<CollectorName, string>();
  const runOne = (gc: CollectorName, layout: LayoutName, heapBytes: number): Promise<OneRun> => {
    const options = { ...cmd.run, gc, layout, heapBytes };
    return inProcess ? runInProcess(program, options) : runInChild(cmd.file, options);
  };
  /** A collector that cannot run here (no GPU library or adapter, or refused as a usage error): an error when named, else skipped. */
  const unavailable = (gc: CollectorName, one: OneRun): number | undefined => {
    if (explicitGc) {
      progress.done();
      io.stderr(one.stderr);
      return one.exitCode;
    }
    // The run inherits the filtered mark (dawn-filter.ts), so Dawn's lines may precede minivm's.
    const reason = one.stderr.split('\n').find((l) => l.trim() !== '' && !isDawnLine(l)) ?? '';
    skipped.set(gc, reason.replace(/^minivm: /, ''));
    return undefined;
  };
  const pairs = gcs.flatMap((gc) => layouts.map((layout) => ({ gc, layout })));
  // --min-heap and --heap Nx: each configuration's minimum first, one probe at a time.
  const minHeaps: MinHeap[] = [];
  const minRuns: Array<{ label: string; run: OneRun }> = [];
  if (minHeap || heaps?.kind === 'multiples') {
    try {
      for (const [i, { gc, layout }] of pairs.entries()) {
        if (skipped.has(gc)) continue;
        const search = await searchMinHeap(gc, layout, cmd.run.heapBytes, (bytes) => {
          progress.show(`[${i + 1}/${pairs.length}] ${gc}/${layout} minimum heap: trying ${formatBytes(bytes)}`);
          return runOne(gc, layout, bytes);
        });
        if (search.kind === 'unavailable') {
          const code = unavailable(gc, search.run);
          if (code !== undefined) return { exitCode: code };
          continue;
        }
        minHeaps.push(search.result);
        if (search.run) minRuns.push({ label: `${gc}/${layout} at its minimum heap`, run: search.run });
      }
    } finally {
      progress.done();
    }
  }
  const configs: Config[] = [];
  if (heaps?.kind === 'multiples') {
    for (const m of minHeaps) {
      if (m.minHeapBytes === null) continue;
      for (const f of heaps.factors) configs.push({ gc: m.collector, layout: m.layout, heapBytes: multipleOf(m.minHeapBytes, f), heapMultiple: f, runs: [] });
    }
  } else if (!minHeap) {
    const sizes = heaps?.kind === 'sizes' ? heaps.bytes : [cmd.run.heapBytes];
    for (const { gc, layout } of pairs) for (const heapBytes of sizes) configs.push({ gc, layout, heapBytes, heapMultiple: null, runs: [] });
  }
  try {
    for (let round = 1; round <= rounds && configs.length > 0; round++) {
      for (const [i, c] of configs.entries()) {
        if (skipped.has(c.gc)) continue;
        const what = round <= warmup ? `warm-up ${round}/${warmup}` : `run ${round - warmup}/${repeat}`;
        progress.show(`[${i + 1}/${configs.length}] ${runLabel({ collector: c.gc, layout: c.layout, heapBytes: c.heapBytes }, sweep)} ${what}`);
        const one = await runOne(c.gc, c.layout, c.heapBytes);
        if (probeOutcome(one) === 'unavailable') {
          const code = unavailable(c.gc, one);
          if (code !== undefined) return { exitCode: code };
          continue;
        }
        if (round > warmup) c.runs.push(one);
      }
    }
  } finally {
    progress.done();
  }
  const ran = configs.filter((c) => !skipped.has(c.gc));
  const adapter = [...ran.flatMap((c) => c.runs), ...minRuns.map((m) => m.run)].find((r) => r.stats?.gpu)?.stats?.gpu?.adapter ?? null;
  const result: CompareResult = {
    file: cmd.file, repeat, warmup,
    provenance: provenance({
      argv: [...cmd.argv], mode: inProcess ? 'in process' : 'fresh process', warmup, heapBytes: cmd.run.heapBytes, adapter,
    }),
    heaps: heaps ?? null, minHeaps: minHeap || heaps?.kind === 'multiples' ? minHeaps : null,
    runs: [], skipped: [...skipped].map(([collector, reason]) => ({ collector, layout: 'all', reason })),
    comparedRuns: 0, outputIdentical: true, difference: null,
  };
  const outputs: CapturedOutput[] = minRuns.map((m) => ({ label: m.label, stdout: m.run.stdout, exitCode: m.run.exitCode }));
  for (const c of ran) {
    const row = toRow(c);
    result.runs.push(row);
    // `none` never collects, and a sweep tries heaps too small on purpose: running out
    // of memory there is the expected limit, not a difference.
    if ((c.gc === 'none' || sweep) && row.status === 'out of memory') continue;
    c.runs.forEach((one, i) =>
      outputs.push({ label: `${runLabel(row, sweep)}${repeat > 1 ? ` run ${i + 1}` : ''}`, stdout: one.stdout, exitCode: one.exitCode }),
    );
  }
  result.comparedRuns = outputs.length;
  const check = compareOutputs(outputs);
  if (!check.identical) {
    result.outputIdentical = false;
    result.difference = check.diff;
  }
  return { exitCode: result.outputIdentical ? EXIT.ok : EXIT.runtime, result };
}

/** Text output: the table, the equality line, notes on skipped and out-of-memory runs. */
export function formatComparison(r: CompareResult): string {
  const t = compareTable(r);
  const sweep = r.heaps !== null;
  const mode = r.provenance.mode === 'fresh process' ? 'each run in a fresh process' : 'all runs in one process';
  const lines: string[] = [];
  if (r.minHeaps !== null) {
    const m = minHeapTable(r.minHeaps);
    lines.push(`${r.file}: minimum heap of ${r.minHeaps.length} configurations (bisection to 1%, at least 4K; one run per heap tried, ${mode})`);
    lines.push(formatTextTable(m.header, m.rows));
  }
  if (r.runs.length > 0) {
    lines.push(
      `${r.file}: ${r.runs.length} configurations${r.repeat > 1 ? `, medians (min-max) of ${r.repeat} runs each` : ''}` +
        `${r.warmup > 0 ? ` after ${r.warmup} warm-up runs` : ''}, ${mode}, rounds interleaved`,
      formatTextTable(t.header, t.rows),
    );
  }
  if (r.outputIdentical) {
    lines.push(r.comparedRuns > 0 ? `output identical across ${r.comparedRuns} runs` : 'no completed runs to compare output of');
  } else {
    lines.push(`output differs (see stderr)`);
  }
  for (const run of r.runs) {
    if (run.status === 'out of memory' && run.collector === 'none') {
      lines.push(`note: ${runLabel(run, sweep)} ran out of memory (it never collects); excluded from the output check`);
    } else if (run.status === 'out of memory' && sweep) {
      lines.push(`note: ${runLabel(run, sweep)} ran out of memory (the heap is too small for it); excluded from the output check`);
    } else if (run.status !== 'ok') {
      lines.push(`note: ${runLabel(run, sweep)} ended with exit status ${run.exitCode} (${run.status})`);
    }
  }
  for (const run of r.runs) {
    if (!run.auto) continue;
    const per = r.repeat > 1 ? ` over ${r.repeat} runs` : '';
    lines.push(
      `${runLabel(run, sweep)}: ${formatAutoChoices(run.auto.choices).replace(/^auto: /, '')}${per}; ` +
        `median prediction error ${(run.auto.medianError * 100).toFixed(1)}%`,
    );
  }
  for (const run of r.runs) {
    const g = run.gpu;
    if (!g || g.minLiveBytes === 0) continue;
    const per = r.repeat > 1 ? ` over ${r.repeat} runs` : '';
    lines.push(
      `${runLabel(run, sweep)}: ${g.collections - g.cpuCollections} of ${g.collections} collections on the GPU${per}, ` +
        `${g.cpuCollections} on the CPU (predicted under --gpu-min-live ${formatBytes(g.minLiveBytes)})`,
    );
  }
  if (r.heaps?.kind === 'multiples') {
    for (const m of r.minHeaps ?? []) {
      if (m.minHeapBytes === null) lines.push(`note: ${m.collector}/${m.layout} has no minimum heap (${m.status}), so it has no runs at multiples of it`);
    }
  }
  for (const s of r.skipped) lines.push(`note: skipped ${s.collector} (not requested explicitly): ${s.reason}`);
  const idle = r.runs.filter((run) => run.status === 'ok' && run.collector !== 'none' && run.youngCollections + run.fullCollections === 0);
  if (idle.length > 0) {
    lines.push(
      `note: ${idle.map((run) => runLabel(run, sweep)).join(', ')} never collected at ${sweep ? 'that heap' : `this heap (${formatBytes(r.provenance.heapBytes)})`}` +
        `: the GC columns are zeros; use a smaller --heap or --gc-stress N to measure collections`,
    );
  }
  for (const run of r.runs) {
    for (const i of run.outliers) {
      lines.push(`note: ${runLabel(run, sweep)} run ${i}: wall ${run.samples['wallMs']![i - 1]!.toFixed(2)} ms is an outlier (outside Tukey's fences)`);
    }
  }
  return lines.join('\n') + '\n';
}

/** The `compare` command. */
export async function compareCommand(cmd: Command, source: string, io: Io, deps: CommandDeps = {}): Promise<number> {
  const { exitCode, result } = await runComparison(cmd, source, io, deps);
  if (result === undefined) return exitCode;
  if (cmd.compare.json) io.stdout(JSON.stringify(result, null, 2) + '\n');
  else io.stdout(formatComparison(result));
  if (!result.outputIdentical) io.stderr(`minivm: compare: the runs printed different output\n${result.difference}\n`);
  if (cmd.compare.report !== undefined) {
    const csv = writeCompareReport(cmd.compare.report, result, compareTable(result));
    io.stderr(`report written to ${cmd.compare.report} and ${csv}\n`);
  }
  return exitCode;
}
