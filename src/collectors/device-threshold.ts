/**
 * Which collections a GPU collector (gpu-dfs, gpu-bfs) gives its device: those
 * predicted to trace at least `--gpu-min-live` bytes (a young collection: what
 * will survive it), or FULL_FACTOR times that (a full one: the live heap). Below
 * that the device's fixed cost per collection (its requests' messages, submits
 * and mappings) is more than the CPU spends on the whole collection, so the CPU
 * marks and evacuates it, as
 * `--gc-solo-below` keeps `parallel`'s small collections on the main thread and
 * HotSpot sizes its active GC workers to the work
 * (docs/decisions/s56-01-gpu-collectors-leave-small-collections-to-the-cpu.md).
 *
 * The prediction is what is in use (eden and the survivor space for a young
 * collection, the heap for a full one) times the share of it the last
 * collections of that kind kept (live-shares.ts). Before the first collection
 * of a kind, when more than the threshold is in use, a look from the roots
 * answers: for a young one, serial's mark up to the threshold's words
 * (first-young-mark.ts), which says which side of the threshold the collection
 * falls whatever the heap's shape, and is the CPU's mark when that side is the
 * CPU's; for a full one, the survival probe that auto asks (gc/survival-probe.ts)
 * counts what the roots reach if that is few objects, else half of what is in
 * use is guessed, as auto guesses. A first collection on the device is its
 * dearest (nothing of the heap is on the device yet), so a collection that keeps
 * little should not go there
 * (docs/decisions/s63-01-a-first-young-collection-marked-to-the-threshold.md).
 *
 * A full collection also stays on the CPU while the device's last mark spent
 * most of its time finishing on the CPU (a chain, such as one long list, that
 * the device cannot split and hands to its CPU finish): the CPU evacuates a full
 * collection anyway, so the device would add only its fixed costs to a CPU mark
 * (docs/decisions/s60-03-full-collections-of-a-chain-stay-on-the-cpu.md). Young
 * collections of a chain stay on the device, whose evacuation saves more than
 * its mark loses; each one measures the heap's shape again.
 */

import { SerialMarker } from '../gc/serial-marker.js';
import { SurvivalProbe } from '../gc/survival-probe.js';
import type { HeapImpl } from '../heap/heap.js';
import type { CollectionKind, GcRecord } from '../heap/telemetry.js';
import { FirstYoungMark } from './first-young-mark.js';
import { LiveShares } from './live-shares.js';
import { now } from '../heap/clock.js';

/** The default `--gpu-min-live` on a hardware adapter, bytes. */
export const DEFAULT_GPU_MIN_LIVE = 2 << 20;
/** A full collection goes to the device from this many times `--gpu-min-live` of
 *  live heap: the CPU only marks a word there, where a young collection copies it,
 *  about a quarter of the cost (decision s56-01). */
export const FULL_FACTOR = 4;

/** Of a device mark's time, the share its CPU finish took above which the heap
 *  is taken for a chain (decision s60-03). */
export const CHAIN_SHARE = 0.5;

/** Where a collection ran, for its record. */
export interface Routed {
  readonly onDevice: boolean;
  /** Bytes the collection was predicted to trace, and the least the device takes. */
  readonly predictedBytes: number;
  readonly minBytes: number;
  /** Set when a full collection stays on the CPU for a chain: the share of the
   *  device's last mark its CPU finish took. */
  readonly chainShare?: number;
  /** Set when a look from the roots sized the collection: its time, which is the collection's too. */
  readonly probeMs?: number;
}

export class DeviceThreshold {
  private readonly shares = new LiveShares();
  /** The young words in use before the collection `route` was last asked about. */
  private youngBefore = 0;
  /** Of the device's last mark, the share its CPU finish took (0 before any). */
  private lastCpuShare = 0;

  /** `minBytes`: `--gpu-min-live`; 0 gives every collection to the device. `probe`:
   *  the GPU collector's, which its warm-up rehearses (gpu-fallback.ts). */
  constructor(
    private readonly heap: HeapImpl,
    readonly minBytes: number,
    readonly probe = new SurvivalProbe(),
    /** Sizes a first young collection: the GPU collector's, whose CPU side keeps its mark. */
    readonly firstYoung = new FirstYoungMark(heap, new SerialMarker(heap)),
  ) {}

  /** The least live bytes a collection of `kind` must be predicted to trace to go to the device. */
  private minFor(kind: CollectionKind): number {
    return kind === 'young' ? this.minBytes : FULL_FACTOR * this.minBytes;
  }

  /** Where the collection of `kind` about to run goes. */
  route(kind: CollectionKind): Routed {
    const h = this.heap;
    this.youngBefore = h.youngUsedWords();
    const young = kind === 'young';
    const inUse = young ? this.youngBefore * 4 : h.usedBytes();
    const share = this.shares.of(kind);
    const min = this.minFor(kind);
    let predictedBytes: number;
    let probeMs = -1;
    if (share.known || min === 0) predictedBytes = share.value * inUse;
    else if (inUse < min) predictedBytes = inUse;
    else {
      const t0 = now();
      const words = young ? this.firstYoung.wordsUpTo(Math.ceil(min / 4)) : this.probe.heapLiveWords(h);
      probeMs = now() - t0;
      predictedBytes = words >= 0 ? 4 * words : share.value * inUse;
    }
    const routed: Routed = { onDevice: predictedBytes >= min, predictedBytes, minBytes: min, ...(probeMs >= 0 ? { probeMs } : {}) };
    // With no threshold (0: every collection to the device) a chain goes there too.
    if (!young && routed.onDevice && min > 0 && this.lastCpuShare > CHAIN_SHARE) {
      return { ...routed, onDevice: false, chainShare: this.lastCpuShare };
    }
    return routed;
  }

  /** Learns the share of what was in use that the collection `record` kept and,
   *  from a mark on the device, how much of it the CPU finished. */
  observe(record: GcRecord, onDevice: boolean): void {
    this.shares.observe(record, this.youngBefore);
    const m = record.marker;
    if (onDevice && m.mark > 0) this.lastCpuShare = (m.cpuFallback ?? 0) / m.mark;
  }
}
