/**
 * Memory set-up for one run: the heap with its layout and the chosen collector, the
 * GPU markers registered for `gpu-dfs` / `gpu-bfs` (the CLI is the one place that
 * sees both gc/ and gpu/), and the run's statistics for `--stats`, `--json-stats`
 * and `compare`.
 */

import { createCollector, registerMarker } from '../gc/index.js';
import { ParallelMarker } from '../gc/parallel-marker.js';
import { createHeap, formatGcRecord, formatGcStats, type GcRecord, type HeapImpl } from '../heap/index.js';
import { currentGpu, describeGpu, destroyGpu, GpuMarker, NoGpuAdapterError, openGpu, parseGpuOptions } from '../gpu/index.js';
import { AutoMarker } from './auto-marker.js';
import type { CollectorName, RunOptions } from './args.js';
import { UsageError } from './args.js';

export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** Statistics of one run; the JSON field names are documented in docs/cli.md. */
export interface RunStats {
  collector: CollectorName;
  layout: string;
  heapBytes: number;
  wallMs: number;
  mutatorMs: number;
  gcMs: number;
  youngCollections: number;
  fullCollections: number;
  totalPauseMs: number;
  maxPauseMs: number;
  p95PauseMs: number;
  markMs: number;
  transferMs: number;
  bytesAllocated: number;
  bytesPromoted: number;
  peakHeapBytes: number;
  refGraph: { graphBytes: number; edgeWrites: number; vertexAppends: number; maintenanceMs: number } | null;
  gpu: { adapter: string; vendor: string; options: string } | null;
  collections: GcRecord[];
}

export interface Memory {
  readonly heap: HeapImpl;
  finish(wallMs: number): RunStats;
  dispose(): Promise<void>;
}

export function isNoGpuError(e: unknown): boolean {
  return e instanceof NoGpuAdapterError;
}

let gpuRegistered = false;
let gpuMarkerOptions: { gpuOpt: string; benchmark: boolean } = { gpuOpt: 'all', benchmark: false };
const liveGpuMarkers: GpuMarker[] = [];

/** Registers the GPU engines as collectors; each run reads its own --gpu-opt. */
function registerGpuCollectors(): void {
  if (gpuRegistered) return;
  gpuRegistered = true;
  for (const engine of ['gpu-dfs', 'gpu-bfs'] as const) {
    registerMarker(engine, (heap) => {
      const marker = new GpuMarker({
        engine,
        // The mirror on the GPU is brought up to date with only what changed since
        // the last collection (allocations, stores into tenured, moved objects).
        input: heap.graph
          ? { layout: 'refgraph', words: heap.words, graphs: () => heap.graph!, takeDirtyGraphs: () => heap.graph!.takeDirtyGraphs() }
          : { layout: 'sable', words: heap.words, takeDirtyRanges: () => heap.takeDirtyRanges() },
        options: gpuMarkerOptions.gpuOpt,
        benchmark: gpuMarkerOptions.benchmark,
      });
      liveGpuMarkers.push(marker);
      return marker;
    });
  }
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export async function createMemory(options: RunOptions, io: Io): Promise<Memory> {
  // auto: the engine of each collection goes into its record (and --log-gc line).
  let autoMarker: AutoMarker | null = null;
  if (options.gc === 'auto') {
    try {
      parseGpuOptions(options.gpuOpt, 'gpu-dfs');
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    const { threads, gpuOpt, gpuBenchmark } = options;
    registerMarker('auto', (heap) => (autoMarker = new AutoMarker(heap, {
      threads,
      probeGpu: async () => !(await openGpu({ benchmark: gpuBenchmark })).adapter.software,
      gpuMarker: () => new GpuMarker({
        engine: 'gpu-dfs',
        input: heap.graph
          ? { layout: 'refgraph', words: heap.words, graphs: () => heap.graph!, takeDirtyGraphs: () => heap.graph!.takeDirtyGraphs() }
          : { layout: 'sable', words: heap.words, takeDirtyRanges: () => heap.takeDirtyRanges() },
        options: gpuOpt,
        benchmark: gpuBenchmark,
      }),
    })));
  }
  if (options.gc === 'parallel') {
    // Each run gets its own --threads (default: every available core, at least 2).
    const threads = options.threads;
    registerMarker('parallel', (heap) => new ParallelMarker(heap, threads));
  }
  const records: GcRecord[] = [];
  let peak = 0;
  let heap: HeapImpl;
  try {
    heap = createHeap({
      heapBytes: options.heapBytes,
      youngBytes: options.youngBytes,
      survivorRatio: options.survivorRatio,
      tenureAge: options.tenureAge,
      layout: options.layout,
      gcStress: options.gcStress,
      verifyGc: options.verifyGc,
      logGc: (line, record) => {
        if (autoMarker !== null) {
          record.collector = autoMarker.name;
          line = formatGcRecord(record);
        }
        records.push(record);
        peak = Math.max(peak, record.usedBefore);
        if (options.logGc) io.stderr(line + '\n');
      },
    });
  } catch (e) {
    // Sizes the heap cannot be laid out with (or memory the process cannot get) are
    // mistakes on the command line, not faults of the program.
    throw new UsageError(`cannot set up the heap: ${(e as Error).message}`);
  }
  const gpu = options.gc === 'gpu-dfs' || options.gc === 'gpu-bfs';
  if (gpu) {
    try {
      parseGpuOptions(options.gpuOpt, options.gc as 'gpu-dfs' | 'gpu-bfs');
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    registerGpuCollectors();
    gpuMarkerOptions = { gpuOpt: options.gpuOpt, benchmark: options.gpuBenchmark };
  }
  const collector = createCollector(options.gc, heap);
  return {
    heap,
    finish(wallMs: number): RunStats {
      const s = heap.stats;
      const pauses = records.map((r) => r.pauseMs);
      const gcMs = records.reduce((t, r) => t + r.pauseMs + r.phases.verify, 0);
      const marker = gpu ? liveGpuMarkers[liveGpuMarkers.length - 1] : undefined;
      const ctx = gpu ? currentGpu() : null;
      return {
        collector: options.gc,
        layout: options.layout,
        heapBytes: options.heapBytes,
        wallMs,
        mutatorMs: wallMs - gcMs,
        gcMs,
        youngCollections: s.youngCollections,
        fullCollections: s.fullCollections,
        totalPauseMs: s.totalPauseMs,
        maxPauseMs: s.maxPauseMs,
        p95PauseMs: percentile(pauses, 95),
        markMs: records.reduce((t, r) => t + r.phases.mark, 0),
        transferMs: records.reduce((t, r) => t + (r.marker.upload ?? 0) + (r.marker.readback ?? 0), 0),
        bytesAllocated: s.bytesAllocated,
        bytesPromoted: s.bytesPromoted,
        peakHeapBytes: Math.max(peak, heap.usedBytes()),
        refGraph: options.layout === 'refgraph' ? { ...s.layout } : null,
        gpu: ctx && marker
          ? { adapter: describeGpu(ctx), vendor: ctx.adapter.vendor, options: marker.lastStats?.label ?? options.gpuOpt }
          : null,
        collections: records,
      };
    },
    async dispose(): Promise<void> {
      collector.dispose();
      liveGpuMarkers.length = 0;
    },
  };
}

/** Destroys the GPU device, if one was opened; the CLI calls it before exiting. */
export function releaseGpu(): void {
  destroyGpu();
}

/** The `--stats` summary. */
export function formatStats(s: RunStats): string {
  const ms = (x: number): string => `${x.toFixed(2)}ms`;
  const lines = [
    `collector: ${s.collector}, layout: ${s.layout}, heap ${s.heapBytes / 2 ** 20} MiB`,
    `time: wall ${ms(s.wallMs)}, mutator ${ms(s.mutatorMs)}, gc ${ms(s.gcMs)}`,
    formatGcStats({
      youngCollections: s.youngCollections, fullCollections: s.fullCollections, totalPauseMs: s.totalPauseMs,
      maxPauseMs: s.maxPauseMs, bytesAllocated: s.bytesAllocated, bytesPromoted: s.bytesPromoted,
      layout: { name: s.layout, ...(s.refGraph ?? { graphBytes: 0, edgeWrites: 0, vertexAppends: 0, maintenanceMs: 0 }) },
    }),
    `gc pause p95 ${ms(s.p95PauseMs)}, mark ${ms(s.markMs)}, transfer ${ms(s.transferMs)}, peak heap ${(s.peakHeapBytes / 2 ** 20).toFixed(1)} MiB`,
  ];
  if (s.gpu) lines.push(`gpu: ${s.gpu.adapter} (${s.gpu.vendor}), ${s.gpu.options}`);
  return lines.join('\n');
}

export { formatGcRecord };
