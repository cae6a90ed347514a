/**
 * The collector registry: collector names to plans paired with marking engines.
 *
 * gc/ registers its own CPU marker, `serial`; `registerMarker(name, (heap) =>
 * marker)` adds another (tests register checking markers this way).
 * `createCollector` builds the generational plan around the named marker, or
 * around `options.marker` (how the composition root, collectors/, hands in the
 * parallel, auto and GPU engines, so that gc/ never imports gpu/), and attaches
 * it to the heap.
 */

import type { Collector } from '../heap/collector.js';
import type { HeapImpl } from '../heap/heap.js';
import type { Marker } from './marker.js';
import { NoneCollector } from './none.js';
import { GenerationalPlan } from './plan.js';
import { SerialMarker } from './serial-marker.js';

export type MarkerFactory = (heap: HeapImpl) => Marker;

const markers = new Map<string, MarkerFactory>([['serial', (heap) => new SerialMarker(heap)]]);

/** Makes `name` a collector: the generational plan with the factory's marker. */
export function registerMarker(name: string, factory: MarkerFactory): void {
  if (name === 'none') throw new Error(`'none' is not a marker-based collector`);
  markers.set(name, factory);
}

/** The names `createCollector` accepts. */
export function collectorNames(): string[] {
  return ['none', ...markers.keys()];
}

export interface CollectorOptions {
  /** Use this marker instead of the registered one (tests, benchmarks). */
  marker?: Marker;
}

/** Creates the named collector and attaches it to `heap`. */
export function createCollector(name: string, heap: HeapImpl, options: CollectorOptions = {}): Collector {
  let collector: Collector;
  if (name === 'none') {
    collector = new NoneCollector();
  } else {
    const factory = markers.get(name);
    if (factory === undefined && options.marker === undefined) {
      throw new Error(`unknown collector '${name}' (expected one of: ${collectorNames().join(', ')})`);
    }
    collector = new GenerationalPlan(heap, options.marker ?? factory!(heap), name);
  }
  heap.setCollector(collector);
  return collector;
}

export { GenerationalPlan } from './plan.js';
export { SerialMarker } from './serial-marker.js';
export { NoneCollector } from './none.js';
export { HeapVerificationError, verifyHeap, verifyMarks, verifyRefGraph } from './verify.js';
export { HEAP_READER, heapCopyOf } from './marker.js';
export type { HeapCopyMarker, Marker, MarkerConstraints, MarkRequest, MarkResult, MarkTimes } from './marker.js';
