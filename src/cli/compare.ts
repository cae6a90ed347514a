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

import { writeFileSync } from 'node:fs';
import { COLLECTOR_NAMES, LAYOUT_NAMES, type CollectorName, type Command, type LayoutName } from './args.js';
import { compileSource, EXIT, runProgram, type Io } from './run.js';
import type { RunStats } from '../collectors/index.js';
import { formatBytes } from '../heap/telemetry.js';
import { compareReport } from './report.js';

/** One collection of a run, as plotted: times in ms since the run started. */
export interface CollectionPoint {
  number: number;
  kind: 'young' | 'full';
  cause: string;
  startMs: number;
  endMs: number;
  pauseMs: number;
  usedBefore: number;
  usedAfter: number;
}

export type RunStatus = 'ok' | 'out of memory' | 'runtime error';

/** The run statistics a comparison row reports (medians over its repeats). */
type RowFigures = Omit<RunStats, 'collector' | 'layout' | 'heapBytes' | 'refGraph' | 'gpu' | 'collections'>;

/** One row of the comparison: a collector and layout, medians over its repeats. */
export interface CompareRun extends RowFigures {
  collector: CollectorName;
  layout: LayoutName;
  status: RunStatus;
  exitCode: number;
  repeats: number;
  /** The collections of the run whose wall time is the median one. */
  collections: CollectionPoint[];
}

export interface CompareResult {
  file: string;
  repeat: number;
  runs: CompareRun[];
  skipped: Array<{ collector: string; layout: string; reason: string }>;
  /** Runs whose output took part in the equality check (out-of-memory `none` runs do not). */
  comparedRuns: number;
  outputIdentical: boolean;
  /** When outputs differ: the first differing lines, diff-style. */
  difference: string | null;
}

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

interface OneRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  stats: RunStats | undefined;
  /** End of each collection, ms since the run started (from the --log-gc lines). */
  ends: number[];
}

async function runOnce(program: Parameters<typeof runProgram>[0], cmd: Command, gc: CollectorName, layout: LayoutName): Promise<OneRun> {
  let stdout = '';
  let stderr = '';
  const ends: number[] = [];
  const t0 = performance.now();
  const io: Io = {
    stdout: (t) => (stdout += t),
    stderr: (t) => {
      // Collections announce their end through the log line: take its time, drop the text.
      if (t.startsWith('[gc ')) ends.push(performance.now() - t0);
      else stderr += t;
    },
  };
  const options = { ...cmd.run, gc, layout, logGc: true };
  const outcome = await runProgram(program, options, io);
  return { exitCode: outcome.exitCode, stdout, stderr, stats: outcome.stats, ends };
}

function toRow(gc: CollectorName, layout: LayoutName, runs: OneRun[]): CompareRun {
  const first = runs[0]!;
  const oom = first.exitCode === EXIT.runtime && /out of memory/.test(first.stderr);
  const status: RunStatus = first.exitCode === EXIT.ok ? 'ok' : oom ? 'out of memory' : 'runtime error';
  const stats = runs.map((r) => r.stats).filter((s): s is RunStats => s !== undefined);
  const row = { collector: gc, layout, status, exitCode: first.exitCode, repeats: runs.length } as CompareRun;
  for (const f of MEDIAN_FIELDS) row[f] = median(stats.map((s) => s[f]));
  // The plots show one real run, not a blend: the one nearest the median wall time.
  let rep = runs[0]!;
  for (const r of runs) {
    if (r.stats && Math.abs(r.stats.wallMs - row.wallMs) < Math.abs((rep.stats?.wallMs ?? Infinity) - row.wallMs)) rep = r;
  }
  row.collections = (rep.stats?.collections ?? []).map((c, i) => {
    const end = rep.ends[i] ?? 0;
    return {
      number: c.number, kind: c.kind, cause: c.cause, startMs: Math.max(0, end - c.pauseMs - c.phases.verify),
      endMs: end, pauseMs: c.pauseMs, usedBefore: c.usedBefore, usedAfter: c.usedAfter,
    };
  });
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
  const rows = r.runs.map((run) => {
    if (run.status === 'out of memory') return [run.collector, run.layout, 'out of memory', ...new Array<string>(header.length - 3).fill('-')];
    return [
      run.collector, run.layout, ms(run.wallMs), ms(run.mutatorMs), count(run.youngCollections), count(run.fullCollections),
      ms(run.totalPauseMs), ms(run.maxPauseMs), ms(run.p95PauseMs), ms(run.markMs), ms(run.transferMs),
      formatBytes(run.bytesPromoted), formatBytes(run.peakHeapBytes),
    ];
  });
  return { header, rows };
}

/** Columns padded to their widest cell: names left-aligned, numbers right-aligned. */
export function formatTextTable(header: string[], rows: string[][], leftColumns = 2): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells.map((c, i) => (i < leftColumns ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** Progress on a terminal: one line rewritten in place with \r, cleared at the end. */
export class Progress {
  constructor(private readonly io: Io, private readonly enabled: boolean) {}
  show(text: string): void {
    if (this.enabled) this.io.stderr(`\r${text}\x1b[K`);
  }
  done(): void {
    if (this.enabled) this.io.stderr('\r\x1b[K');
  }
}

export interface CompareDeps {
  /** Show progress on stderr (the CLI passes whether stderr is a terminal). */
  progress?: boolean;
}

/** Runs the comparison; returns the exit status and, unless a run was fatal, the result. */
export async function runComparison(
  cmd: Command,
  source: string,
  io: Io,
  deps: CompareDeps = {},
): Promise<{ exitCode: number; result?: CompareResult }> {
  const program = compileSource(cmd.file, source, io);
  if (!program) return { exitCode: EXIT.compile };
  const explicitGc = cmd.compare.gcs.length > 0;
  const explicitLayout = cmd.compare.layouts.length > 0;
  const gcs = explicitGc ? [...new Set(cmd.compare.gcs)] : [...COLLECTOR_NAMES];
  const layouts = explicitLayout ? [...new Set(cmd.compare.layouts)] : [...LAYOUT_NAMES];
  const repeat = cmd.compare.repeat;
  const total = gcs.length * layouts.length;
  const progress = new Progress(io, deps.progress ?? false);
  const result: CompareResult = {
    file: cmd.file, repeat, runs: [], skipped: [], comparedRuns: 0, outputIdentical: true, difference: null,
  };
  const outputs: CapturedOutput[] = [];
  let index = 0;
  try {
    for (const gc of gcs) {
      let unavailable: string | undefined;
      for (const layout of layouts) {
        index++;
        if (unavailable !== undefined) continue;
        const runs: OneRun[] = [];
        for (let r = 1; r <= repeat; r++) {
          progress.show(`[${index}/${total}] ${gc}/${layout} run ${r}/${repeat}`);
          const one = await runOnce(program, cmd, gc, layout);
          if (one.exitCode === EXIT.usage || one.exitCode === EXIT.noGpu) {
            // The collector cannot run here (no GPU adapter, or refused as a usage error).
            if (explicitGc) {
              progress.done();
              io.stderr(one.stderr);
              return { exitCode: one.exitCode };
            }
            unavailable = one.stderr.trim().replace(/^minivm: /, '');
            result.skipped.push({ collector: gc, layout: 'all', reason: unavailable });
            break;
          }
          runs.push(one);
        }
        if (unavailable !== undefined) continue;
        const row = toRow(gc, layout, runs);
        result.runs.push(row);
        // `none` never collects: running out of memory is its expected limit, not a difference.
        if (gc === 'none' && row.status === 'out of memory') continue;
        runs.forEach((one, i) =>
          outputs.push({ label: `${gc}/${layout}${repeat > 1 ? ` run ${i + 1}` : ''}`, stdout: one.stdout, exitCode: one.exitCode }),
        );
      }
    }
  } finally {
    progress.done();
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
    `${r.file}: ${r.runs.length} configurations${r.repeat > 1 ? `, medians of ${r.repeat} runs each` : ''}`,
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
  for (const s of r.skipped) lines.push(`note: skipped ${s.collector} (not requested explicitly): ${s.reason}`);
  return lines.join('\n') + '\n';
}

/** The `compare` command. */
export async function compareCommand(cmd: Command, source: string, io: Io, deps: CompareDeps = {}): Promise<number> {
  const { exitCode, result } = await runComparison(cmd, source, io, deps);
  if (result === undefined) return exitCode;
  if (cmd.compare.json) io.stdout(JSON.stringify(result, null, 2) + '\n');
  else io.stdout(formatComparison(result));
  if (!result.outputIdentical) io.stderr(`minivm: compare: the runs printed different output\n${result.difference}\n`);
  if (cmd.compare.report !== undefined) {
    writeFileSync(cmd.compare.report, compareReport(result, compareTable(result)));
    io.stderr(`report written to ${cmd.compare.report}\n`);
  }
  return exitCode;
}
