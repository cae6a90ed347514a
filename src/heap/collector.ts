/**
 * The heap's side of the seam with gc/: what the heap asks of whichever collector
 * the CLI attached. The heap decides *that* a collection is needed (a failed
 * allocation, `--gc-stress`, gc()/minorGc()); the collector decides how to do it and
 * may escalate (a young collection whose promotions do not fit becomes a full one).
 * heap/ never imports gc/; gc/ implements this interface.
 */

import type { CollectionKind } from './telemetry.js';

export interface Collector {
  /** "none", "serial", "gpu-dfs", ... as shown in logs. */
  readonly name: string;
  /** False for `none`: the heap then treats a failed allocation as out of memory. */
  readonly collects: boolean;
  /** Runs one collection; resolves to the kind actually performed. `startedAt`
   *  (clock.ts now()): when its pause began, where a wrapper's work before it
   *  (a GPU collector's look from the roots that routes it) is part of the pause. */
  collect(kind: CollectionKind, cause: string, startedAt?: number): Promise<CollectionKind>;
  /** Releases threads or devices. */
  dispose(): void;
}
