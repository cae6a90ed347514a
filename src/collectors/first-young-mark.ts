/**
 * How much a program's first young collection keeps, for a GPU collector's
 * threshold (device-threshold.ts), found by serial's own young mark from the
 * roots, stopped once it has found more objects than the threshold's words could
 * hold. A collection under the threshold goes to the CPU, which then takes this
 * mark as its own: the sizing costs a CPU collection nothing but counting the
 * words. One over it goes to the device, and the mark, a few megabytes' worth,
 * is dropped (docs/decisions/s63-01-a-first-young-collection-marked-to-the-threshold.md).
 */

import { HEADER_WORDS } from '../heap/object-model.js';
import type { HeapImpl } from '../heap/heap.js';
import { IntList } from '../gc/int-list.js';
import type { MarkResult } from '../gc/marker.js';
import { gatherRoots } from '../gc/roots.js';
import { SerialMarker } from '../gc/serial-marker.js';

/** Sizings of the warm-up's scratch heap (`rehearse`), as the survival probe's,
 *  and counts of its words per sizing. */
const REHEARSALS = 40;
const COUNTS = 50;

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
    const mark = this.mark(maxWords);
    if (mark === null) return maxWords + 1;
    this.kept = mark;
    return h.types.wordsOf(h.words, mark.live!);
  }

  /** The young mark from the roots, given up past the objects `maxWords` can hold,
   *  whatever the cards say. Apart from the words' count: the program's roots are
   *  another class than the warm-up's, and V8 throws away the code that met the
   *  warm-up's roots, with whatever it had inlined. */
  private mark(maxWords: number): MarkResult | null {
    const h = this.heap;
    this.roots.clear();
    gatherRoots(h, true, this.roots);
    const request = { roots: this.roots.view(), kind: 'young' as const, youngStart: h.youngStart, youngEnd: h.youngEnd };
    // Each object has at least a header: more objects than this are more words.
    return this.serial.markYoungUpTo(request, Math.floor(maxWords / HEADER_WORDS) + 1);
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
      const all = serial.markYoungUpTo(request, h.words.length);
      for (let k = 0; all !== null && k < COUNTS; k++) h.types.wordsOf(h.words, all.live!);
      serial.markYoungUpTo(request, 1);
    }
  }

  /** The mark `wordsUpTo` kept, once, for the young collection that follows it on the CPU. */
  take(): MarkResult | null {
    const m = this.kept;
    this.kept = null;
    return m;
  }
}
