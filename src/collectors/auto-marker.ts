/**
 * `--gc auto`: the generational plan with a marker that picks, per collection, the
 * engine expected to be fastest from what it knows of the heap. It lives in
 * collectors/ because it may hand collections to a GPU marker, and only the
 * composition root sees both gc/ and gpu/.
 *
 * The rule (`chooseEngine`), on the work W = roots + occupied words of the traced
 * range (young collections: eden and the from-survivor in use; full: the heap in use):
 *   1. gpu-dfs when the adapter is a hardware one and W >= GPU_MIN_WORK (16 Mi words,
 *      64 MiB): uploading the heap and launching kernels only pays off on large heaps,
 *      and a software adapter (llvmpipe, lavapipe, SwiftShader) is never faster than
 *      the CPU. The adapter is probed (the device opened) only the first time a
 *      collection is that large, so small runs never touch the GPU.
 *   2. parallel when there are at least PARALLEL_MIN_THREADS (4) marking threads
 *      (--threads, default the available cores) and W >= PARALLEL_MIN_WORK (1 Mi
 *      words, 4 MiB): below that, waking the workers and marking with Atomics costs
 *      more than it saves; with fewer threads the atomic marks cost more than the
 *      threads win (docs/decisions/r19c-02-auto-policy.md).
 *   3. serial otherwise.
 * The log line names the engine that ran: `auto(serial)`, `auto(parallel)`, `auto(gpu-dfs)`.
 */

import { availableParallelism } from 'node:os';
import { HEAP_READER, type MarkRequest, type MarkResult, type Marker } from '../gc/marker.js';
import { ParallelMarker } from '../gc/parallel-marker.js';
import { SerialMarker } from '../gc/serial-marker.js';
import type { HeapImpl } from '../heap/heap.js';

export type AutoEngine = 'serial' | 'parallel' | 'gpu-dfs';

export const PARALLEL_MIN_WORK = 1 << 20;
export const PARALLEL_MIN_THREADS = 4;
export const GPU_MIN_WORK = 1 << 24;

export interface AutoInput {
  /** Root references plus occupied words of the traced range. */
  readonly work: number;
  /** Marking threads the parallel engine would use. */
  readonly threads: number;
  /** Whether a hardware GPU adapter is open. */
  readonly hardwareGpu: boolean;
}

/** The documented rule (see the file comment). */
export function chooseEngine(i: AutoInput): AutoEngine {
  if (i.hardwareGpu && i.work >= GPU_MIN_WORK) return 'gpu-dfs';
  if (i.threads >= PARALLEL_MIN_THREADS && i.work >= PARALLEL_MIN_WORK) return 'parallel';
  return 'serial';
}

/** The work of a request on `heap`: roots plus the occupied words it may trace. */
export function markWork(heap: HeapImpl, request: MarkRequest): number {
  const occupied =
    request.kind === 'young'
      ? heap.edenTop - heap.edenStart + (heap.fromTop - heap.fromStart)
      : Math.ceil(heap.usedBytes() / 4);
  return request.roots.length + occupied;
}

export interface AutoOptions {
  /** Marking threads (default: the available cores). */
  threads?: number;
  /** Opens the GPU and says whether its adapter is a hardware one (false: none or software). */
  probeGpu?: () => Promise<boolean>;
  /** Makes the GPU marker, once the probe said yes. */
  gpuMarker?: () => Marker;
}

export class AutoMarker implements Marker {
  /** The engine changes per collection; a GPU one's mirror learns the moves as writes. */
  readonly constraints = HEAP_READER;
  readonly threads: number;
  /** The engine of the latest collection. */
  lastEngine: AutoEngine = 'serial';
  /** Collections per engine. */
  readonly counts: Record<AutoEngine, number> = { serial: 0, parallel: 0, 'gpu-dfs': 0 };
  private readonly serial: SerialMarker;
  private parallel: ParallelMarker | null = null;
  private gpu: Marker | null = null;
  private gpuState: 'unknown' | 'hardware' | 'none';

  constructor(private readonly heap: HeapImpl, private readonly options: AutoOptions = {}) {
    this.threads = Math.max(1, Math.floor(options.threads ?? availableParallelism()));
    this.serial = new SerialMarker(heap);
    // Made (and started by the CLI) before the program runs when it may be chosen.
    if (this.threads >= PARALLEL_MIN_THREADS) this.parallel = new ParallelMarker(heap, this.threads);
    this.gpuState = options.probeGpu && options.gpuMarker ? 'unknown' : 'none';
  }

  /** The parallel engine when this many threads may choose it, else null. */
  get parallelEngine(): ParallelMarker | null {
    return this.parallel;
  }

  get name(): string {
    return `auto(${this.lastEngine})`;
  }

  async mark(request: MarkRequest): Promise<MarkResult> {
    const work = markWork(this.heap, request);
    if (this.gpuState === 'unknown' && work >= GPU_MIN_WORK) {
      let hardware = false;
      try {
        hardware = await this.options.probeGpu!();
      } catch {
        hardware = false;
      }
      this.gpuState = hardware ? 'hardware' : 'none';
    }
    const engine = chooseEngine({ work, threads: this.threads, hardwareGpu: this.gpuState === 'hardware' });
    this.lastEngine = engine;
    this.counts[engine]++;
    if (engine === 'gpu-dfs') return (this.gpu ??= this.options.gpuMarker!()).mark(request);
    if (engine === 'parallel') return (this.parallel ??= new ParallelMarker(this.heap, this.threads)).mark(request);
    return this.serial.mark(request);
  }

  dispose(): void {
    this.parallel?.dispose();
    this.gpu?.dispose();
    this.serial.dispose();
  }
}
