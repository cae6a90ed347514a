/**
 * heap/: the generational heap, its layouts, card table, free list, reference graphs
 * and telemetry. The interpreter uses api.ts; the CLI creates a heap here and
 * attaches a collector from gc/index.ts.
 */

export * from './api.js';
export { HeapImpl, createHeap, type InstanceShape } from './heap.js';
export type { HeapOptions } from './options.js';
export { DEFAULT_HEAP_BYTES, formatHeapSize } from './options.js';
export type { Collector } from './collector.js';
export { LAYOUT_NAMES, type LayoutName } from './layout.js';
export {
  formatBytes,
  formatGcRecord,
  formatGcStats,
  formatTransfers,
  type GcRecord,
  type GcStats,
  type LayoutStats,
  type PhaseTimes,
  type CollectionKind,
} from './telemetry.js';
