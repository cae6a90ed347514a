/**
 * gpu-dfs and gpu-bfs as the plan sees them: the GPU marker until its device
 * fails (lost, out of memory, a read-back refused: gc/'s `MarkerFaultError`),
 * then serial marking for the rest of the run. A call that meets the fault
 * changed nothing in the heap, so the collection it struck finishes on the CPU
 * from the CPU's heap: a mark is redone by the serial marker, a remembered-set
 * scan or an evacuation the GPU declined falls to the CPU's, a replay or a
 * verification of the GPU's copy is dropped with the copy. Why not rebuild the
 * device: docs/decisions/s28f-01-gpu-faults-fall-back-to-the-cpu.md.
 *
 * Before the fault, each collection predicted to trace less than `--gpu-min-live`
 * runs on the CPU too (device-threshold.ts): the plan's collector, wrapped by
 * `around`, asks before each collection, and while the CPU has it the constraints
 * are a heap reader's, so the CPU marks and evacuates and the mirror takes the
 * moves from the heap's change log at the device's next collection.
 */
import { HEAP_READER, MarkerFaultError, type ChoosingMarker, type DeviceAssignment, type DeviceEvacuated, type FinishAhead, type MarkerConstraints, type MarkRequest, type MarkResult, type RememberedScan, type YoungEvacuatingMarker, type YoungSpaces } from '../gc/marker.js';
import { SerialMarker } from '../gc/serial-marker.js';
import type { Collector } from '../heap/collector.js';
import type { HeapImpl } from '../heap/heap.js';
import type { GcRecord } from '../heap/telemetry.js';
import type { GpuAdapterDescription, GpuMarkStats, GpuStartup, Sent, WorkerGpuMarker } from '../gpu/index.js';
import { SurvivalProbe } from '../gc/survival-probe.js';
import { FirstYoungMark } from './first-young-mark.js';
import { DEFAULT_GPU_MIN_LIVE, DeviceThreshold, type Routed } from './device-threshold.js';
import { now } from '../heap/clock.js';

/** The fault that sent a run to the CPU, for the log and `--stats`. */
export interface GpuFallback {
  /** 'device-lost', 'out-of-memory' or 'map-failed'. */
  readonly fault: string;
  /** What the GPU was doing: 'mark', 'live list copy', 'remembered-set scan', 'evacuation',
   *  'replay', 'verification' (inside collection `collection`), 'eden upload'
   *  (between collections: `collection` is the next one) or 'start-up'. */
  readonly during: string;
  readonly collection: number;
  readonly message: string;
}

export class GpuFallbackMarker implements YoungEvacuatingMarker, ChoosingMarker {
  readonly name: string;
  /** Set once the device failed; from then on every collection is serial's. */
  fallback: GpuFallback | null = null;
  /** Set by `prepare` from `--gpu-min-live` (its default follows the adapter);
   *  until then, and without it, every collection goes to the device. */
  threshold: DeviceThreshold | null = null;
  /** The threshold's survival probe, made with the marker so that a warm-up's
   *  marker (no device, no threshold) rehearses it too. */
  readonly probe = new SurvivalProbe();
  /** Collections the threshold left to the CPU, before any fault. */
  cpuCollections = 0;
  private gpu: WorkerGpuMarker | null;
  private readonly serial: SerialMarker;
  /** Sizes a first young collection for the threshold with serial's mark, which
   *  the collection then takes when the CPU has it. */
  private readonly firstYoung: FirstYoungMark;
  /** Where the collection in progress runs; null outside `around`'s collections. */
  private routed: Routed | null = null;

  constructor(
    /** null: a marker that runs on the CPU from the start (the warm-up's, so that its
     *  scratch collections take the program's paths through this class). */
    gpu: WorkerGpuMarker | null,
    private readonly heap: HeapImpl,
    /** Told once, when the device fails. */
    private readonly onFallback: (f: GpuFallback) => void,
    /** `--gpu-min-live` in bytes; undefined: the adapter's default (`prepare`). */
    private readonly minLiveBytes?: number,
  ) {
    this.gpu = gpu;
    this.name = gpu?.name ?? 'serial';
    this.serial = new SerialMarker(heap);
    this.firstYoung = new FirstYoungMark(heap, this.serial);
  }

  /** Whether the CPU has the collection in progress under the threshold. */
  private get onCpu(): boolean {
    return this.routed !== null && !this.routed.onDevice;
  }

  get constraints(): MarkerConstraints {
    if (this.onCpu) return HEAP_READER;
    return this.gpu?.constraints ?? HEAP_READER;
  }

  /** The adapter, once the device was opened (kept after a fault, for `--stats`). */
  get adapter(): GpuAdapterDescription | null {
    return this.gpuMarker.adapter;
  }

  get lastStats(): GpuMarkStats | null {
    return this.gpuMarker.lastStats;
  }

  /** What the GPU marker's `prepare` spent, by step (null if it failed). */
  get startup(): GpuStartup | null {
    return this.gpuMarker.startup;
  }

  get uploadsAhead(): boolean {
    return this.gpuMarker.uploadsAhead;
  }

  /** The GPU marker (disposed after a fault, still readable). */
  private get gpuMarker(): WorkerGpuMarker {
    return this.gpu ?? this.disposed!;
  }
  private disposed: WorkerGpuMarker | null = null;

  /**
   * Opens the device, before the program runs (no adapter is still an error: exit
   * 69), then compiles the kernels and makes the device's buffers: before the
   * program too, or beside it (`--gpu-opt start=`), the program then waiting for
   * them only at its first collection for the device, or at its end
   * (docs/decisions/s65-01-the-device-starts-beside-the-program.md).
   */
  async prepare(): Promise<void> {
    if (this.gpu === null) return;
    const gpu = this.gpu;
    try {
      await gpu.open();
    } catch (e) {
      this.fall(e, 'start-up');
      return;
    }
    // A software adapter is there to check the kernels: by default it gets every collection.
    const software = gpu.adapter?.software ?? true;
    this.threshold = new DeviceThreshold(this.heap, this.minLiveBytes ?? (software ? 0 : DEFAULT_GPU_MIN_LIVE), this.probe, this.firstYoung);
    const start = gpu.options.deviceStart;
    if (start === 'beside' || (start === 'adapter' && !software)) {
      this.starting = gpu.prepareBeside();
      // Met where the run next looks (`started`), not as an unhandled rejection before.
      this.starting.reply.catch(() => undefined);
      this.startsBeside = true;
      return;
    }
    try {
      await gpu.prepare();
    } catch (e) {
      this.fall(e, 'start-up');
    }
  }

  /** Whether the kernels were compiled, and the buffers made, beside the program. */
  startsBeside = false;
  /** The program's waits for the start-up beside it, ms: at its first collection
   *  for the device, and at its end; `abandoned`: the end stopped it unfinished. */
  readonly startWaits = { collectionMs: 0, endMs: 0, abandoned: false };
  /** The start-up beside the program, while it is under way. */
  private starting: Sent<unknown> | null = null;
  /** The wait for it in the collection in progress, for the record. */
  private startWaitMs: number | null = null;

  /** Whether the device can take work now: its start-up beside the program, if
   *  any, has ended (looked for without waiting). One that failed with a device
   *  fault falls back here. */
  started(): boolean {
    const s = this.starting;
    if (s !== null) {
      const o = s.outcome();
      if (o === undefined) return false;
      this.starting = null;
      // A start-up the run's end stopped failed for that reason alone; one that
      // ended before the stop came was not stopped.
      if (o.ok) this.startWaits.abandoned = false;
      else if (!this.startWaits.abandoned) this.fall(o.error, 'start-up');
    }
    return this.gpu !== null;
  }

  /** Waits for the start-up beside the program to end: the ms it waited. */
  private async waitStarted(): Promise<number> {
    if (this.started() || this.starting === null) return 0;
    const t = now();
    await this.starting.reply.catch(() => undefined);
    this.started();
    return now() - t;
  }

  /** At the run's end: stops a start-up beside the program still under way, which
   *  nothing will use now, and waits for the worker to leave it (at its next step:
   *  the worker ends only after it); the ms it waited
   *  (docs/decisions/s66-02-the-end-abandons-the-start-up.md). */
  async finishStarting(): Promise<number> {
    if (this.gpu !== null && this.starting !== null && !this.started()) {
      this.startWaits.abandoned = true;
      this.gpu.abandonStart();
    }
    const ms = await this.waitStarted();
    this.startWaits.endMs += ms;
    return ms;
  }

  /** `plan` asking the threshold where each collection runs. */
  around(plan: Collector): Collector {
    return {
      name: plan.name,
      collects: plan.collects,
      collect: async (kind, cause) => {
        this.routed = this.gpu !== null ? (this.threshold?.route(kind) ?? null) : null;
        // A collection for the device waits, before its pause, for a start-up still under way.
        if (this.gpu !== null && this.routed?.onDevice !== false && !this.started()) {
          this.startWaitMs = await this.waitStarted();
          this.startWaits.collectionMs += this.startWaitMs;
          if (this.gpu === null) this.routed = null;
        }
        // A mark made to size the collection is the CPU's only.
        if (this.routed?.onDevice !== false) this.firstYoung.take();
        // A look from the roots traced the heap for this collection: its pause began there.
        const probeMs = this.routed?.probeMs;
        try {
          return await plan.collect(kind, cause, probeMs !== undefined ? now() - probeMs : undefined);
        } finally {
          this.routed = null;
          this.startWaitMs = null;
          this.firstYoung.take();
        }
      },
      dispose: () => plan.dispose(),
    };
  }

  /** Names in the record a collection the CPU had under the threshold, and
   *  teaches the threshold what the collection kept. */
  observe(record: GcRecord): void {
    const r = this.routed;
    if (r?.probeMs !== undefined) record.probeMs = r.probeMs;
    if (this.startWaitMs !== null) record.deviceStartWaitMs = this.startWaitMs;
    if (r !== null && !r.onDevice) {
      this.cpuCollections++;
      record.collector = `${record.collector}(cpu)`;
      if (r.chainShare !== undefined) record.chainOnCpu = { cpuShare: r.chainShare };
      else record.underGpuMinLive = { predictedBytes: Math.round(r.predictedBytes), minLiveBytes: r.minBytes };
    }
    this.threshold?.observe(record, this.gpu !== null && (r === null || r.onDevice));
  }

  /** The threshold asks the survival probe and the first young mark before a first
   *  large collection, once or twice a run: the warm-up runs them over its scratch
   *  heap's live objects until V8 has compiled them. */
  rehearse(): void {
    this.probe.rehearse(this.heap);
    this.firstYoung.rehearse();
  }

  /** The collection running now, or the next one between collections. */
  private collectionNumber(): number {
    const s = this.heap.stats;
    return s.youngCollections + s.fullCollections + 1;
  }

  /** Falls back on `e` if it is a device fault (anything else is ours, and goes on up). */
  private fall(e: unknown, during: string): void {
    if (!(e instanceof MarkerFaultError) || this.gpu === null) throw e;
    this.fallback = { fault: e.fault, during, collection: this.collectionNumber(), message: e.message };
    this.disposed = this.gpu;
    this.gpu = null;
    this.disposed.dispose();
    this.onFallback(this.fallback);
  }

  async mark(request: MarkRequest): Promise<MarkResult> {
    if (this.gpu !== null && !this.onCpu) {
      let r: MarkResult;
      try {
        r = await this.gpu.mark(request);
      } catch (e) {
        this.fall(e, 'mark');
        return this.serial.mark(request);
      }
      const ready = r.liveReady;
      if (ready === undefined) return r;
      // A list the device took with it is a fault too: the plan marks again, on the CPU.
      const liveReady = (count: number): void => {
        try {
          ready(count);
        } catch (e) {
          this.fall(e, 'live list copy');
          throw e;
        }
      };
      const base = { live: r.live, liveReady, times: r.times, ...(r.evacuation ? { evacuation: r.evacuation } : {}) };
      return Object.defineProperties(base as MarkResult, { bitmap: { get: () => (liveReady(r.live!.length), r.bitmap), enumerable: true } });
    }
    // The threshold's sizing marked this young collection already (first-young-mark.ts).
    const sized = request.kind === 'young' ? this.firstYoung.take() : null;
    return sized ?? this.serial.mark(request);
  }

  async scanRememberedSet(ranges: Int32Array, youngStart: number, youngEnd: number, beforeMark = true): Promise<RememberedScan | null> {
    if (this.gpu === null) return null;
    try {
      return await this.gpu.scanRememberedSet(ranges, youngStart, youngEnd, beforeMark);
    } catch (e) {
      this.fall(e, 'remembered-set scan');
      return null;
    }
  }

  async replayEvacuation(live: Int32Array, forward: Int32Array, slotRuns: Int32Array): Promise<void> {
    if (this.gpu === null) return;
    try {
      await this.gpu.replayEvacuation(live, forward, slotRuns);
    } catch (e) {
      this.fall(e, 'replay');
    }
  }

  /** A fault here, in the finish done with the assignment too, leaves the collection to the CPU. */
  async assignYoung(live: Int32Array, spaces: YoungSpaces, ahead?: FinishAhead): Promise<DeviceAssignment> {
    if (this.gpu !== null) {
      try {
        return await this.gpu.assignYoung(live, spaces, ahead);
      } catch (e) {
        this.fall(e, 'evacuation');
      }
    }
    return { ok: false, reason: `the GPU failed: ${this.fallback?.fault ?? 'gone'}` };
  }

  /** A fault here is thrown on: the plan undoes its part and evacuates on the CPU (gc/device-evacuation.ts). */
  async finishYoung(base: number, slotRuns: Int32Array, headers: boolean, referents: Int32Array | null, edgeStarts: Int32Array | null = null): Promise<DeviceEvacuated> {
    if (this.gpu === null) throw new MarkerFaultError(this.fallback?.fault ?? 'gone', 'the GPU marker fell back to the CPU');
    try {
      return await this.gpu.finishYoung(base, slotRuns, headers, referents, edgeStarts);
    } catch (e) {
      this.fall(e, 'evacuation');
      throw e;
    }
  }

  async verifyCopy(check: (copy: Uint32Array) => void): Promise<void> {
    if (this.gpu === null) return;
    try {
      await this.gpu.verifyCopy(check);
    } catch (e) {
      this.fall(e, 'verification');
    }
  }

  /** Eden's upload ahead, between collections (heap/mirror-log.ts): started before
   *  this returns; a fault it meets falls back once its reply is taken. */
  async uploadAhead(start: number, end: number, room: number): Promise<void> {
    if (this.gpu === null) return;
    try {
      await this.gpu.uploadAhead(start, end, room);
    } catch (e) {
      // Uploads in flight together meet one fault: the first falls back, the rest have nothing to do.
      if (this.gpu === null && e instanceof MarkerFaultError) return;
      this.fall(e, 'eden upload');
    }
  }

  /** Blocks until the device has taken every upload ahead started: the ms it blocked. */
  landUploads(): number {
    return this.gpu?.landUploads() ?? 0;
  }

  dispose(): void {
    this.gpu?.dispose();
    this.gpu = null;
    this.serial.dispose();
  }
}
