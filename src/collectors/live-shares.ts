/**
 * What a program's recent collections kept, per kind: the share of the young
 * generation in use that a young collection copied (survivors and promotions),
 * and the share of the heap in use that a full one left live, each a decaying
 * ratio (G1's decaying averages). auto's pause model and the GPU collectors'
 * threshold (device-threshold.ts) size a coming collection by them.
 */

import type { CollectionKind, GcRecord } from '../heap/telemetry.js';
import { DecayingRatio } from './decaying-fit.js';

/** Weight of the newest collection (G1's 1 - alpha). */
const WEIGHT = 0.3;
/** Before a program's first collection of a kind its share is unknown: the middle
 *  of [0, 1], since too low an estimate hands a collection that copies much to the
 *  engine cheapest for little work, the dearer mistake
 *  (docs/decisions/s35-04-auto-first-estimates.md). */
const FIRST_SHARE = 0.5;

export class LiveShares {
  readonly young = new DecayingRatio(FIRST_SHARE, WEIGHT);
  readonly full = new DecayingRatio(FIRST_SHARE, WEIGHT);

  of(kind: CollectionKind): DecayingRatio {
    return kind === 'young' ? this.young : this.full;
  }

  /** Learns from the collection `record`, before which `youngWordsBefore` young words were in use. */
  observe(record: GcRecord, youngWordsBefore: number): void {
    if (record.kind === 'young') {
      if (youngWordsBefore > 0) this.young.observe((record.survivedBytes + record.promotedBytes) / 4 / youngWordsBefore);
    } else if (record.usedBefore > 0) {
      this.full.observe(record.usedAfter / record.usedBefore);
    }
  }
}
