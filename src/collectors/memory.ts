/**
 * Memory set-up for one run: the heap with its layout and the chosen collector, whose
 * marking engine is made here for parallel, auto and the GPU collectors (collectors/
 * is the composition root, the one room that sees both gc/ and gpu/), and the run's
 * statistics for `--stats`, `--json-stats` and `compare`.
 */

import { createCollector, SerialMarker, type Marker } from '../gc/index.js';
import { DEFAULT_SOLO_BYTES, defaultThreads, ParallelMarker } from '../gc/parallel-marker.js';
import { pretouch } from '../heap/pretouch.js';
import { warmUpCollector, type WarmUpSummary } from '../gc/warm-up.js';
import { choosingOf, type ChoosingMarker } from '../gc/marker.js';
import { statMs, statPercent, statSize } from '../heap/stat-units.js';
import { createHeap, formatGcRecord, formatGcStats, formatTransfers, type GcRecord, type HeapImpl } from '../heap/index.js';
import {
  closeGpuHost, describeAdapter, GpuAdapterLimitError, gpuHost, NoGpuAdapterError, parseGpuFaults, parseGpuOptions, WorkerGpuMarker,
  type GpuStartup, type RefGraphInput, type SableInput,
} from '../gpu/index.js';
import type { LayoutName } from '../heap/layout.js';
import { NO_EDEN_UPLOAD } from '../heap/mirror-log.js';
import { AutoMarker, type AutoEngine } from './auto-marker.js';
import { GpuFallbackMarker, type GpuFallback } from './gpu-fallback.js';
import type { ErrorSummary, PauseModel } from './pause-model.js';
import { SharedDirtyRanges } from './shared-dirty-ranges.js';
import { isGpuCollector, type CollectorName } from './names.js';
import { now } from '../heap/clock.js';

/** What a run asks of its memory (the CLI's run options have these fields). */
export interface MemoryOptions {
  readonly gc: CollectorName;
  readonly layout: LayoutName;
  readonly heapBytes: number;
  readonly youngBytes: number | undefined;
  readonly survivorRatio: number;
  readonly tenureAge: number;
  readonly gcStress: number;
  readonly verifyGc: boolean;
  /** Write one line per collection to `io.stderr`. */
  readonly logGc: boolean;
  readonly gpuOpt: string;
  readonly gpuBenchmark: boolean;
  readonly threads: number | undefined;
  /** `--gc-solo-below` (parallel, auto): bytes in use below which a collection runs
   *  on the main thread alone; undefined for the default. */
  readonly gcSoloBytes?: number | undefined;
  /** `--pretouch`: write every page of the heap before the program runs. */
  readonly pretouch?: boolean;
  /** `--gc-warm-up on|off`: the collectors' code warmed up before the program runs;
   *  by default on for the collectors that start up anyway (parallel's pool, the GPU's
   *  device, auto), off for serial, which gains little and starts at once. */
  readonly gcWarmUp?: boolean;
  /** `--pause-goal` (auto): milliseconds, or undefined for the fastest engine. */
  readonly pauseGoalMs?: number | undefined;
  /** `--gpu-min-live` (gpu-dfs, gpu-bfs): bytes a collection must be predicted to
   *  trace for the device to take it; undefined for the adapter's default. */
  readonly gpuMinLiveBytes?: number | undefined;
}

/** Where `--log-gc` lines go. */
export interface MemoryIo {
  stderr(text: string): void;
  /** Called with each collection's record as it ends, whether or not it is logged. */
  collected?(record: GcRecord): void;
  /** Where a warning goes that is not a collection's log line (a GPU fault); process.stderr by default. */
  warn?(text: string): void;
}

/** A set-up the options make impossible (a bad --gpu-opt list, a heap that cannot
 *  be laid out): a mistake on the command line, which the CLI reports as one. */
export class MemorySetupError extends Error {}

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
  /** startupMs: the start-up the program waited for (opening the device, compiling
   *  the kernels and running each once, making the device's buffers; with the
   *  kernels beside the program, the opening and the program's waits for them);
   *  startup: the worker's part of it by step (GpuStartup); beside: with the kernels
   *  compiled beside the program, the program's waits for them, at its first
   *  collection for the device and at its end, and whether the end stopped them
   *  unfinished (then `startup` is null: they never finished). */
  gpu: {
    adapter: string; vendor: string; options: string; startupMs: number; startup: GpuStartup | null;
    beside: { collectionMs: number; endMs: number; abandoned: boolean } | null; minLiveBytes: number; cpuCollections: number;
  } | null;
  /** The parallel collector's threads; startupMs: starting its worker pool, before the program ran. */
  parallel: { threads: number; startupMs: number } | null;
  /** `--pretouch`: the heap's bytes written page by page before the program ran, and
   *  the collector's tables' (card table, block offsets, the parallel collector's
   *  bitmap and result buffers), on how many threads, in how long. */
  pretouch: { bytes: number; tableBytes: number; threads: number; ms: number } | null;
  /** The collectors' warm-up on a scratch heap before the program ran (gc/warm-up.ts); null when off. */
  warmUp: { ms: number; collections: number } | null;
  /** gpu-dfs, gpu-bfs: the device fault after which the run went on on the CPU,
   *  and how many collections ran there (the one it struck and every later one). */
  gpuFallback: (GpuFallback & { cpuCollections: number }) | null;
  /** `--gc auto`: collections per engine it chose, and its pause model's relative
   *  prediction error (0.1 = 10%) over the collections it predicted. */
  auto: { choices: Record<AutoEngine, number>; error: ErrorSummary & { warm: ErrorSummary }; chooseMs: number } | null;
  collections: GcRecord[];
}

export interface Memory {
  readonly heap: HeapImpl;
  /** After the program: waits for what the run's end must (a GPU device's start-up
   *  still under way beside the program), before `finish` takes the wall time. */
  settle(): Promise<void>;
  finish(wallMs: number): RunStats;
  dispose(): Promise<void>;
}

/** Ways for a caller to look into a run's memory management (`heapshape`). */
export interface MemoryHooks {
  /** Wraps the collector's marking engine (serial's too) before the plan is built
   *  around it; the plan disposes the wrapper, which then owns the engine. Not
   *  called for --gc none, which has no engine. */
  wrapMarker?: (engine: Marker, heap: HeapImpl) => Marker;
  /** `--gc auto`: the pause model to choose with (tests hand in one that
   *  chooses as they need). */
  autoModel?: PauseModel;
  /** `--gc auto`: take any adapter as a hardware one (tests of its GPU engines on
   *  a software adapter). */
  autoAnyAdapter?: boolean;
}

/** No adapter, or one that cannot serve this heap (exit 69). */
export function isNoGpuError(e: unknown): boolean {
  return e instanceof NoGpuAdapterError || e instanceof GpuAdapterLimitError;
}

/**
 * A GPU marker's view of the heap: its words (sable) or its reference graphs
 * (refgraph); the mirror on the GPU takes only what changed since the last
 * collection (allocations, stores into tenured, moved objects). Under refgraph,
 * a marker that evacuates young collections on its device (`heapMirror`) keeps
 * the heap's words there too, so the heap logs its writes for it as under sable.
 */
export function gpuInput(heap: HeapImpl, heapMirror = true): SableInput | RefGraphInput {
  const graph = heap.graph;
  const graphs = { graphs: () => graph!, takeDirtyGraphs: () => graph!.takeDirtyGraphs() };
  if (graph && !heapMirror) return { layout: 'refgraph', words: heap.words, ...graphs };
  const log = heap.attachMirrorLog();
  const words = {
    words: heap.words,
    takeDirtyRanges: () => log.takeDirtyRanges(),
    sizeTable: () => heap.types.sizeTable(),
    youngRange: [heap.youngStart, heap.youngEnd] as const,
  };
  if (graph) return { layout: 'refgraph', ...words, ...graphs, refTable: () => heap.types.refTable() };
  return { layout: 'sable', ...words, objectRanges: () => log.objectRanges() };
}

/** A bad --gpu-opt list is a usage error, found before anything runs. */
function checkGpuOptions(spec: string, engine: 'gpu-dfs' | 'gpu-bfs'): void {
  try {
    parseGpuOptions(spec, engine);
    // The fault injection for tests (gpu/faults.ts), read again by the GPU worker.
    parseGpuFaults(process.env['MINIVM_GPU_FAULT']);
  } catch (e) {
    throw new MemorySetupError((e as Error).message);
  }
}

/** `--gc-solo-below` in heap words. */
function soloWords(options: MemoryOptions): number {
  return Math.floor((options.gcSoloBytes ?? DEFAULT_SOLO_BYTES) / 4);
}

/** The marking engine of the chosen collector; undefined where gc/ has it built in
 *  (serial) or there is none (none). */
function markerFor(
  options: MemoryOptions,
  heap: HeapImpl,
  hooks: MemoryHooks,
  onFallback: (f: GpuFallback) => void,
  warn: (line: string) => void,
): Marker | undefined {
  const { gc, gpuOpt, gpuBenchmark: benchmark, threads } = options;
  switch (gc) {
    case 'gpu-dfs':
    case 'gpu-bfs':
      // Under refgraph the heap's words go to the device only to be evacuated there.
      return new GpuFallbackMarker(
        new WorkerGpuMarker({ engine: gc, input: gpuInput(heap, parseGpuOptions(gpuOpt, gc).evacuate === 'gpu'), options: gpuOpt, benchmark }),
        heap,
        onFallback,
        options.gpuMinLiveBytes,
      );
    case 'parallel':
      // Each run gets its own --threads (default: gc/parallel/threads.ts defaultThreads).
      return new ParallelMarker(heap, threads, undefined, soloWords(options));
    case 'auto': {
      // Made now: the mirror log must see the heap from its first allocation.
      const input = gpuInput(heap, autoEvacuatesOnGpu(gpuOpt));
      // The one change log feeds both GPU engines' heap mirrors (shared-dirty-ranges.ts);
      // under refgraph, gpu-bfs's graph mirror takes the whole graphs at each of its
      // marks, which the model's upload term prices.
      const shared = input.takeDirtyRanges ? new SharedDirtyRanges(() => heap.attachMirrorLog().takeDirtyRanges()) : null;
      const takes = shared ? { 'gpu-dfs': shared.reader(), 'gpu-bfs': shared.reader() } : null;
      const words = (e: 'gpu-dfs' | 'gpu-bfs') => (takes ? { takeDirtyRanges: takes[e] } : {});
      const inputs: Record<'gpu-dfs' | 'gpu-bfs', SableInput | RefGraphInput> =
        input.layout === 'sable'
          ? { 'gpu-dfs': { ...input, ...words('gpu-dfs') }, 'gpu-bfs': { ...input, ...words('gpu-bfs') } }
          : { 'gpu-dfs': { ...input, ...words('gpu-dfs') }, 'gpu-bfs': { ...input, takeDirtyGraphs: undefined, ...words('gpu-bfs') } };
      return new AutoMarker(heap, {
        threads,
        soloWords: soloWords(options),
        ...(options.pauseGoalMs === undefined ? {} : { pauseGoalMs: options.pauseGoalMs }),
        ...(hooks.autoModel ? { model: hooks.autoModel } : {}),
        probeGpu: async () => !(await gpuHost().adapter(benchmark)).software || hooks.autoAnyAdapter === true,
        gpuMarker: (engine) =>
          new WorkerGpuMarker({ engine, input: inputs[engine], options: gpuOpt, benchmark }),
        uploadsAll: input.layout === 'sable' ? [] : ['gpu-bfs'],
        ...(shared && takes ? { deviceWrote: (e: 'gpu-dfs' | 'gpu-bfs', ranges: number[]) => shared.wroteBy(takes[e], ranges) } : {}),
        onGpuFault: (e, fault) => warn(`minivm: auto: ${fault.message} (${e} mark, collection ${heap.stats.youngCollections + heap.stats.fullCollections + 1}); auto no longer chooses ${e}\n`),
        gpuEngines: (['gpu-dfs', 'gpu-bfs'] as const).filter((e) => {
          try {
            parseGpuOptions(gpuOpt, e);
            return true;
          } catch {
            return false;
          }
        }),
      });
    }
    default:
      return undefined;
  }
}

/** Whether auto's GPU engines evacuate on their device (`evacuate=` of the first
 *  engine the `--gpu-opt` list suits; the default, gpu, for both). */
function autoEvacuatesOnGpu(gpuOpt: string): boolean {
  for (const e of ['gpu-dfs', 'gpu-bfs'] as const) {
    try {
      return parseGpuOptions(gpuOpt, e).evacuate === 'gpu';
    } catch {
      // Not this engine's list: the other's.
    }
  }
  return true;
}

/** The one line that says a run left the GPU. */
function fallbackLine(gc: string, f: GpuFallback): string {
  const where = f.during === 'eden upload' || f.during === 'start-up' ? `before collection ${f.collection}` : `collection ${f.collection}`;
  return `minivm: ${gc}: ${f.message} (${f.during}, ${where}); collection ${f.collection} and later ones run on the CPU (serial marking)`;
}

function fallbackStats(f: GpuFallback | null, records: readonly GcRecord[]): RunStats['gpuFallback'] {
  if (f === null) return null;
  return { ...f, cpuCollections: records.filter((r) => r.number >= f.collection).length };
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The threads that pre-touch the heap: those that will write it. The parallel
 *  collector's (auto's too, which may choose it); one for the collectors whose
 *  copies one thread writes (serial; the GPU ones, whose read-back the GPU worker
 *  writes): their copies ran slower into pages many threads first touched
 *  (docs/decisions/s31-03-pretouch-by-the-writers.md). */
function pretouchThreads(options: MemoryOptions): number {
  if (options.gc !== 'parallel' && options.gc !== 'auto') return 1;
  return options.threads ?? defaultThreads();
}

/** The parallel warm-up's workload, in multiples of serial's, which every worker
 *  rehearses alone: long enough for V8 to optimize it in each worker's isolate
 *  (docs/decisions/s31-01-gc-warm-up.md, s39-02-workers-rehearse-the-warm-up.md). */
const PARALLEL_WARM_UP_VOLUME = 8;

/**
 * The collectors' warm-up (gc/warm-up.ts) before the program runs: the CPU code
 * of the chosen collector, serial's for the GPU collectors (whose CPU side is
 * the plan's, the roots' and the sweep's), and for auto both CPU engines and
 * then its choice's own code (AutoMarker.warmUp).
 */
async function warmUpCollectors(heap: HeapImpl, options: MemoryOptions, pool: ParallelMarker | null, auto: AutoMarker | null): Promise<RunStats['warmUp']> {
  if (options.gc === 'none' || !(options.gcWarmUp ?? options.gc !== 'serial')) return null;
  const runs: WarmUpSummary[] = [];
  const o = { layout: options.layout, verifyGc: options.verifyGc, mirrorLog: heap.mirror !== null };
  // auto's scratch run goes through a serial-only auto marker of its own, so that
  // its choice and learning around each collection are compiled before the
  // program's first collection (the engines' code is warmed up by both runs).
  // A GPU collector's scratch run goes through its marker's class, on the CPU from the
  // start, so that the plan's calls into it are warm too.
  const gpu = isGpuCollector(options.gc);
  const serialMarker =
    auto !== null
      ? (scratch: HeapImpl) => new AutoMarker(scratch, { threads: 1 })
      : gpu
        ? (scratch: HeapImpl) => new GpuFallbackMarker(null, scratch, () => {})
        : () => undefined;
  if (options.gc !== 'parallel') runs.push(await warmUpCollector('serial', o, serialMarker));
  if (pool !== null) {
    const volume = PARALLEL_WARM_UP_VOLUME;
    const marker = (scratch: HeapImpl): ParallelMarker => {
      const m = new ParallelMarker(scratch, pool.threads, pool.gc.pool);
      m.gc.alternateSolo = true;
      m.gc.rehearse = true;
      return m;
    };
    runs.push(await warmUpCollector('parallel', { ...o, volume }, marker));
  }
  const t = now();
  auto?.warmUp();
  const ms = runs.reduce((sum, r) => sum + r.ms, 0) + now() - t;
  return { ms, collections: runs.reduce((n, r) => n + r.young + r.full, 0) };
}

export async function createMemory(options: MemoryOptions, io: MemoryIo, hooks: MemoryHooks = {}): Promise<Memory> {
  if (isGpuCollector(options.gc) || options.gc === 'auto') {
    checkGpuOptions(options.gpuOpt, options.gc === 'auto' ? 'gpu-dfs' : options.gc);
  }
  // auto, and the GPU collectors' threshold: where each collection ran goes into
  // its record (and --log-gc line).
  let autoMarker: AutoMarker | null = null;
  let choosing: ChoosingMarker | null = null;
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
        if (choosing !== null) {
          choosing.observe(record);
          line = formatGcRecord(record);
        }
        records.push(record);
        peak = Math.max(peak, record.usedBefore);
        io.collected?.(record);
        if (options.logGc) io.stderr(line + '\n');
      },
    });
  } catch (e) {
    // Sizes the heap cannot be laid out with (or memory the process cannot get) are
    // mistakes on the command line, not faults of the program.
    throw new MemorySetupError(`cannot set up the heap: ${(e as Error).message}`);
  }
  // Before any thread of the collector starts: the pages are the heap's, not theirs.
  let pretouched: RunStats['pretouch'] = null;
  if (options.pretouch) {
    const threads = pretouchThreads(options);
    const ms = await pretouch([heap.words], threads);
    pretouched = { bytes: heap.words.byteLength, tableBytes: 0, threads, ms };
  }
  let fallback: GpuFallback | null = null;
  const warn = (line: string): void => {
    if (io.warn) io.warn(line);
    else process.stderr.write(line);
  };
  const onFallback = (f: GpuFallback): void => {
    fallback = f;
    warn(fallbackLine(options.gc, f) + '\n');
    // Nothing takes eden ahead any more.
    heap.mirror?.setEdenUpload(Infinity, NO_EDEN_UPLOAD);
  };
  const engine = markerFor(options, heap, hooks, onFallback, warn);
  if (engine instanceof AutoMarker) autoMarker = engine;
  choosing = engine ? choosingOf(engine) : null;
  const gpuMarker = engine instanceof GpuFallbackMarker ? engine : undefined;
  const marker = hooks.wrapMarker && options.gc !== 'none' ? hooks.wrapMarker(engine ?? new SerialMarker(heap), heap) : engine;
  const plan = createCollector(options.gc, heap, marker ? { marker } : {});
  // auto chooses its engine before each collection, around the plan, and a GPU
  // collector whether its device takes it.
  const collector = choosing !== null ? choosing.around(plan) : plan;
  if (collector !== plan) heap.setCollector(collector);
  // The parallel collector's workers start now, not in the first pause.
  const pool = engine instanceof ParallelMarker ? engine : engine instanceof AutoMarker ? engine.parallelEngine : null;
  let poolStartupMs = 0;
  if (pool) {
    try {
      await pool.prepare();
    } catch (e) {
      collector.dispose();
      throw e;
    }
    poolStartupMs = pool.gc.pool.startupMs;
  }
  // The collectors' own tables, once they exist: a first collection writes them too.
  if (pretouched !== null) {
    const side = [...heap.sideArrays(), ...(pool?.sideArrays() ?? [])];
    pretouched.ms += await pretouch(side, pretouched.threads);
    pretouched.tableBytes = side.reduce((s, a) => s + a.byteLength, 0);
  }
  let warmUp: RunStats['warmUp'];
  try {
    warmUp = await warmUpCollectors(heap, options, pool, autoMarker);
  } catch (e) {
    collector.dispose();
    throw e;
  }
  // Open the device and compile the kernels now, not in the first collection's
  // pause; no adapter fails here, before the program runs. The kernels may
  // compile beside the program (gpu-fallback.ts prepare): eden's uploads ahead
  // start once they are ready.
  let gpuStartupMs = 0;
  if (gpuMarker) {
    const t = now();
    try {
      await gpuMarker.prepare();
    } catch (e) {
      collector.dispose();
      throw e;
    }
    gpuStartupMs = now() - t;
    if (gpuMarker.uploadsAhead) {
      // Steps of an eighth of eden, 64 KiB to 4 MiB: a collection's own upload is
      // at most one step, and a step is a short pause of the program.
      const step = Math.min(1 << 20, Math.max(1 << 14, (heap.edenEnd - heap.edenStart) / 8));
      heap.attachMirrorLog().setEdenUpload(step, {
        ready: () => gpuMarker.started(),
        start: (start, end, room) => gpuMarker.uploadAhead(start, end, room),
        land: () => gpuMarker.landUploads(),
      });
    }
  }
  /** The program's waits for the device's start-up beside it. */
  const startWaits = (): number => (gpuMarker ? gpuMarker.startWaits.collectionMs + gpuMarker.startWaits.endMs : 0);
  return {
    heap,
    finish(wallMs: number): RunStats {
      const s = heap.stats;
      const pauses = records.map((r) => r.pauseMs);
      const gcMs = records.reduce((t, r) => t + r.pauseMs + r.phases.verify, 0);
      const adapter = gpuMarker?.adapter ?? null;
      return {
        collector: options.gc,
        layout: options.layout,
        heapBytes: options.heapBytes,
        wallMs,
        // The device's start-up is neither the program's time nor a collection's.
        mutatorMs: wallMs - gcMs - gpuStartupMs - startWaits() - poolStartupMs - (pretouched?.ms ?? 0) - (warmUp?.ms ?? 0) - (autoMarker ? autoMarker.gpuStartupMs + autoMarker.chooseMs : 0),
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
        gpu: adapter && gpuMarker
          ? {
              adapter: describeAdapter(adapter),
              vendor: adapter.vendor,
              options: gpuMarker.lastStats?.label ?? options.gpuOpt,
              startupMs: gpuStartupMs + startWaits(),
              startup: gpuMarker.startup,
              beside: gpuMarker.startsBeside ? { ...gpuMarker.startWaits } : null,
              minLiveBytes: gpuMarker.threshold?.minBytes ?? 0,
              cpuCollections: gpuMarker.cpuCollections,
            }
          : null,
        parallel: pool ? { threads: pool.threads, startupMs: poolStartupMs } : null,
        pretouch: pretouched,
        warmUp,
        gpuFallback: fallbackStats(fallback, records),
        auto: autoMarker ? { choices: { ...autoMarker.counts }, error: autoMarker.model.error(), chooseMs: autoMarker.chooseMs } : null,
        collections: records,
      };
    },
    async settle(): Promise<void> {
      await gpuMarker?.finishStarting();
    },
    async dispose(): Promise<void> {
      // The device must have taken eden before it goes; a failure then is the program's end's.
      try {
        await heap.landUploads();
      } finally {
        collector.dispose();
      }
    },
  };
}

/** Destroys the GPU device and ends its worker thread, if one was started; the
 *  CLI awaits it before exiting. */
export function releaseGpu(): Promise<void> {
  return closeGpuHost();
}

/** auto's choices counted (`auto: serial 12, parallel 3`), as `--stats` and `compare` show them. */
export function formatAutoChoices(choices: Readonly<Record<string, number>>): string {
  const used = Object.entries(choices).filter(([, n]) => n > 0);
  return `auto: ${used.length === 0 ? 'no collections' : used.map(([e, n]) => `${e} ${n}`).join(', ')}`;
}

/** auto's line of `--stats`: its choices and its model's prediction error. */
function formatAutoStats(a: NonNullable<RunStats['auto']>): string {
  const e = a.error;
  const warm = e.warm.count === 0 ? '' : `; with 2+ samples median ${statPercent(e.warm.median)} over ${e.warm.count}`;
  const error =
    e.count === 0 ? 'no predictions checked' : `prediction error median ${statPercent(e.median)}, worst ${statPercent(e.worst)} over ${e.count} collections${warm}`;
  return `${formatAutoChoices(a.choices)}; ${error}; choosing ${statMs(a.chooseMs)} in all`;
}

/** The `--stats` summary. */
export function formatStats(s: RunStats): string {
  const lines = [
    `collector: ${s.collector}, layout: ${s.layout}, heap ${statSize(s.heapBytes)}`,
    `time: wall ${statMs(s.wallMs)}, mutator ${statMs(s.mutatorMs)}, gc ${statMs(s.gcMs)}`,
    formatGcStats({
      youngCollections: s.youngCollections, fullCollections: s.fullCollections, totalPauseMs: s.totalPauseMs,
      maxPauseMs: s.maxPauseMs, bytesAllocated: s.bytesAllocated, bytesPromoted: s.bytesPromoted,
      layout: { name: s.layout, ...(s.refGraph ?? { graphBytes: 0, edgeWrites: 0, vertexAppends: 0, maintenanceMs: 0 }) },
    }),
    `gc pause p95 ${statMs(s.p95PauseMs)}, mark ${statMs(s.markMs)}, transfer ${statMs(s.transferMs)}, peak heap ${statSize(s.peakHeapBytes)}`,
  ];
  if (s.parallel) lines.push(`parallel: ${s.parallel.threads} threads, pool start-up ${statMs(s.parallel.startupMs)}`);
  if (s.warmUp) lines.push(`gc warm-up: ${s.warmUp.collections} collections of a scratch heap, ${statMs(s.warmUp.ms)} before the program ran`);
  if (s.pretouch) {
    const on = s.pretouch.threads === 1 ? 'one thread' : `${s.pretouch.threads} threads`;
    lines.push(`pretouch: ${statSize(s.pretouch.bytes)} of heap and ${statSize(s.pretouch.tableBytes)} of collector tables on ${on}, ${statMs(s.pretouch.ms)} before the program ran`);
  }
  if (s.gpu) {
    const u = s.gpu.startup;
    const b = s.gpu.beside;
    const kernels = u ? `${u.pipelines} pipelines compiled and run once ${statMs(u.kernelsMs)}, buffers ${statMs(u.buffersMs)}` : '';
    const steps = b?.abandoned
      ? ` waited for (beside the program, the kernels' compiling stopped unfinished at the run's end, which waited ${statMs(b.endMs)} for it to stop)`
      : !u
        ? ''
        : b === null
          ? ` (device ${statMs(u.deviceMs)}, ${kernels})`
          : ` waited for (device ${statMs(u.deviceMs)}; beside the program ${kernels}; waited for at the first collection for the device ${statMs(b.collectionMs)}, at the run's end ${statMs(b.endMs)})`;
    lines.push(`gpu: ${s.gpu.adapter} (${s.gpu.vendor}), ${s.gpu.options}, start-up ${statMs(s.gpu.startupMs)}${steps}`);
    if (s.gpu.minLiveBytes > 0) {
      lines.push(`gpu min live: ${statSize(s.gpu.minLiveBytes)}; ${s.gpu.cpuCollections} of ${s.youngCollections + s.fullCollections} collections ran on the CPU (predicted to trace less, or full collections of a chain)`);
    }
  }
  if (s.gpuFallback) {
    const f = s.gpuFallback;
    lines.push(`gpu fallback: ${f.fault} at collection ${f.collection} (${f.during}); ${f.cpuCollections} collections on the CPU`);
  }
  if (s.auto) lines.push(formatAutoStats(s.auto));
  const transfers = formatTransfers(s.collections);
  if (transfers) lines.push(transfers);
  return lines.join('\n');
}
