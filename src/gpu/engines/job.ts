/**
 * What a marker hands an engine and gets back: the trace job (roots, ranges and
 * sizes of one mark, in node ids and reference words), the layout's part of the
 * program (`MirrorTarget`), the CPU's view of the same nodes, and the result.
 *
 * An engine sees only node ids and reference words (see kernels/layout-*.wgsl);
 * the layout (`MirrorTarget`) supplies the bindings and accessors to read nodes.
 */
import type { MarkTimes } from '../../gc/marker.js';
import type { BindingSpec } from '../device/shader.js';
import { PARAMS, structWords } from '../kernels/constants.js';
import { now } from '../../heap/clock.js';

/** The layout side of a mark: the mirror's bindings and WGSL accessors. */
export interface MirrorTarget {
  readonly layout: 'sable' | 'refgraph';
  bindings(vector: boolean): BindingSpec[];
  buffers(): Record<string, GPUBuffer>;
  accessors(vector: boolean): string;
}

/** A CPU view of the same nodes, for the gpu-bfs fallback (cpu-trace.ts). */
export interface CpuNodes {
  /** As the kernels' decodeRef: a reference word to a node id, or 0 when not traced. */
  decode(raw: number): number;
  /** Calls `visit` with each reference word of node n. */
  refs(n: number, visit: (raw: number) => void): void;
  address(n: number): number;
}

export interface TraceJob {
  readonly kind: 'young' | 'full';
  /** Root reference words (sable: addresses; refgraph: edge values). */
  readonly roots: Uint32Array<ArrayBuffer>;
  readonly heapWords: number;
  /** sable: the young range of addresses (both 0 for refgraph). */
  readonly youngStart: number;
  readonly youngEnd: number;
  /** Bound on node ids: every id is below it (sable: heap words; refgraph: vertices + 1). */
  readonly nodeCount: number;
  /** refgraph: young vertices (tenured ids start after them); 0 for sable. */
  readonly youngVertices: number;
  /** Young collections: most live objects there can be. */
  readonly liveCap: number;
  /** Most reference words the trace can expand (sizes the bfs queue). */
  readonly refBound: number;
  /** Linked-stack elements needed (gpu-dfs) and the node id of element 0 (sable). */
  readonly stackSize: number;
  /** gpu-dfs: at most two [start, end) ranges of stack elements that idle threads
   *  scan for work (sable young marks: the occupied young spaces); absent: all. */
  readonly scanRanges?: readonly number[];
  readonly nodeBase: number;
  /** Addresses whose bits the result can hold: read back only their bitmap words. */
  readonly resultStart: number;
  readonly resultEnd: number;
  /** sable: bitmap-word ranges ([from, to) pairs, sorted) of the heap that the
   *  mirror ever received; words never uploaded are zero on the device and hold
   *  no object, so only these ranges of the bitmap are read back. */
  readonly resultWords?: readonly number[];
  readonly cpu: CpuNodes;
  /** sable: the heap's words, for the closure-free CPU fallback (cpu-trace.ts). */
  readonly sableWords?: Int32Array;
  /** Young marks the device evacuates next: an engine that puts its list in
   *  address order on the device leaves it there (TraceResult.keptLive). */
  readonly keepLive?: boolean;
}

export interface TraceResult {
  /** The MarkResult bitmap over heap addresses. */
  readonly bitmap: Uint32Array;
  readonly live?: Int32Array;
  /** Young marks: how many leading entries of `live` the engine's live buffer
   *  (`liveBuffer()`) holds on the device, for replaying the evacuation there. */
  readonly deviceLive?: number;
  /** A young mark of a `keepLive` job whose list stayed on the device: its length
   *  (`live` is then absent, and `readLive` reads it back), and the submission
   *  that puts it in address order there, which must run before anything reads it. */
  readonly keptLive?: { readonly length: number; readonly order: () => void };
  readonly times: MarkTimes;
  /** Rounds (gpu-dfs) or levels (gpu-bfs) run on the GPU. */
  readonly rounds: number;
  readonly submits: number;
  /** The frontier (gpu-bfs) or pending nodes (gpu-dfs) handed to the CPU, -1 when the GPU finished. */
  readonly fallbackFrontier: number;
  /** gpu-dfs: nodes its pointer chases marked from guessed addresses (dfs.wgsl chaseAhead). */
  readonly chasedAhead?: number;
  /** Host milliseconds by step, for `GpuMarkStats` (setup, rounds, gpu, drain, readback, cpu). */
  readonly phases?: Record<string, number>;
}

/** Copies words to a device buffer (large root sets go through the mirror's
 *  staging ring, faster than queue.writeBuffer: r19g-0009); resolves when they are there. */
export type DeviceWriter = (dst: GPUBuffer, words: Uint32Array<ArrayBuffer>) => Promise<void>;

/** Roots beyond this many go through the staging ring rather than writeBuffer. */
export const STAGED_ROOTS = 1 << 16;

/** Writes the roots to `dst` at word 0, returning host ms (for MarkTimes.upload). */
export async function writeRoots(
  device: GPUDevice,
  dst: GPUBuffer,
  roots: Uint32Array<ArrayBuffer>,
  writer?: DeviceWriter,
): Promise<number> {
  if (roots.length === 0) return 0;
  const t = now();
  if (writer && roots.length > STAGED_ROOTS) await writer(dst, roots);
  else device.queue.writeBuffer(dst, 0, roots);
  return now() - t;
}

/** [from, to) bitmap words of the job's result, cut to the ranges the mirror
 *  holds (`resultWords`) when it says. */
export function resultSegments(job: TraceJob, bitmapWords: number): number[] {
  const from = Math.floor(job.resultStart / 32);
  const to = Math.min(bitmapWords, Math.ceil(job.resultEnd / 32));
  if (to <= from) return [];
  if (!job.resultWords) return [from, to];
  const out: number[] = [];
  const r = job.resultWords;
  for (let i = 0; i + 1 < r.length; i += 2) {
    const s = Math.max(from, r[i]!);
    const e = Math.min(to, r[i + 1]!);
    if (e > s) out.push(s, e);
  }
  return out;
}

export interface GpuEngineImpl {
  trace(job: TraceJob): Promise<TraceResult>;
  /** Compiles the young and full kernels ahead of the first mark. */
  prepare(): Promise<void>;
  /** The device buffer of the last young trace's live list (see TraceResult.deviceLive). */
  liveBuffer(): GPUBuffer;
  /** Reads back the first `count` entries of the last young trace's live list
   *  (one the trace left on the device: TraceResult.keptLive). */
  readLive(count: number): Promise<Int32Array>;
  /** Sizes the live list's read-back ahead of the first young mark (see GpuEngineBase). */
  reserveLiveReadback(count: number): Promise<void>;
  destroy(): void;
}

/** gpu-dfs: the stack elements idle threads scan for work, as (first, count) of
 *  each of two ranges: `job.scanRanges`, or the whole stack of `stackSize`. */
export function scanAreas(job: TraceJob, stackSize: number): [number, number, number, number] {
  const r = job.scanRanges ?? [0, stackSize];
  return [r[0] ?? 0, (r[1] ?? 0) - (r[0] ?? 0), r[2] ?? 0, (r[3] ?? 0) - (r[2] ?? 0)];
}

export function paramsBlock(job: TraceJob, extra: Partial<Record<'rootCount' | 'stackSize' | 'threadCount' | 'areaLen' | 'queueCap' | 'fallbackThreshold' | 'fallbackMinIterations' | 'wideCap', number>>): Uint32Array<ArrayBuffer> {
  const [scanLo0, scanN0, scanLo1, scanN1] = scanAreas(job, extra.stackSize ?? 0);
  return structWords(PARAMS, {
    youngStart: job.youngStart,
    youngEnd: job.youngEnd,
    nodeBase: job.nodeBase,
    rootCount: job.roots.length,
    youngVertices: job.youngVertices,
    nodeCount: job.nodeCount,
    liveCap: job.liveCap,
    heapWords: job.heapWords,
    ...extra,
    scanLo0,
    scanN0,
    scanLo1,
    scanN1,
  });
}
