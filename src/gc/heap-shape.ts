/**
 * Heap-shape analysis after Maas et al., "GPUs as an Opportunity for Offloading
 * Garbage Collection", section 3: what an ideal breadth-first marker would see.
 *
 * - Section 3.1, structural limits on parallelism: the number of objects at each
 *   BFS depth from the roots (the "width" or "beam" of each step). A GPU marker
 *   processes one level per kernel step, so a level narrower than a few hundred
 *   objects cannot fill the device, and a long run of narrow levels (a "tail", e.g.
 *   a linked list) serialises the trace.
 * - Section 3.2, distribution of outbound references: how many non-null references
 *   each reachable object holds, binned 0, 1, 2, 3, 4, 5-8, 9-16, 17-64, 65+. A wide
 *   spread means divergence between work-items that loop over their object's refs.
 *
 * `analyzeHeapShape` is a pure function of the heap words, the type table and a root
 * set; it never writes the heap. `ShapeMarker` hooks it into a collector: it wraps
 * the collector's marker, analyses the whole reachable heap at every collection
 * (young ones too: the shape is what a full mark would see at that moment) and then
 * delegates the real trace to the wrapped marker.
 */

import type { HeapImpl } from '../heap/heap.js';
import { HEADER_WORDS, TYPE_WORD } from '../heap/object-model.js';
import { SCATTERED, refRunEnd, type RefTables } from '../heap/ref-slots.js';
import { IntList } from './int-list.js';
import {
  heapCopyOf,
  type HeapCopyMarker,
  type MarkRequest,
  type MarkResult,
  type Marker,
  type MarkerConstraints,
  type RememberedScan,
} from './marker.js';
import { gatherRoots } from './roots.js';

/**
 * The paper's narrow-queue threshold: its CPU fallback (section 5.4) hands the trace
 * back to the CPU once the frontier drops below 20 objects (section 6 uses 20), and
 * gpu-bfs's `fallbackThreshold` defaults to the same value.
 */
export const NARROW_THRESHOLD = 20;

/** Out-degree bins of section 3.2's Figure 3 (inclusive bounds). */
export const OUT_DEGREE_BINS: readonly { label: string; lo: number; hi: number }[] = [
  { label: '0', lo: 0, hi: 0 },
  { label: '1', lo: 1, hi: 1 },
  { label: '2', lo: 2, hi: 2 },
  { label: '3', lo: 3, hi: 3 },
  { label: '4', lo: 4, hi: 4 },
  { label: '5-8', lo: 5, hi: 8 },
  { label: '9-16', lo: 9, hi: 16 },
  { label: '17-64', lo: 17, hi: 64 },
  { label: '65+', lo: 65, hi: Infinity },
];

/** What the analysis needs of a heap: its words, how to find references, its layout. */
export interface ShapeHeap {
  readonly words: Int32Array;
  readonly types: RefTables;
  /** Sable: the reference count is in a+2 and the references follow the header. */
  readonly contiguousRefs: boolean;
  /** Words the object at `a` spans, header included (layout.ts TypeTable.objectWords). */
  objectWords(a: number): number;
}

export interface HeapShape {
  /** Reachable objects, and their non-null references (edges, duplicates included). */
  objects: number;
  edges: number;
  /** Words of the reachable objects, headers included: what a marker visits. */
  words: number;
  /** widths[d] = objects first reached at BFS depth d; depth 0 is the distinct roots. */
  widths: number[];
  /** Number of BFS levels (widths.length). */
  depth: number;
  maxWidth: number;
  /** The first depth with maxWidth objects. */
  maxWidthDepth: number;
  /** Trailing levels narrower than the threshold (the tail at the end of the trace). */
  tailLevels: number;
  /** The longest run of consecutive narrow levels anywhere in the trace. */
  longestNarrowRun: number;
  narrowThreshold: number;
  /** Objects per out-degree bin, in OUT_DEGREE_BINS order. */
  outDegree: number[];
  maxOutDegree: number;
}

export type ShapeRating = 'good' | 'moderate' | 'poor';

export interface ShapeVerdict {
  /** Whether this heap suits GPU marking: its shape and its size. */
  rating: ShapeRating;
  /** The shape's rating alone (section 3), as if the heap were large enough. */
  shapeRating: ShapeRating;
  /** One line, citing the paper's reasoning. */
  text: string;
}

/**
 * The live size below which a GPU mark cannot pay for its fixed cost, however well
 * shaped the heap: `words`, with the reason for the verdicts' text. The
 * caller derives it from the pause model (cli/heapshape.ts), so this file stays
 * free of the collectors' figures.
 */
export interface GpuSizeThreshold {
  words: number;
  /** A clause for each verdict's text: "where ... outweighs ...". */
  why: string;
  /** The figures behind `words`, for the output's header. */
  derivation: string;
}

function binOf(degree: number): number {
  if (degree <= 4) return degree;
  if (degree <= 8) return 5;
  if (degree <= 16) return 6;
  if (degree <= 64) return 7;
  return 8;
}

/**
 * Breadth-first traversal of everything reachable from `roots` (zeros ignored,
 * duplicates counted once), level by level as an ideal BFS marker would go.
 * `scratch`, when given, is a zeroed visited bitmap of one bit per heap word that
 * the caller may reuse; it is left zeroed again.
 */
export function analyzeHeapShape(
  heap: ShapeHeap,
  roots: ArrayLike<number>,
  narrowThreshold = NARROW_THRESHOLD,
  scratch?: Uint32Array,
): HeapShape {
  const words = heap.words;
  const { kind, refBegin, refCount, refOffsets } = heap.types;
  const contiguous = heap.contiguousRefs;
  const seen = scratch ?? new Uint32Array((words.length + 31) >>> 5);
  const widths: number[] = [];
  const outDegree = new Array<number>(OUT_DEGREE_BINS.length).fill(0);
  let frontier = new IntList(1024);
  let next = new IntList(1024);
  const visited = new IntList(1024); // to clear `seen` afterwards
  let edges = 0;
  let liveWords = 0;
  let maxOutDegree = 0;

  const reach = (c: number): void => {
    if (c <= 0 || c >= words.length) return;
    const bit = 1 << (c & 31);
    const w = c >>> 5;
    if ((seen[w]! & bit) !== 0) return;
    seen[w]! |= bit;
    visited.push(c);
    next.push(c);
  };

  for (let i = 0; i < roots.length; i++) reach(roots[i]!);
  while (next.length > 0) {
    [frontier, next] = [next, frontier];
    next.clear();
    widths.push(frontier.length);
    const f = frontier.data;
    for (let i = 0; i < frontier.length; i++) {
      const a = f[i]!;
      let degree = 0;
      const end = refRunEnd(words, kind, contiguous, a);
      let j = a + HEADER_WORDS;
      let e = end;
      let base = 0;
      if (end === SCATTERED) {
        const t = words[a + TYPE_WORD]!;
        j = refBegin[t]!;
        e = j + refCount[t]!;
        base = a;
      }
      for (; j < e; j++) {
        const c = words[base === 0 ? j : base + refOffsets[j]!]!;
        if (c !== 0) { degree++; reach(c); }
      }
      edges += degree;
      liveWords += heap.objectWords(a);
      outDegree[binOf(degree)]!++;
      if (degree > maxOutDegree) maxOutDegree = degree;
    }
  }
  const v = visited.data;
  for (let i = 0; i < visited.length; i++) seen[v[i]! >>> 5] = 0;

  let maxWidth = 0;
  let maxWidthDepth = 0;
  let run = 0;
  let longestNarrowRun = 0;
  widths.forEach((w, d) => {
    if (w > maxWidth) { maxWidth = w; maxWidthDepth = d; }
    run = w < narrowThreshold ? run + 1 : 0;
    if (run > longestNarrowRun) longestNarrowRun = run;
  });
  return {
    objects: visited.length,
    edges,
    words: liveWords,
    widths,
    depth: widths.length,
    maxWidth,
    maxWidthDepth,
    tailLevels: run,
    longestNarrowRun,
    narrowThreshold,
    outDegree,
    maxOutDegree,
  };
}

/** Levels of narrow frontier that count as a long tail (the paper's lusearch tails). */
const LONG_TAIL_LEVELS = 100;
/** "Hundreds of objects in parallel" (section 3) keep a GPU busy; thousands saturate it. */
const WIDE = 1000;
const WORKGROUP = 128;

const count = (n: number): string => n.toLocaleString('en-US');

/**
 * Whether the snapshot suits GPU marking. A heap under `minSize` live words is poor
 * whatever its shape: the GPU's fixed cost per mark outweighs the whole of a CPU
 * mark there. Otherwise the shape decides (shapeJudgement).
 */
export function shapeVerdict(s: HeapShape, minSize: GpuSizeThreshold): ShapeVerdict {
  const byShape = shapeJudgement(s);
  if (s.objects === 0 || s.words >= minSize.words) return { ...byShape, shapeRating: byShape.rating };
  return {
    rating: 'poor',
    shapeRating: byShape.rating,
    text:
      `poor for GPU marking: too small, ${count(s.words)} live words (${count(s.objects)} objects) under the ` +
      `${count(minSize.words)} ${minSize.why}; by shape alone ${byShape.text}`,
  };
}

/**
 * The shape's verdict alone (section 3). Long narrow runs dominate it: a GPU step per
 * level with a handful of objects leaves the device idle and loses to the CPU's caches
 * (sections 3.1 and 5.4), however wide the rest is.
 */
function shapeJudgement(s: HeapShape): Omit<ShapeVerdict, 'shapeRating'> {
  const narrow = s.longestNarrowRun;
  const big = s.outDegree[8]!;
  const heavy = big > 0 ? `; ${big} object${big === 1 ? ' with 65+ references causes' : 's with 65+ references cause'} divergence (3.2)` : '';
  if (s.objects === 0) return { rating: 'poor', text: 'poor: nothing reachable, nothing to parallelise' };
  if (narrow >= LONG_TAIL_LEVELS && narrow * 2 >= s.depth) {
    return {
      rating: 'poor',
      text:
        `poor for GPU marking: a long narrow tail of ${narrow} of ${s.depth} levels under ${s.narrowThreshold} objects ` +
        `(3.1: tails serialise the BFS; 5.4: the CPU's caches win, fall back)${heavy}`,
    };
  }
  if (s.maxWidth >= WIDE && narrow < LONG_TAIL_LEVELS) {
    return {
      rating: 'good',
      text:
        `good for GPU (BFS) marking: max width ${s.maxWidth} at depth ${s.maxWidthDepth} over ${s.depth} levels ` +
        `(3.1: thousands of objects per step saturate memory bandwidth)${heavy}`,
    };
  }
  if (s.maxWidth >= WORKGROUP) {
    const tail = narrow >= LONG_TAIL_LEVELS ? `, but a narrow run of ${narrow} levels` : '';
    return {
      rating: 'moderate',
      text:
        `moderate: max width ${s.maxWidth} at depth ${s.maxWidthDepth} fills a workgroup, not the device${tail} ` +
        `(3.1: hundreds of objects per step are needed)${heavy}`,
    };
  }
  return {
    rating: 'poor',
    text:
      `poor for GPU marking: never wider than ${s.maxWidth} objects per level over ${s.depth} levels ` +
      `(3.1: widths of 30-80 use at most a third of a GPU)${heavy}`,
  };
}

/** One analysed collection. */
export interface ShapeSnapshot {
  /** The collection's number (as in --log-gc). */
  collection: number;
  /** The kind of trace the plan asked for at that moment (a failed young one becomes full). */
  kind: 'young' | 'full';
  shape: HeapShape;
}

/**
 * A marker that records the heap's shape before delegating to `inner`. The roots are
 * always the interpreter's full root set (a young request carries only young roots
 * and the remembered set), so every snapshot is of the whole reachable heap. The
 * analysis time is part of the pause: heapshape runs are not for timing.
 */
export class ShapeMarker implements HeapCopyMarker {
  readonly name: string;
  /** The inner engine's, but its remembered-set scan: the wrapper traces the
   *  whole heap from the interpreter's roots anyway. */
  readonly constraints: MarkerConstraints;
  readonly snapshots: ShapeSnapshot[] = [];
  private readonly roots = new IntList();
  private readonly scratch: Uint32Array;

  constructor(
    private readonly heap: HeapImpl,
    private readonly inner: Marker,
    private readonly narrowThreshold = NARROW_THRESHOLD,
    /** The plan that owns `inner` disposes it; this wrapper must not do so twice. */
    private readonly ownsInner = false,
    /** Called before each snapshot (heapshape's progress line). */
    private readonly onMark?: () => void,
  ) {
    this.name = inner.name;
    this.constraints = { ...inner.constraints, scansRememberedSet: false };
    this.scratch = new Uint32Array((heap.words.length + 31) >>> 5);
  }

  // A GPU engine's mirror keeps working under the wrapper: the plan calls these
  // only when the constraints, the inner engine's, say it keeps a copy.
  replayEvacuation(live: Int32Array, forward: Int32Array, slotRuns: Int32Array): Promise<void> {
    return heapCopyOf(this.inner)!.replayEvacuation(live, forward, slotRuns);
  }

  scanRememberedSet(): Promise<RememberedScan | null> {
    return Promise.resolve(null);
  }

  verifyCopy(check: (copy: Uint32Array) => void): Promise<void> {
    return heapCopyOf(this.inner)!.verifyCopy(check);
  }

  mark(request: MarkRequest): MarkResult | Promise<MarkResult> {
    const h = this.heap;
    this.onMark?.();
    this.roots.clear();
    gatherRoots(h, false, this.roots);
    const shape = analyzeHeapShape(
      { words: h.words, types: h.types, contiguousRefs: h.refSlots.contiguous, objectWords: (a) => h.types.objectWords(h.words, a) },
      this.roots.view(),
      this.narrowThreshold,
      this.scratch,
    );
    // The record of this collection is written after marking; its number is the next one.
    const s = h.stats;
    const collection = s.youngCollections + s.fullCollections + 1;
    const last = this.snapshots[this.snapshots.length - 1];
    // "Promotion failed": the young attempt is redone as a full one with the same number.
    if (last !== undefined && last.collection === collection) this.snapshots.pop();
    this.snapshots.push({ collection, kind: request.kind, shape });
    return this.inner.mark(request);
  }

  dispose(): void {
    if (this.ownsInner) this.inner.dispose();
  }
}
