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
import { compileSource, EXIT, type Io, type TimedRunStats } from './run.js';
import { runInChild, runInProcess, type OneRun } from './compare-runs.js';
import { provenance } from './provenance.js';
import { formatBytes } from '../heap/telemetry.js';
import { writeCompareReport } from './report.js';
import type { CompareResult, CompareRun, RunStatus } from './results.js';
import { formatTextTable, Progress, type CommandDeps } from './text.js';
import { isDawnLine } from './dawn-filter.js';
import { formatAutoChoices } from '../collectors/index.js';

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

function toRow(gc: CollectorName, layout: LayoutName, runs: OneRun[]): CompareRun {
  const first = runs[0]!;
  const oom = first.exitCode === EXIT.runtime && /out of memory/.test(first.stderr);
  const status: RunStatus = first.exitCode === EXIT.ok ? 'ok' : oom ? 'out of memory' : 'runtime error';
  const stats = runs.map((r) => r.stats).filter((s): s is TimedRunStats => s !== undefined);
  const row = { collector: gc, layout, status, exitCode: first.exitCode, repeats: runs.length } as CompareRun;
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
    'collector', 'layout', 'wall ms', 'mutator ms', 'young', 'full', 'pause ms', 'max ms', 'p95 ms',
    'mark ms', 'transfer ms', 'promoted', 'peak heap',
  ];
  const ms = (x: number): string => x.toFixed(2);
  const count = (x: number): string => (Number.isInteger(x) ? String(x) : x.toFixed(1));
  // The median, and with repeats the range it sits in.
  const spread = (run: CompareRun, f: 'wallMs' | 'mutatorMs' | 'totalPauseMs' | 'maxPauseMs'): string =>
    run.repeats > 1 && run.min[f] !== undefined ? `${ms(run[f])} (${ms(run.min[f]!)}-${ms(run.max[f]!)})` : ms(run[f]);
  const rows = r.runs.map((run) => {
    if (run.status === 'out of memory') return [run.collector, run.layout, 'out of memory', ...new Array<string>(header.length - 3).fill('-')];
    return [
      run.collector, run.layout, spread(run, 'wallMs'), spread(run, 'mutatorMs'), count(run.youngCollections), count(run.fullCollections),
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
  runs: OneRun[];
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
  const program = compileSource(cmd.file, source, io);
  if (!program) return { exitCode: EXIT.compile };
  const explicitGc = cmd.compare.gcs.length > 0;
  const gcs = explicitGc ? cmd.compare.gcs : [...COLLECTOR_NAMES];
  const layouts = cmd.compare.layouts.length > 0 ? cmd.compare.layouts : [...LAYOUT_NAMES];
  const { repeat, warmup, inProcess } = cmd.compare;
  const rounds = warmup + repeat;
  const configs: Config[] = gcs.flatMap((gc) => layouts.map((layout) => ({ gc, layout, runs: [] })));
  const progress = new Progress(io, deps.progress ?? false);
  const skipped = new Map<CollectorName, string>();
  try {
    for (let round = 1; round <= rounds; round++) {
      for (const [i, c] of configs.entries()) {
        if (skipped.has(c.gc)) continue;
        const what = round <= warmup ? `warm-up ${round}/${warmup}` : `run ${round - warmup}/${repeat}`;
        progress.show(`[${i + 1}/${configs.length}] ${c.gc}/${c.layout} ${what}`);
        const options = { ...cmd.run, gc: c.gc, layout: c.layout };
        const one = inProcess ? await runInProcess(program, options) : await runInChild(cmd.file, options);
        if (one.exitCode === EXIT.usage || one.exitCode === EXIT.noGpu) {
          // The collector cannot run here (no GPU library or adapter, or refused as a usage error).
          if (explicitGc) {
            progress.done();
            io.stderr(one.stderr);
            return { exitCode: one.exitCode };
          }
          // The run inherits the filtered mark (dawn-filter.ts), so Dawn's lines may precede minivm's.
          const reason = one.stderr.split('\n').find((l) => l.trim() !== '' && !isDawnLine(l)) ?? '';
          skipped.set(c.gc, reason.replace(/^minivm: /, ''));
          continue;
        }
        if (round > warmup) c.runs.push(one);
      }
    }
  } finally {
    progress.done();
  }
  const ran = configs.filter((c) => !skipped.has(c.gc));
  const adapter = ran.flatMap((c) => c.runs).find((r) => r.stats?.gpu)?.stats?.gpu?.adapter ?? null;
  const result: CompareResult = {
    file: cmd.file, repeat, warmup,
    provenance: provenance({
      argv: [...cmd.argv], mode: inProcess ? 'in process' : 'fresh process', warmup, heapBytes: cmd.run.heapBytes, adapter,
    }),
    runs: [], skipped: [...skipped].map(([collector, reason]) => ({ collector, layout: 'all', reason })),
    comparedRuns: 0, outputIdentical: true, difference: null,
  };
  const outputs: CapturedOutput[] = [];
  for (const c of ran) {
    const row = toRow(c.gc, c.layout, c.runs);
    result.runs.push(row);
    // `none` never collects: running out of memory is its expected limit, not a difference.
    if (c.gc === 'none' && row.status === 'out of memory') continue;
    c.runs.forEach((one, i) =>
      outputs.push({ label: `${c.gc}/${c.layout}${repeat > 1 ? ` run ${i + 1}` : ''}`, stdout: one.stdout, exitCode: one.exitCode }),
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
  const lines = [
    `${r.file}: ${r.runs.length} configurations${r.repeat > 1 ? `, medians (min-max) of ${r.repeat} runs each` : ''}` +
      `${r.warmup > 0 ? ` after ${r.warmup} warm-up runs` : ''}, ${r.provenance.mode === 'fresh process' ? 'each run in a fresh process' : 'all runs in one process'}, rounds interleaved`,
    formatTextTable(t.header, t.rows),
  ];
  if (r.outputIdentical) {
    lines.push(r.comparedRuns > 0 ? `output identical across ${r.comparedRuns} runs` : 'no completed runs to compare output of');
  } else {
    lines.push(`output differs (see stderr)`);
  }
  for (const run of r.runs) {
    if (run.status === 'out of memory' && run.collector === 'none') {
      lines.push(`note: ${run.collector}/${run.layout} ran out of memory (it never collects); excluded from the output check`);
    } else if (run.status !== 'ok') {
      lines.push(`note: ${run.collector}/${run.layout} ended with exit status ${run.exitCode} (${run.status})`);
    }
  }
  for (const run of r.runs) {
    if (!run.auto) continue;
    const per = r.repeat > 1 ? ` over ${r.repeat} runs` : '';
    lines.push(
      `${run.collector}/${run.layout}: ${formatAutoChoices(run.auto.choices).replace(/^auto: /, '')}${per}; ` +
        `median prediction error ${(run.auto.medianError * 100).toFixed(1)}%`,
    );
  }
  for (const s of r.skipped) lines.push(`note: skipped ${s.collector} (not requested explicitly): ${s.reason}`);
  const idle = r.runs.filter((run) => run.status === 'ok' && run.collector !== 'none' && run.youngCollections + run.fullCollections === 0);
  if (idle.length > 0) {
    lines.push(
      `note: ${idle.map((run) => `${run.collector}/${run.layout}`).join(', ')} never collected at this heap ` +
        `(${formatBytes(r.provenance.heapBytes)}): the GC columns are zeros; use a smaller --heap or --gc-stress N to measure collections`,
    );
  }
  for (const run of r.runs) {
    for (const i of run.outliers) {
      lines.push(`note: ${run.collector}/${run.layout} run ${i}: wall ${run.samples['wallMs']![i - 1]!.toFixed(2)} ms is an outlier (outside Tukey's fences)`);
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
