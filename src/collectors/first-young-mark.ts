/**
 * How much a program's first young collection keeps, for a GPU collector's
 * threshold (device-threshold.ts), found by serial's own young mark from the
 * roots, stopped once its objects pass the threshold's words. A collection
 * under the threshold goes to the CPU, which then takes this mark as its own:
 * the sizing costs a CPU collection nothing but counting the words. One over it
 * goes to the device, and the mark, the threshold's worth of objects, is dropped
 * (docs/decisions/s63-01-a-first-young-collection-marked-to-the-threshold.md).
 */

import { HEADER_WORDS } from '../heap/object-model.js';
import type { HeapImpl } from '../heap/heap.js';
import { IntList } from '../gc/int-list.js';
import type { MarkResult } from '../gc/marker.js';
import { gatherRoots } from '../gc/roots.js';
import { SerialMarker } from '../gc/serial-marker.js';

/** Sizings of the warm-up's scratch heap (`rehearse`), as the survival probe's. */
const REHEARSALS = 40;

export class FirstYoungMark {
  private kept: MarkResult | null = null;
  private readonly roots = new IntList();

  constructor(
    private readonly heap: HeapImpl,
    private readonly serial: SerialMarker,
  ) {}

  /**
   * The words of the young objects the roots reach when at most `maxWords`,
   * else more than `maxWords`; -1 while a card is dirty (the remembered set's
   * referents are roots too, and this mark does not scan it). A complete mark is
   * kept for `take`.
   */
  wordsUpTo(maxWords: number): number {
    const h = this.heap;
    this.kept = null;
    if (h.cards.nextDirty(0, h.cardsInUse()) < h.cardsInUse()) return -1;
    this.roots.clear();
    gatherRoots(h, true, this.roots);
    const sized = this.serial.markYoungUpTo({ roots: this.roots.view(), kind: 'young', youngStart: h.youngStart, youngEnd: h.youngEnd }, maxWords);
    if (sized === null) return maxWords + 1;
    this.kept = sized.mark;
    return sized.words;
  }

  /** Sizes the warm-up's scratch heap both ways, until V8 has compiled the sizing:
   *  a program sizes its first young collection alone, which would run it cold.
   *  The warm-up's roots reach few young objects, so a marker of its own lists
   *  every object they reach, as if all were young. */
  rehearse(): void {
    const h = this.heap;
    const serial = new SerialMarker(h);
    this.roots.clear();
    gatherRoots(h, false, this.roots);
    const request = { roots: this.roots.view(), kind: 'young' as const, youngStart: 1, youngEnd: h.words.length };
    for (let i = 0; i < REHEARSALS; i++) {
      serial.markYoungUpTo(request, h.words.length);
      serial.markYoungUpTo(request, HEADER_WORDS);
    }
  }

  /** The mark `wordsUpTo` kept, once, for the young collection that follows it on the CPU. */
  take(): MarkResult | null {
    const m = this.kept;
    this.kept = null;
    return m;
  }
}
