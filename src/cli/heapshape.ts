/**
 * `minivm heapshape FILE [--gc NAME] [--layout NAME] [--json] [--report F]`: runs the
 * program and, at every collection (young, full, gc() and minorGc() calls alike),
 * analyses the shape of the reachable heap as Maas et al. section 3 does: objects per
 * BFS depth from the roots and the out-degree distribution (gc/heap-shape.ts), with
 * a one-line verdict per snapshot on whether the heap suits GPU marking.
 *
 * The analysis is hooked in by wrapping the collector's marker in a ShapeMarker
 * (runProgram's `wrapMarker` hook), so every collection of the run is analysed exactly
 * when it happens, with the heap as the collector sees it. Faults are reported as
 * `run` reports them. The program's own output is not shown.
 */

import type { Command } from './args.js';
import { EXIT, loadProgram, runProgram, type Io, type RunOutcome } from './run.js';
import type { Marker } from '../gc/index.js';
import { NARROW_THRESHOLD, OUT_DEGREE_BINS, ShapeMarker, shapeVerdict, type GpuSizeThreshold } from '../gc/heap-shape.js';
import { defaultPriors, ENGINES, isGpu } from '../collectors/pause-model.js';
import type { HeapImpl } from '../heap/index.js';
import { formatTextTable, Progress, type CommandDeps } from './text.js';
import { heapshapeReport } from './report.js';
import { writeOutputFile } from './output-file.js';
import type { HeapshapeResult, HeapshapeSnapshot } from './results.js';
import { provenance } from './provenance.js';

export type { HeapshapeResult, HeapshapeSnapshot } from './results.js';

/** A per-word cost in ms as nanoseconds, for the verdict's text. */
const ns = (msPerWord: number): string => String(Number((msPerWord * 1e6).toPrecision(3)));

/**
 * The live size under which even the cheapest GPU mark takes longer than a serial CPU
 * mark: where the two lines (fixed + per word) of the pause model's defaults for a
 * hardware adapter cross. The GPU's line is its mark with nothing to upload, its most
 * favourable case, so a heap under this size is too small for any GPU.
 */
export function gpuSizeThreshold(): GpuSizeThreshold {
  const mark = defaultPriors(1, 'hardware').mark;
  const cpu = mark.serial;
  let best: GpuSizeThreshold = { words: Infinity, why: 'no GPU engine marks a word faster than the CPU', derivation: '' };
  for (const engine of ENGINES.filter(isGpu)) {
    const gpu = mark[engine];
    if (gpu.perUnit >= cpu.perUnit) continue;
    const words = Math.ceil((gpu.fixed - cpu.fixed) / (cpu.perUnit - gpu.perUnit));
    if (words >= best.words) continue;
    best = {
      words,
      why: `where ${engine}'s fixed ${gpu.fixed} ms per mark outweighs the serial CPU marking it saves`,
      derivation:
        `${engine}: ${gpu.fixed} ms + ${ns(gpu.perUnit)} ns/word with nothing to upload, against serial's ` +
        `${cpu.fixed} ms + ${ns(cpu.perUnit)} ns/word (the pause model's defaults for a hardware GPU)`,
    };
  }
  return best;
}

/** Runs the program with every collection analysed. */
export async function runHeapshape(
  cmd: Command,
  source: string,
  io: Io,
  deps: CommandDeps = {},
): Promise<{ exitCode: number; result?: HeapshapeResult }> {
  const options = { ...cmd.run, logGc: false };
  if (options.gc === 'none') {
    io.stderr(`minivm: heapshape needs a collector that collects (--gc none never does; the default is serial)\n`);
    return { exitCode: EXIT.usage };
  }
  const program = (await loadProgram(cmd.file, source, io))?.program;
  if (!program) return { exitCode: EXIT.compile };
  const progress = new Progress(io, deps.progress ?? false);
  let shapes: ShapeMarker | undefined;
  // The collector's own engine, wrapped: the wrapper looks at the heap first, then
  // lets the engine trace; the plan disposes the wrapper, which disposes the engine.
  const wrapMarker = (engine: Marker, heap: HeapImpl): Marker => {
    const marker = new ShapeMarker(heap, engine, NARROW_THRESHOLD, true, () =>
      progress.show(`heapshape ${cmd.file}: collection ${marker.snapshots.length + 1}`),
    );
    shapes = marker;
    return marker;
  };
  const quiet: Io = { stdout: () => {}, stderr: (t) => io.stderr(t) };
  let outcome: RunOutcome;
  try {
    outcome = await runProgram(program, options, quiet, { wrapMarker });
  } finally {
    progress.done();
  }
  const { exitCode, stats } = outcome;
  // No statistics: the run never got going (usage, no GPU) or --verify-gc failed;
  // runProgram has said why. A runtime error of the program still has its snapshots.
  if (stats === undefined) return { exitCode };
  const causes = new Map(stats.collections.map((c) => [c.number, c]));
  const minSize = gpuSizeThreshold();
  const snapshots: HeapshapeSnapshot[] = (shapes?.snapshots ?? []).map((s) => {
    const rec = causes.get(s.collection);
    const { widths, outDegree, ...shape } = s.shape;
    return {
      collection: s.collection,
      kind: rec?.kind ?? s.kind,
      cause: rec?.cause ?? '?',
      objects: shape.objects,
      words: shape.words,
      edges: shape.edges,
      depth: shape.depth,
      maxWidth: shape.maxWidth,
      maxWidthDepth: shape.maxWidthDepth,
      tailLevels: shape.tailLevels,
      longestNarrowRun: shape.longestNarrowRun,
      maxOutDegree: shape.maxOutDegree,
      outDegree,
      widths,
      verdict: shapeVerdict(s.shape, minSize),
    };
  });
  return {
    exitCode,
    result: {
      file: cmd.file,
      collector: options.gc,
      layout: options.layout,
      narrowThreshold: NARROW_THRESHOLD,
      gpuMinWords: minSize.words,
      outDegreeBins: OUT_DEGREE_BINS.map((b) => b.label),
      exitCode,
      snapshots,
      provenance: provenance({
        argv: [...cmd.argv], mode: 'in process', warmup: 0, heapBytes: options.heapBytes, adapter: stats.gpu?.adapter ?? null,
      }),
    },
  };
}

/** Widths per depth, run-length encoded: "3 1 256x200 1" (at most `max` runs shown). */
export function widthProfile(widths: number[], max = 14): string {
  const runs: Array<[number, number]> = [];
  for (const w of widths) {
    const last = runs[runs.length - 1];
    if (last !== undefined && last[0] === w) last[1]++;
    else runs.push([w, 1]);
  }
  const shown = runs.slice(0, max).map(([w, n]) => (n === 1 ? String(w) : `${w}x${n}`));
  if (runs.length > max) {
    const rest = runs.slice(max).reduce((t, [, n]) => t + n, 0);
    shown.push(`... (${rest} more levels)`);
  }
  return shown.join(' ');
}

export function heapshapeTable(r: HeapshapeResult): { header: string[]; rows: string[][] } {
  const header = [
    'gc', 'kind', 'cause', 'objects', 'words', 'edges', 'depth', 'max width', 'at depth', `tail <${r.narrowThreshold}`,
    'narrow run', ...r.outDegreeBins.map((b) => `deg ${b}`),
  ];
  const rows = r.snapshots.map((s) => [
    String(s.collection), s.kind, s.cause, String(s.objects), String(s.words), String(s.edges), String(s.depth), String(s.maxWidth),
    String(s.maxWidthDepth), String(s.tailLevels), String(s.longestNarrowRun), ...s.outDegree.map(String),
  ]);
  return { header, rows };
}

export function formatHeapshape(r: HeapshapeResult): string {
  const t = heapshapeTable(r);
  const lines = [
    `heap shape of ${r.file} under ${r.collector}/${r.layout}: ${r.snapshots.length} snapshots ` +
      `(BFS from the roots; a level is narrow under ${r.narrowThreshold} objects; deg N: objects with N non-null references)`,
  ];
  if (r.snapshots.length === 0) {
    lines.push('no collections happened (call gc() in the program, or use a smaller --heap or --gc-stress N)');
    return lines.join('\n') + '\n';
  }
  lines.push(formatTextTable(t.header, t.rows, 3));
  lines.push('', 'objects per BFS depth (run-length: WIDTHxLEVELS)');
  for (const s of r.snapshots) lines.push(`  gc ${s.collection}: ${widthProfile(s.widths)}`);
  lines.push('', `verdicts (Maas et al. section 3; under ${r.gpuMinWords.toLocaleString('en-US')} live words a heap is too small: ${gpuSizeThreshold().derivation})`);
  for (const s of r.snapshots) lines.push(`  gc ${s.collection}: ${s.verdict.text}`);
  return lines.join('\n') + '\n';
}

/** The `heapshape` command. */
export async function heapshapeCommand(cmd: Command, source: string, io: Io, deps: CommandDeps = {}): Promise<number> {
  const { exitCode, result } = await runHeapshape(cmd, source, io, deps);
  if (result === undefined) return exitCode;
  if (cmd.compare.json) io.stdout(JSON.stringify(result) + '\n');
  else io.stdout(formatHeapshape(result));
  if (cmd.compare.report !== undefined) {
    writeOutputFile(cmd.compare.report, heapshapeReport(result, heapshapeTable(result)));
    io.stderr(`report written to ${cmd.compare.report}\n`);
  }
  return exitCode;
}
