/**
 * Which collections a GPU collector (gpu-dfs, gpu-bfs) gives its device: those
 * predicted to trace at least `--gpu-min-live` bytes (a young collection: what
 * will survive it; a full one: the live heap). Below that the device's fixed cost
 * per collection (its requests' messages, submits and mappings) is more than the
 * CPU spends on the whole collection, so the CPU marks and evacuates it, as
 * `--gc-solo-below` keeps `parallel`'s small collections on the main thread and
 * HotSpot sizes its active GC workers to the work
 * (docs/decisions/s56-01-gpu-collectors-leave-small-collections-to-the-cpu.md).
 *
 * The prediction is what is in use (eden and the survivor space for a young
 * collection, the heap for a full one) times the share of it the last
 * collections of that kind kept (a decaying ratio). Before the first collection
 * of a kind the share is 1: a program's first large collection goes to the device.
 */

import type { HeapImpl } from '../heap/heap.js';
import type { CollectionKind, GcRecord } from '../heap/telemetry.js';
import { DecayingRatio } from './decaying-fit.js';

/** Weight of the newest collection in the survival and live shares (auto's). */
const SHARE_WEIGHT = 0.3;

/** The default `--gpu-min-live` on a hardware adapter, bytes. */
export const DEFAULT_GPU_MIN_LIVE = 2 << 20;

/** Where a collection ran, for its record. */
export interface Routed {
  readonly onDevice: boolean;
  /** Bytes the collection was predicted to trace. */
  readonly predictedBytes: number;
}

export class DeviceThreshold {
  private readonly survival = new DecayingRatio(1, SHARE_WEIGHT);
  private readonly fullLive = new DecayingRatio(1, SHARE_WEIGHT);
  /** The young words in use before the collection `route` was last asked about. */
  private youngBefore = 0;

  /** `minBytes`: `--gpu-min-live`; 0 gives every collection to the device. */
  constructor(
    private readonly heap: HeapImpl,
    readonly minBytes: number,
  ) {}

  /** Where the collection of `kind` about to run goes. */
  route(kind: CollectionKind): Routed {
    const h = this.heap;
    this.youngBefore = h.youngUsedWords();
    const predictedBytes = kind === 'young' ? this.survival.value * this.youngBefore * 4 : this.fullLive.value * h.usedBytes();
    return { onDevice: predictedBytes >= this.minBytes, predictedBytes };
  }

  /** Learns the share of what was in use that the collection `record` kept. */
  observe(record: GcRecord): void {
    if (record.kind === 'young') {
      if (this.youngBefore > 0) this.survival.observe((record.survivedBytes + record.promotedBytes) / (4 * this.youngBefore));
    } else if (record.usedBefore > 0) {
      this.fullLive.observe(record.usedAfter / record.usedBefore);
    }
  }
}
