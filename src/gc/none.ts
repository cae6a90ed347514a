/**
 * The `none` collector: allocation only. A failed allocation is out of memory at
 * once (the heap sees `collects: false` and throws instead of requesting a
 * collection); gc(), minorGc() and `--gc-stress` do nothing. Useful as the baseline
 * for mutator speed and for programs that fit the heap.
 */

import type { Collector } from '../heap/collector.js';
import type { CollectionKind } from '../heap/telemetry.js';

export class NoneCollector implements Collector {
  readonly name = 'none';
  readonly collects = false;

  collect(kind: CollectionKind): Promise<CollectionKind> {
    return Promise.resolve(kind);
  }

  dispose(): void {}
}
