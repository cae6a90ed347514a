/**
 * The messages between the main thread's GPU markers (host/host.ts) and the GPU
 * worker thread (worker/gpu-worker.ts), which owns the process's one WebGPU device.
 *
 * Why a worker: Dawn detaches a mapped range's ArrayBuffer on every unmap, and
 * the first detach in an isolate invalidates V8's "array buffer detaching"
 * protector for that isolate, so that every typed-array access its optimizing
 * compiler emits checks the buffer from then on, which slows the interpreter and
 * the evacuation of every process that ran a GPU mark (docs/decisions/r19d-02).
 * Detaches in a worker's isolate leave the main isolate's protector alone.
 *
 * What crosses: the heap's words, the reference graphs' arrays, the live list
 * and the large argument arrays are SharedArrayBuffers both threads address
 * (`SharedInts`; a young mark's live list is written after its reply, and
 * `MarkReply.progress` says how far); small arguments are copied by
 * postMessage; the worker hands the main thread fresh result arrays (a full mark's bitmap, a heap copy for
 * --verify-gc) by transferring them. The main thread never transfers a buffer,
 * since a transfer detaches it on the sending side.
 */
import type { Assigned, DeviceEvacuated, MarkTimes, Refused, YoungSpaces } from '../gc/marker.js';
import type { GpuAdapterDescription } from './device/adapter.js';
import type { GpuMarkStats, GpuStartup } from './worker/gpu-marker.js';
import type { DirtyRanges, GraphDirty, RefGraphs } from './mirror/mirror.js';
import type { GpuEngine, GpuOptions } from './options.js';
import type { GpuFaultKind } from './faults.js';

/** `length` int32 elements at element `offset` of a SharedArrayBuffer. */
export interface SharedInts {
  readonly buffer: SharedArrayBuffer;
  readonly offset: number;
  readonly length: number;
}

/** `buf` if it holds `n` elements, else a fresh shared array of twice its
 *  length until it does (the threads' reused shared arrays only grow). */
export function sharedCapacity(buf: Int32Array<SharedArrayBuffer>, n: number): Int32Array<SharedArrayBuffer> {
  if (n <= buf.length) return buf;
  let cap = Math.max(1, buf.length);
  while (cap < n) cap *= 2;
  return new Int32Array(new SharedArrayBuffer(cap * 4));
}

/** What the worker needs to build a `GpuMarker` input; the functions of the
 *  main thread's input become the fields that each request carries. */
export type InputSpec =
  | {
      readonly layout: 'sable';
      readonly words: SharedArrayBuffer;
      readonly dirtyRanges: boolean;
      readonly objectRanges: boolean;
      readonly sizeTable: boolean;
      readonly youngRange?: readonly [number, number];
    }
  | {
      readonly layout: 'refgraph';
      readonly words: SharedArrayBuffer;
      readonly dirtyGraphs: boolean;
      /** A heap mirror beside the graphs (marker-shape.ts keepsHeapMirror): the
       *  changes carry dirty ranges, and evacAssign the size and reference tables. */
      readonly heapMirror: boolean;
      readonly youngRange?: readonly [number, number];
    };

/** What changed in the heap since the last request that carried it: the
 *  worker's input hands these to its marker's next `takeDirty...` call. */
export interface Changes {
  readonly dirty?: DirtyRanges | 'all';
  readonly graphs?: RefGraphs;
  readonly graphDirty?: GraphDirty;
}

export type HostRequest =
  | { readonly op: 'adapter'; readonly benchmark: boolean }
  | {
      readonly op: 'create';
      readonly marker: number;
      readonly engine: GpuEngine;
      readonly options: GpuOptions;
      readonly benchmark: boolean;
      readonly warmUp?: boolean;
      readonly input: InputSpec;
    }
  | { readonly op: 'open'; readonly marker: number }
  | { readonly op: 'prepare'; readonly marker: number }
  | { readonly op: 'uploadAhead'; readonly marker: number; readonly start: number; readonly end: number; readonly room: number }
  | {
      readonly op: 'mark';
      readonly marker: number;
      readonly kind: 'young' | 'full';
      readonly youngStart: number;
      readonly youngEnd: number;
      readonly roots: SharedInts;
      readonly objectRanges?: number[];
      readonly changes: Changes;
      /** heap/clock.ts now() at sending, for the phase log. */
      readonly sentAt: number;
      /** A young mark whose objects the device evacuates next: its live list is copied
       *  to the main thread only when asked (`streamLive`), or when the evacuation
       *  leaves it to the CPU. */
      readonly deferLive?: boolean;
      /** With `deferLive`: the device's evacuation, made after the mark in the same
       *  request (gc/marker.ts MarkRequest.evacuate), as `evacAssign` makes it. */
      readonly evacuate?: EvacuateArgs;
    }
  | { readonly op: 'streamLive'; readonly marker: number }
  | {
      readonly op: 'replay';
      readonly marker: number;
      /** The live list's length as the plan evacuated it. */
      readonly liveLength: number;
      /** After a full mark, its young objects; absent after a young mark, whose list the worker holds. */
      readonly live?: SharedInts;
      readonly forward: SharedInts;
      readonly slotRuns: SharedInts;
      readonly sizeTable?: Uint32Array;
    }
  | {
      readonly op: 'remset';
      readonly marker: number;
      readonly ranges: SharedInts;
      /** The ranges' slots, counted by the host. */
      readonly slots: number;
      /** A young collection's scan, whose mark follows (else a full one's, after it). */
      readonly beforeMark: boolean;
      readonly youngStart: number;
      readonly youngEnd: number;
      readonly changes: Changes;
    }
  | ({
      readonly op: 'evacAssign';
      readonly marker: number;
      readonly liveLength: number;
    } & EvacuateArgs)
  | ({ readonly op: 'evacFinish'; readonly marker: number } & FinishArgs)
  | { readonly op: 'verifyCopy'; readonly marker: number; readonly changes: Changes }
  | { readonly op: 'dispose'; readonly marker: number };

/** A mark's result: a young mark's live list in the worker's shared buffer, a
 *  full mark's bitmap transferred (words [offset, offset + length) of `buffer`). */
export interface MarkReply {
  readonly live?: SharedInts;
  readonly bitmap?: { readonly buffer: ArrayBuffer; readonly offset: number; readonly length: number };
  /** With `live`: entry 0 counts the entries of `live` written so far (-1 if
   *  the copy failed); the worker copies the list after replying. */
  readonly progress?: SharedArrayBuffer;
  readonly times: MarkTimes;
  readonly stats: GpuMarkStats | null;
  /** heap/clock.ts now() at replying. */
  readonly repliedAt: number;
  /** With the request's `evacuate`: the assignment, and with `finished` the evacuation. */
  readonly evacuation?: EvacAssignReply;
}

export interface RemsetReply {
  readonly roots: Int32Array;
  readonly runs: Int32Array;
  readonly syncMs: number;
}

export type HostReply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | {
      readonly id: number;
      readonly ok: false;
      /** `fault`: the device failed (faults.ts), and the main thread goes on on the CPU. */
      readonly error: { readonly name: string; readonly message: string; readonly stack?: string; readonly fault?: GpuFaultKind };
    };

export type AdapterReply = GpuAdapterDescription;

/** `prepare`: the adapter, and what the marker's start-up spent. */
export interface PrepareReply {
  readonly adapter: GpuAdapterDescription;
  readonly startup: GpuStartup;
}

/** A device evacuation's result: the new addresses in the worker's shared buffer. */
export interface EvacFinishReply extends Omit<DeviceEvacuated, 'forward' | 'rememberedEdges'> {
  readonly forward: SharedInts;
  readonly rememberedEdges?: SharedInts;
}

/** What a device evacuation's finish takes, in shared memory. */
export interface FinishArgs {
  readonly base: number;
  readonly slotRuns: SharedInts;
  readonly headers: boolean;
  /** The roots' young referents, ascending (roots.ts rootReferents); null: every new address. */
  readonly referents: SharedInts | null;
  readonly edgeStarts: SharedInts | null;
}

/** What the device's assignment takes (`evacAssign`, or a mark's `evacuate`). */
export interface EvacuateArgs {
  readonly spaces: YoungSpaces;
  readonly sizeTable?: Uint32Array;
  readonly refTable?: Uint32Array;
  /** The finish's arguments and a promotion buffer carved ahead (gc/marker.ts
   *  FinishAhead): promotions that fit it are finished in the same request. */
  readonly ahead?: FinishArgs & { readonly reserve: number };
}

/** An assignment, and with `finished` the finish done in the same request. */
export type EvacAssignReply = (Assigned & { readonly finished?: EvacFinishReply }) | Refused;
