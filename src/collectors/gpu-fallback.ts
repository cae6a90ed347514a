/**
 * gpu-dfs and gpu-bfs as the plan sees them: the GPU marker until its device
 * fails (lost, out of memory, a read-back refused: gc/'s `MarkerFaultError`),
 * then serial marking for the rest of the run. A call that meets the fault
 * changed nothing in the heap, so the collection it struck finishes on the CPU
 * from the CPU's heap: a mark is redone by the serial marker, a remembered-set
 * scan or an evacuation the GPU declined falls to the CPU's, a replay or a
 * verification of the GPU's copy is dropped with the copy. Why not rebuild the
 * device: docs/decisions/s28f-01-gpu-faults-fall-back-to-the-cpu.md.
 */
import { HEAP_READER, MarkerFaultError, type DeviceAssignment, type DeviceEvacuated, type MarkerConstraints, type MarkRequest, type MarkResult, type RememberedScan, type YoungEvacuatingMarker, type YoungSpaces } from '../gc/marker.js';
import { SerialMarker } from '../gc/serial-marker.js';
import type { HeapImpl } from '../heap/heap.js';
import type { GpuAdapterDescription, GpuMarkStats, GpuStartup, WorkerGpuMarker } from '../gpu/index.js';

/** The fault that sent a run to the CPU, for the log and `--stats`. */
export interface GpuFallback {
  /** 'device-lost', 'out-of-memory' or 'map-failed'. */
  readonly fault: string;
  /** What the GPU was doing: 'mark', 'remembered-set scan', 'evacuation',
   *  'replay', 'verification' (inside collection `collection`), 'eden upload'
   *  (between collections: `collection` is the next one) or 'start-up'. */
  readonly during: string;
  readonly collection: number;
  readonly message: string;
}

export class GpuFallbackMarker implements YoungEvacuatingMarker {
  readonly name: string;
  /** Set once the device failed; from then on every collection is serial's. */
  fallback: GpuFallback | null = null;
  private gpu: WorkerGpuMarker | null;
  private readonly serial: SerialMarker;

  constructor(
    gpu: WorkerGpuMarker,
    private readonly heap: HeapImpl,
    /** Told once, when the device fails. */
    private readonly onFallback: (f: GpuFallback) => void,
  ) {
    this.gpu = gpu;
    this.name = gpu.name;
    this.serial = new SerialMarker(heap);
  }

  get constraints(): MarkerConstraints {
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

  /** Opens the device and compiles the kernels, before the program runs (no
   *  adapter is still an error: exit 69). */
  async prepare(): Promise<void> {
    if (this.gpu === null) return;
    try {
      await this.gpu.prepare();
    } catch (e) {
      this.fall(e, 'start-up');
    }
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
    if (this.gpu !== null) {
      try {
        return await this.gpu.mark(request);
      } catch (e) {
        this.fall(e, 'mark');
      }
    }
    return this.serial.mark(request);
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

  async assignYoung(live: Int32Array, spaces: YoungSpaces): Promise<DeviceAssignment> {
    if (this.gpu !== null) {
      try {
        return await this.gpu.assignYoung(live, spaces);
      } catch (e) {
        this.fall(e, 'evacuation');
      }
    }
    return { ok: false, reason: `the GPU failed: ${this.fallback?.fault ?? 'gone'}` };
  }

  /** A fault here is thrown on: the plan undoes its part and evacuates on the CPU (gc/device-evacuation.ts). */
  async finishYoung(base: number, slotRuns: Int32Array, headers: boolean, picks: Int32Array | null, edgeStarts: Int32Array | null = null): Promise<DeviceEvacuated> {
    if (this.gpu === null) throw new MarkerFaultError(this.fallback?.fault ?? 'gone', 'the GPU marker fell back to the CPU');
    try {
      return await this.gpu.finishYoung(base, slotRuns, headers, picks, edgeStarts);
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

  /** Eden's upload ahead, between collections (heap/mirror-log.ts). */
  async uploadAhead(start: number, end: number): Promise<void> {
    if (this.gpu === null) return;
    try {
      await this.gpu.uploadAhead(start, end);
    } catch (e) {
      this.fall(e, 'eden upload');
    }
  }

  dispose(): void {
    this.gpu?.dispose();
    this.gpu = null;
    this.serial.dispose();
  }
}
