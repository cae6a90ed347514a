/**
 * The parallel marker: the `Marker` of gc/marker.ts over the parallel
 * collector's threads (gc/parallel/): the main thread and a pool of workers,
 * started once, sharing the heap's SharedArrayBuffer and a mark bitmap, with
 * work stealing (gc/parallel/context.ts), with the parallel copy
 * (gc/parallel/copier.ts) and sweep (gc/parallel/sweeper.ts); `--gc parallel`
 * and `auto`, when it chooses parallel, use the whole of it.
 */

import type { HeapImpl } from '../heap/heap.js';
import { HEAP_READER, type CopyingMarker, type MarkerConstraints, type MarkRequest, type MarkResult, type SweepingMarker } from './marker.js';
import { ParallelCopier } from './parallel/copier.js';
import { ParallelSweeper } from './parallel/sweeper.js';
import { GcThreads } from './parallel/threads.js';
import type { WorkerPool } from './parallel/pool.js';
import { now } from '../heap/clock.js';

export { DEFAULT_SOLO_BYTES, defaultThreads } from './parallel/threads.js';

export class ParallelMarker implements CopyingMarker, SweepingMarker {
  readonly constraints: MarkerConstraints = { ...HEAP_READER, copiesYoung: true, sweepsTenured: true };
  readonly name = 'parallel';
  readonly gc: GcThreads;
  /** The same threads copying young objects, for the plan (CopyingMarker.copier). */
  readonly copier: ParallelCopier;
  /** The same threads sweeping tenured after a full mark (SweepingMarker.sweeper). */
  readonly sweeper: ParallelSweeper;
  private readonly bitmap: Uint32Array;

  /** `pool`: another marker's started pool, lent to this one (the warm-up).
   *  `soloWords`: collections over fewer words in use run on the main thread alone. */
  constructor(heap: HeapImpl, threads?: number, pool?: WorkerPool, soloWords = 0) {
    this.gc = new GcThreads(heap, threads, pool, soloWords);
    this.copier = new ParallelCopier(heap, this.gc);
    this.sweeper = new ParallelSweeper(heap, this.gc);
    this.bitmap = this.gc.bitmap;
  }

  get threads(): number {
    return this.gc.threads;
  }

  /** Objects each thread scanned in the last mark (load balance). */
  get lastScanned(): number[] {
    return this.gc.objects;
  }

  /** Starts the worker pool and makes the copy's result buffers, before the
   *  program runs; marks start the pool otherwise. */
  async prepare(): Promise<void> {
    await this.gc.start();
    this.copier.makeResults();
  }

  /** The memory the threads write in a collection besides the heap: the mark
   *  bitmap and the result buffer (for `--pretouch`, after `prepare`). */
  sideArrays(): Int32Array[] {
    const c = this.gc.ctx;
    return [c.bitmap, c.out];
  }

  /** The returned bitmap and live list belong to the marker until its next `mark`. */
  async mark(request: MarkRequest): Promise<MarkResult> {
    await this.gc.start();
    const t0 = now();
    const young = request.kind === 'young';
    const heap = this.gc.heap;
    const lo = young ? request.youngStart : 0;
    const hi = young ? request.youngEnd : heap.words.length;
    const live = this.gc.mark(request.roots, young, lo, hi);
    const times = { mark: now() - t0, threads: this.gc.workField() };
    return live ? { bitmap: this.bitmap, times, live } : { bitmap: this.bitmap, times };
  }

  dispose(): void {
    this.gc.dispose();
  }
}
