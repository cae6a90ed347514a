/**
 * What a GPU marker is from its configuration alone: its name, its options and
 * the constraints the plan reads. The worker's `GpuMarker` and the main
 * thread's `WorkerGpuMarker` both take them from here, so the two cannot
 * disagree; this file loads nothing of Dawn.
 */
import type { MarkerConstraints } from '../gc/marker.js';
import { DEFAULT_GPU_OPTIONS, parseGpuOptions, type GpuEngine, type GpuOptions } from './options.js';
import type { DirtyRanges, GraphDirty, RefGraphs } from './mirror/mirror.js';

/**
 * What a GPU marker needs to keep a copy of the heap's words, the heap mirror
 * (mirror/mirror.ts): sable marks in it; either layout evacuates young
 * collections in it (evacuate/device.ts).
 */
export interface HeapWordsInput {
  /** The heap's words (never reallocated). */
  readonly words: Int32Array;
  /** Word ranges written since the previous call ([start, end) pairs: allocations
   *  since the last collection, dirty cards, moved objects), or 'all'; the first
   *  call's ranges must cover every word written since the words were all zero
   *  (the device copy starts zeroed). Absent: every mark uploads the whole heap
   *  (sable), or no heap mirror is kept (refgraph). */
  takeDirtyRanges?(): DirtyRanges | 'all';
  /** heap/layout.ts TypeTable.sizeTable(): with it the marker moves objects in
   *  its mirror (sable: replays the CPU's evacuations, mirror/replay.ts). */
  sizeTable?(): Uint32Array;
  /** The young range [start, end) of every young collection (eden and both
   *  survivor spaces): with it `prepare` sizes the buffers up front. */
  readonly youngRange?: readonly [number, number];
}

/** The sable layout's input: the heap itself. */
export interface SableInput extends HeapWordsInput {
  readonly layout: 'sable';
  /** Word ranges ([start, end) pairs, sorted) outside which no object lies
   *  (heap.ts objectRanges): only their mark bits are read back. Absent: all. */
  objectRanges?(): number[];
}

/** The refgraph layout's input: the heap (for root vertex ids at a+2) and its
 *  graphs, which it marks; with the heap's changes, the size table and the
 *  reference table it also keeps a heap mirror and evacuates there. */
export interface RefGraphInput extends HeapWordsInput {
  readonly layout: 'refgraph';
  /** The graphs as they are now (the arrays may be replaced between marks). */
  graphs(): RefGraphs;
  /** Words of each graph array written since the previous call; absent fields
   *  (or an absent method) upload all words in use of that array. */
  takeDirtyGraphs?(): GraphDirty;
  /** heap/layout.ts TypeTable.refTable(): where each type's references are. */
  refTable?(): Uint32Array;
}

/** Whether a marker keeps a heap mirror: sable always; refgraph to evacuate
 *  there, when given what a mirror that moves objects needs. */
export function keepsHeapMirror(input: SableInput | RefGraphInput, options: Pick<GpuOptions, 'evacuate'>): boolean {
  if (input.layout === 'sable') return true;
  return options.evacuate === 'gpu' && input.takeDirtyRanges !== undefined && input.sizeTable !== undefined && input.refTable !== undefined;
}

export interface GpuMarkerConfig {
  readonly engine: GpuEngine;
  readonly input: SableInput | RefGraphInput;
  /** A `--gpu-opt` list or options; default: all optimizations. */
  readonly options?: string | Partial<GpuOptions>;
  /** Open the device for benchmarking (see device/device.ts); only the first opener decides. */
  readonly benchmark?: boolean;
  /** Create the heap-sized buffers in `prepare` (sable, with `youngRange`);
   *  default: on a hardware adapter only (see `warmUp`). */
  readonly warmUp?: boolean;
}

export interface GpuMarkerShape {
  readonly name: string;
  readonly options: GpuOptions;
  readonly constraints: MarkerConstraints;
}

export function gpuMarkerShape(config: GpuMarkerConfig): GpuMarkerShape {
  const o = config.options;
  const options = typeof o === 'string' ? parseGpuOptions(o, config.engine) : { ...DEFAULT_GPU_OPTIONS, ...(o ?? {}) };
  const input = config.input;
  return {
    name: `${config.engine}/${input.layout}`,
    options,
    constraints: {
      keepsHeapCopy: true,
      // The mirror replays the plan's evacuations with the type table's sizes (mirror/replay.ts).
      replaysEvacuation: input.layout === 'sable' && input.sizeTable !== undefined,
      // The remembered set is read from the mirror's heap words (mirror/remset.ts).
      scansRememberedSet: keepsHeapMirror(input, options),
      copiesYoung: false,
      evacuatesYoung: options.evacuate === 'gpu',
    },
  };
}
