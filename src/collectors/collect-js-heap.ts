/**
 * One full collection of V8's own heap, after the collectors' warm-up and before
 * the program: the warm-up leaves megabytes of JavaScript garbage and an
 * incremental marking under way, and the V8 collections that would finish them
 * otherwise fall inside the program's first pauses, wherever the collector's own
 * code happens to allocate (docs/decisions/s47-02-v8-collects-after-the-warm-up.md).
 */

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Gc = (options?: { type: 'minor' | 'major' }) => void;

let gc: Gc | null = null;

/** Collects the main isolate's heap; returns the milliseconds it took. */
export function collectJsHeap(): number {
  const t = performance.now();
  if (gc === null) {
    // A context made while the flag is on has `gc`; the flag goes off again at
    // once, because V8 stamps code caches with its flags (the compiled tier's
    // cache must match whichever run wrote it).
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as Gc;
    setFlagsFromString('--no-expose-gc');
  }
  gc({ type: 'major' });
  return performance.now() - t;
}
