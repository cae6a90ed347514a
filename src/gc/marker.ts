/**
 * The seam between collection plans and marking engines.
 *
 * A generational plan (gc/plan) decides when to collect and does the CPU-side work:
 * gathering roots, evacuating young survivors, sweeping tenured. What it delegates is
 * the trace itself: "which objects are reachable from these roots?". The serial CPU
 * marker, the parallel marker and the GPU markers (gpu/) all implement `Marker`, so
 * every plan works with every engine and `--verify-gc` can compare any engine's
 * result with an independent CPU traversal.
 *
 * Objects are read as heap/object-model.ts draws them, their references where
 * heap/ref-slots.ts says.
 */

import type { DeviceGraph } from '../heap/ref-graph.js';
import type { Collector } from '../heap/collector.js';
import type { GcRecord, MarkerTimes } from '../heap/telemetry.js';

/**
 * Thrown by a marker whose device failed (lost, out of memory, a read-back it
 * would not map) before the call changed anything in the heap: the caller
 * finishes the collection on the CPU, from the CPU's heap
 * (docs/decisions/s28f-01-gpu-faults-fall-back-to-the-cpu.md).
 */
export class MarkerFaultError extends Error {
  constructor(
    readonly fault: string,
    message: string,
  ) {
    super(message);
    this.name = 'MarkerFaultError';
  }
}

/** What a marker is asked to do. */
export interface MarkRequest {
  /** Root references (heap addresses, no zeros): interpreter roots plus, for a young
   *  collection, the young referents found in dirty cards (the remembered set). */
  readonly roots: Int32Array;
  /** Young collection: trace only objects with youngStart <= address < youngEnd and
   *  do not follow references out of that range. Full collection: trace everything. */
  readonly kind: 'young' | 'full';
  readonly youngStart: number;
  readonly youngEnd: number;
  /** A young collection that a marker evacuating young collections on its device
   *  (`constraints.evacuatesYoung`) evacuates next: it may assign, and finish when
   *  the promotions fit, with the mark (`MarkResult.evacuation`; docs/decisions/s62-04). */
  readonly evacuate?: EvacuateAhead;
}

/** The device evacuation's arguments, given with the mark (`MarkRequest.evacuate`). */
export interface EvacuateAhead {
  readonly spaces: YoungSpaces;
  readonly ahead: FinishAhead;
}

/** Time spent, in milliseconds, by phase (heap/telemetry.ts records them). */
export type MarkTimes = MarkerTimes;

export interface MarkResult {
  /** One bit per heap word: bit (a & 31) of word (a >> 5) set iff the object whose
   *  header is at address a is reachable (for young: reachable and young). */
  readonly bitmap: Uint32Array;
  /** Young collections only: the addresses of the reachable young objects, in any
   *  order. The marker may reuse its memory at its next mark. */
  readonly live?: Int32Array;
  /** Set, with `live`, by a marker that hands `live` over while it is still
   *  being written (the GPU worker copies it out of a mapped read-back while the
   *  evacuation starts on its head): returns once entries [0, count) are
   *  written. Readers of `live` call it first; without it the whole list is
   *  there at once. `bitmap` is whole whenever it is read. */
  readonly liveReady?: (count: number) => void;
  readonly times: MarkTimes;
  /** With `MarkRequest.evacuate`, when the device marked: its assignment, and with
   *  `finished` the whole evacuation, as `assignYoung` would have answered. */
  readonly evacuation?: DeviceAssignment;
}

/** What a young copier reports (see `YoungCopier`). */
export interface CopyResult {
  /** Under the refgraph layout, the new header addresses of the copies, and of
   *  fillers (objects nobody refers to that keep the to-space walkable), in no
   *  particular order; else empty. The old objects' forwarding headers may be in
   *  the one-word form (heap/object-model.ts forwardee). */
  readonly moved: Int32Array;
  /** The dirty cards the copier found and walked, when it was handed no ranges
   *  (a view valid until its next copy); else empty. */
  readonly cards: Int32Array;
  /** Objects copied (fillers not counted). */
  readonly count: number;
  /** The to-survivor space's top after the copy. */
  readonly toTop: number;
  readonly survivedWords: number;
  readonly promotedWords: number;
  /** Per-thread work for `--log-gc` (MarkTimes.threads). */
  readonly threads: string;
}

/**
 * A copying engine for young objects (the parallel collector's threads): it
 * copies everything reachable from the roots and the remembered set out
 * of eden and from-survivor, ageing and promoting as the serial evacuation does,
 * and leaves forwarding headers behind, instead of the plan marking first and
 * evacuating the marked objects.
 */
export interface YoungCopier {
  /** Starts the copier's threads if they are not running yet. */
  start(): Promise<void>;
  /** Makes sure the copy cannot fail for want of tenured space; false (with
   *  nothing changed) when it cannot, and the plan evacuates serially. */
  reserve(): boolean;
  /** After `reserve`: copies from `roots` (young addresses, each once) and the
   *  young references of the remembered set, which it redirects, dirtying their
   *  cards where the referent stays young: those in `ranges` ((first, end) slot
   *  pairs, their cards cleaned), or, when null (sable only), those of the
   *  objects on the dirty cards, which it finds, cleans and walks itself. */
  copy(roots: Int32Array, ranges: Int32Array | null): CopyResult;
}

/**
 * What a marker does besides marking, stated as data the plan reads once per
 * collection (as mmtk-core's `PlanConstraints` states a plan's), so the seam
 * grows a field, not an optional method, when an engine learns something new.
 */
export interface MarkerConstraints {
  /** It keeps a copy of the heap (a GPU mirror) and is a `HeapCopyMarker`;
   *  `--verify-gc` then also checks the copy. */
  readonly keepsHeapCopy: boolean;
  /** It makes a collection's moves to its copy itself (`replayEvacuation`): the
   *  plan then does not log the moved objects and rewritten slots as written. */
  readonly replaysEvacuation: boolean;
  /** It can read a young collection's remembered set on its copy
   *  (`scanRememberedSet`). */
  readonly scansRememberedSet: boolean;
  /** Its threads can also copy young objects (`--gc parallel`): it is a
   *  `CopyingMarker`, and the plan hands young collections to its copier. */
  readonly copiesYoung: boolean;
  /** It evacuates young collections on its device and is a
   *  `YoungEvacuatingMarker` (gc/device-evacuation.ts); absent: it does not. */
  readonly evacuatesYoung?: boolean;
  /** Its threads sweep tenured after its own full mark: it is a `SweepingMarker`;
   *  absent: the plan sweeps on the main thread. */
  readonly sweepsTenured?: boolean;
}

/** The constraints of a marker that reads the heap itself and keeps nothing. */
export const HEAP_READER: MarkerConstraints = Object.freeze({
  keepsHeapCopy: false,
  replaysEvacuation: false,
  scansRememberedSet: false,
  copiesYoung: false,
});

export interface Marker {
  readonly name: string;
  readonly constraints: MarkerConstraints;
  /** Traces the heap. Collections are stop-the-world: the interpreter is parked at
   *  an allocation while this runs, so a GPU marker may await the device. */
  mark(request: MarkRequest): MarkResult | Promise<MarkResult>;
  /** Releases any device or threads. */
  dispose(): void;
}

/** The remembered set found by a marker on its copy (`scanRememberedSet`). */
export interface RememberedScan {
  /** Each young object the slots reference, once. */
  readonly roots: Int32Array;
  /** The slots holding young references, as (first slot, count) runs within one range. */
  readonly runs: Int32Array;
  /** The part of the call spent bringing the copy up to date for the mark (the
   *  plan counts it in the mark). */
  readonly syncMs: number;
}

/** A marker that chooses an engine for each collection (`--gc auto`): the plan
 *  runs inside the collector `around` makes of it, and each collection's record
 *  goes to `observe` to learn from. */
export interface ChoosingMarker extends Marker {
  around(plan: Collector): Collector;
  observe(record: GcRecord): void;
  /** Called by the warm-up while its scratch heap's roots still reach the
   *  workload's objects: runs what the marker does once a run, so that it runs
   *  warm then. */
  rehearse(): void;
}

/** `m` as a marker that chooses around each collection, or null. */
export function choosingOf(m: Marker): ChoosingMarker | null {
  const c = m as Partial<ChoosingMarker>;
  return typeof c.around === 'function' && typeof c.observe === 'function' && typeof c.rehearse === 'function' ? (m as ChoosingMarker) : null;
}

/** A marker that keeps a copy of the heap (`constraints.keepsHeapCopy`). */
export interface HeapCopyMarker extends Marker {
  /**
   * Called, when `constraints.replaysEvacuation`, after a collection evacuated
   * `live` (after a young mark its `live` array, in its order; after a full mark
   * the young objects of its bitmap, in address order) to the header addresses
   * `forward` and redirected the young references in tenured slots (the
   * remembered set; `slotRuns` holds them as (first slot, count) pairs) through
   * the forwarding headers: the marker makes the same changes to its copy.
   */
  replayEvacuation(live: Int32Array, forward: Int32Array, slotRuns: Int32Array): Promise<void>;
  /**
   * When `constraints.scansRememberedSet` (a heap copy: sable, or refgraph
   * evacuating on the device): reads the reference
   * slots of `ranges` ((first, end) pairs: the slots of each dirty card's
   * objects inside the card). Null when it would rather not (too few slots to be
   * worth it) or could not (the plan then scans the ranges on the CPU). In a
   * young collection (`beforeMark`) the mark request follows and uses the copy
   * this brought up to date; in a full one the mark came before, and only the
   * runs are used.
   */
  scanRememberedSet(ranges: Int32Array, youngStart: number, youngEnd: number, beforeMark?: boolean): Promise<RememberedScan | null>;
  /** `--verify-gc`: brings the copy up to date and hands it (one word per heap
   *  word) to `check`. */
  verifyCopy(check: (copy: Uint32Array) => void): Promise<void>;
}

/** `m` as a marker with a heap copy, or null when it keeps none. */
export function heapCopyOf(m: Marker): HeapCopyMarker | null {
  return m.constraints.keepsHeapCopy ? (m as HeapCopyMarker) : null;
}

/** A marker whose threads also copy young objects (`constraints.copiesYoung`). */
export interface CopyingMarker extends Marker {
  readonly copier: YoungCopier;
}

/** The marker's young copier, when its constraints say it has one. */
export function copierOf(m: Marker): YoungCopier | null {
  return m.constraints.copiesYoung ? (m as CopyingMarker).copier : null;
}

/**
 * Sweeps tenured after a full mark (the parallel collector's threads): the free
 * list rebuilt, marks cleared and block starts recorded as gc/sweep.ts does. False,
 * having changed nothing the serial sweep would not change again, when it did not
 * sweep (a bitmap not its own, or no room for its results): the plan sweeps then.
 */
export interface TenuredSweeper {
  sweep(bitmap: Uint32Array): boolean;
}

/** A marker whose threads also sweep (`constraints.sweepsTenured`). */
export interface SweepingMarker extends Marker {
  readonly sweeper: TenuredSweeper;
}

/** The marker's sweeper, when its constraints say it has one. */
export function sweeperOf(m: Marker): TenuredSweeper | null {
  return m.constraints.sweepsTenured === true ? (m as SweepingMarker).sweeper : null;
}

/** The spaces a young collection evacuates into (`Marker.assignYoung`). */
export interface YoungSpaces {
  readonly toStart: number;
  readonly toEnd: number;
  readonly tenureAge: number;
  readonly tenuredStart: number;
}

/** A marker's evacuation plan for the last young mark: words to to-survivor and
 *  to one promotion buffer, or why it will not evacuate this collection. With
 *  `finished`, the marker went on to finish it (`FinishAhead`). */
export type DeviceAssignment = (Assigned & { readonly finished?: DeviceEvacuated }) | Refused;

/** An assignment's words each side takes, and its host milliseconds. */
export interface Assigned {
  readonly ok: true;
  readonly survivedWords: number;
  readonly promotedWords: number;
  readonly ms: number;
}

/** Why a marker will not evacuate the collection. */
export interface Refused {
  readonly ok: false;
  readonly reason: string;
}

/**
 * `finishYoung`'s arguments, given to `assignYoung` before the promotions are
 * known, with a promotion buffer the CPU carved ahead (`reserve` words at
 * `base`; 0 words: none). When the promotions fit it, the marker finishes at
 * once: one request to the device instead of two (docs/decisions/s62-02).
 */
export interface FinishAhead {
  readonly base: number;
  readonly reserve: number;
  readonly slotRuns: Int32Array;
  readonly headers: boolean;
  readonly referents: Int32Array | null;
  readonly edgeStarts: Int32Array | null;
}

/** Whether an assignment of `promotedWords` finishes with the buffer carved ahead. */
export function fitsAhead<T extends { readonly reserve: number }>(promotedWords: number, ahead: T | undefined): ahead is T {
  return ahead !== undefined && promotedWords <= ahead.reserve;
}

/** Host milliseconds and bytes of a device evacuation's parts. */
export interface EvacuationTimes {
  /** Promoted addresses, copies, forwarding headers and fixes, until the device is done. */
  readonly copy: number;
  /** The read-back of what moved: the copy to mapped memory and its mapping. */
  readonly readback: number;
  readonly readbackBytes: number;
  /** Writing it into the heap's words (the forwarding headers included). */
  readonly write: number;
  /** Threads besides the device's that wrote it (gpu/worker/heap-writers.ts). */
  readonly writers: number;
  /** Of `write`, the time the device's thread waited for them. */
  readonly writeWait: number;
  /** The share of the words the device's thread wrote itself (1 without writers). */
  readonly writeOwn: number;
}

/** What a device evacuation leaves for the CPU: the new addresses (parallel to
 *  the live list) and the cards holding young references. */
export interface DeviceEvacuated {
  /** New addresses: of `referents[k]` at k when `picked`, else of every `live[i]` at i. */
  readonly forward: Int32Array;
  /** Only the referents' new addresses came back (`finishYoung`'s `referents`). */
  readonly picked: boolean;
  /** Bit c set: card `cardFirst + c` (counted from tenured's start) is dirty. */
  readonly cardBits: Uint32Array;
  readonly cardFirst: number;
  /** The remembered slots were redirected in the heap's words and their cards
   *  are among the bits; false: the CPU redirects them. */
  readonly slotsWritten: boolean;
  /** The old objects hold forwarding headers; false: the live list is in
   *  address order and the roots are redirected by searching it. */
  readonly headersWritten: boolean;
  /** Refgraph: the reference graphs the device rebuilt (as `RefGraph.rebuildAfterEvacuation`
   *  would) and wrote into the graph arrays, with the copies' layout words. */
  readonly graph?: DeviceGraph;
  /** With `graph.rememberedEdges`: the remembered slots' new edge values, in the
   *  order of the `slotRuns` runs' slots. */
  readonly rememberedEdges?: Uint32Array;
  readonly times: EvacuationTimes;
}

/** The graph arrays a device evacuation wrote (heap/ref-graph.ts has the shape). */
export type { DeviceGraph };

/** A heap-copy marker that can also evacuate a young collection on its device
 *  (`constraints.evacuatesYoung`): `assignYoung`, then `finishYoung`. */
export interface YoungEvacuatingMarker extends HeapCopyMarker {
  /** After a young mark: decides where each object of its live list goes
   *  (changing nothing yet). The plan either carves the promotion buffer and
   *  calls `finishYoung`, or evacuates on the CPU as usual (and replays). With
   *  `ahead`, promotions that fit its buffer are finished at once (`finished`). */
  assignYoung(live: Int32Array, spaces: YoungSpaces, ahead?: FinishAhead): Promise<DeviceAssignment>;
  /** Moves the objects with the promotion buffer at `base`, redirects the
   *  remembered slots `slotRuns` ((first, count) runs) in its copy, and writes
   *  what moved into the heap's words; the old objects' forwarding headers too
   *  when `headers` asks for them or the CPU needs them (`headersWritten`).
   *  `referents` (the roots' young referents, ascending, or null for all): the
   *  new addresses the CPU needs to redirect the roots; the marker finds them in
   *  its list when the list is in address order, else writes forwarding headers.
   *  `edgeStarts` (refgraph): per run, the tenured edge its first slot's edge is,
   *  or -1 where the object's slots are not a run; the device's new edges for the
   *  runs with a start go straight there (`DeviceEvacuated.rememberedEdges`
   *  holds the others'). */
  finishYoung(base: number, slotRuns: Int32Array, headers: boolean, referents: Int32Array | null, edgeStarts?: Int32Array | null): Promise<DeviceEvacuated>;
}

/** `m` as a young-evacuating marker, when its constraints say it is one. */
export function youngEvacuatorOf(m: Marker): YoungEvacuatingMarker | null {
  return m.constraints.keepsHeapCopy && m.constraints.evacuatesYoung === true ? (m as YoungEvacuatingMarker) : null;
}
