/**
 * The results of `compare` and `heapshape` as their --json writes them (docs/cli.md)
 * and as the report (report.ts) draws them. Types only: the commands produce these,
 * the report reads them, and neither command imports the other.
 */

import type { RunStats } from '../collectors/index.js';
import type { ShapeVerdict } from '../gc/heap-shape.js';
import type { CollectorName, LayoutName } from './options.js';
import type { Provenance } from './provenance.js';
import type { HeapList, MinHeap } from './heap-sweep.js';

/** One collection of a run, as plotted: times in ms since the run started. */
export interface CollectionPoint {
  number: number;
  kind: 'young' | 'full';
  cause: string;
  startMs: number;
  endMs: number;
  pauseMs: number;
  usedBefore: number;
  usedAfter: number;
}

export type RunStatus = 'ok' | 'out of memory' | 'runtime error';

/** The run statistics a comparison row reports (medians over its repeats). */
type RowFigures = Omit<RunStats, 'collector' | 'layout' | 'heapBytes' | 'refGraph' | 'gpu' | 'collections' | 'auto'>;

/** One row of the comparison: a collector and layout, medians over its repeats. */
export interface CompareRun extends RowFigures {
  collector: CollectorName;
  layout: LayoutName;
  /** The heap this row ran in: `--heap`'s size, a size of its list, or a multiple of the row's minimum heap. */
  heapBytes: number;
  /** With `--heap Nx`: N; else null. */
  heapMultiple: number | null;
  status: RunStatus;
  exitCode: number;
  repeats: number;
  /** Per figure: the smallest and largest of the repeats, and every repeat's value in run order. */
  min: Record<string, number>;
  max: Record<string, number>;
  samples: Record<string, number[]>;
  /** Repeats (1-based) whose wall time lies outside Tukey's fences (needs 4 repeats or more). */
  outliers: number[];
  /** The collections of the run whose wall time is the median one. */
  collections: CollectionPoint[];
  /** `auto` rows only: its choices summed over the repeats, and the median of the
   *  repeats' median prediction errors. */
  auto?: { choices: Record<string, number>; medianError: number };
  /** GPU collector rows only: collections summed over the repeats, and those that ran
   *  on the CPU under `--gpu-min-live` (the threshold in force, bytes; 0: none). */
  gpu?: { collections: number; cpuCollections: number; minLiveBytes: number };
}

export interface CompareResult {
  file: string;
  repeat: number;
  warmup: number;
  provenance: Provenance;
  /** `--heap` as a list or as multiples, as parsed; null for one size. */
  heaps: HeapList | null;
  /** With `--min-heap` or `--heap Nx`: each configuration's minimum heap; else null. */
  minHeaps: MinHeap[] | null;
  runs: CompareRun[];
  skipped: Array<{ collector: string; layout: string; reason: string }>;
  /** Runs whose output took part in the equality check (out-of-memory `none` runs do not). */
  comparedRuns: number;
  outputIdentical: boolean;
  /** When outputs differ: the first differing lines, diff-style. */
  difference: string | null;
}

/** One analysed collection, as printed and as `--json` writes it (docs/cli.md). */
export interface HeapshapeSnapshot {
  collection: number;
  kind: 'young' | 'full';
  cause: string;
  objects: number;
  /** Their words, headers included. */
  words: number;
  edges: number;
  depth: number;
  maxWidth: number;
  maxWidthDepth: number;
  tailLevels: number;
  longestNarrowRun: number;
  maxOutDegree: number;
  /** Objects per out-degree bin, in `outDegreeBins` order. */
  outDegree: number[];
  /** Objects per BFS depth. */
  widths: number[];
  verdict: ShapeVerdict;
}

export interface HeapshapeResult {
  file: string;
  collector: string;
  layout: string;
  narrowThreshold: number;
  /** Live words under which the verdict is poor whatever the shape (cli/heapshape.ts gpuSizeThreshold). */
  gpuMinWords: number;
  outDegreeBins: string[];
  /** The program's exit status (its output is not shown). */
  exitCode: number;
  snapshots: HeapshapeSnapshot[];
  /** Where the snapshots came from (as compare's); absent in results written before it was added. */
  provenance?: Provenance;
}

