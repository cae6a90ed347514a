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
}

/** Time spent, in milliseconds, by phase; GPU markers fill the transfer fields. */
export interface MarkTimes {
  mark: number;
  upload?: number;
  uploadBytes?: number;
  /** Uploaded ahead, in the program's time since the previous collection (not in the pause). */
  aheadBytes?: number;
  aheadMs?: number;
  kernel?: number;
  readback?: number;
  cpuFallback?: number;
}

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
}

export interface Marker {
  readonly name: string;
  /** Traces the heap. Collections are stop-the-world: the interpreter is parked at
   *  an allocation while this runs, so a GPU marker may await the device. */
  mark(request: MarkRequest): MarkResult | Promise<MarkResult>;
  /** Releases any device or threads. */
  dispose(): void;
  /** True when the marker keeps a copy of the heap (the GPU mirror) and makes a
   *  collection's moves to it itself (`replayEvacuation`): the plan then
   *  does not record the moved objects and rewritten slots as written words. */
  readonly replaysEvacuation?: boolean;
  /**
   * Called, when `replaysEvacuation`, after a collection evacuated `live`
   * (after a young mark its `live` array, in its order; after a full mark the
   * young objects of its bitmap, in address order) to the header
   * addresses `forward` and redirected the young references in tenured slots
   * (the remembered set; `slotRuns` holds them as (first slot, count) pairs)
   * through the forwarding headers: the marker makes the same changes to its copy.
   */
  replayEvacuation?(live: Int32Array, forward: Int32Array, slotRuns: Int32Array): Promise<void>;
  /** True when the marker can scan a young collection's remembered set itself. */
  readonly scansRememberedSet?: boolean;
  /**
   * Young collections, when `scansRememberedSet` (a marker with a copy of the
   * heap, sable layout): reads the reference slots of `ranges` ((first, end)
   * pairs: the slots of each dirty card's objects inside the card) and returns
   * each young object they reference once (`roots`) and the slots holding young
   * references as (first slot, count) runs (within one range), and `syncMs`,
   * the part of the call spent bringing its copy up to date for the mark (the
   * plan counts it in the mark). Null when it would rather not (too few slots
   * to be worth it) or could not (the plan then scans the ranges on the CPU).
   * The mark request follows.
   */
  scanRememberedSet?(
    ranges: Int32Array,
    youngStart: number,
    youngEnd: number,
  ): Promise<{ readonly roots: Int32Array; readonly runs: Int32Array; readonly syncMs: number } | null>;
  /** `--verify-gc`, for a marker that keeps a copy of the heap: brings the copy up
   *  to date and hands it (one word per heap word) to `check`. */
  verifyCopy?(check: (copy: Uint32Array) => void): Promise<void>;
}
