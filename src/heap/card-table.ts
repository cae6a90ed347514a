/**
 * The card table over tenured: the remembered set of old-to-young references.
 *
 * Tenured is divided into cards of 512 bytes (128 words), HotSpot's card size. The
 * write barrier (Heap.writeRef) dirties the card of the stored-into slot when a
 * tenured object receives a reference to a young one. A young collection then takes
 * its old-to-young roots from the dirty cards only, instead of scanning all of
 * tenured, and cleans the cards that no longer hold such references afterwards.
 *
 * To find the objects overlapping a dirty card without walking tenured from its
 * start, the table keeps a block offset table (HotSpot's BOT): for each card, the
 * start of a block (object or free chunk) at or before the card's first word from
 * which a walk reaches that word. Splitting a free chunk leaves later cards pointing
 * at an earlier, still valid block start; `blockStartFor` walks forward from there
 * and writes the better start back, so repeated scans stay short.
 */

import type { TypeTable } from './layout.js';
import { FREE_CHUNK, HEADER_TAG, HEADER_WORDS } from './object-model.js';
import { CARD_CLEAN, CARD_DIRTY, CARD_SHIFT, CARD_WORDS } from './card-format.js';

export { CARD_CLEAN, CARD_DIRTY, CARD_SHIFT, CARD_WORDS };

/** A card's recorded block start in `blockStart`, whose cards start at `base`: an
 *  entry of 0 (no word of tenured is 0) stands for `base`, so a new table is all zeros
 *  and costs no fill at every start (docs/decisions/s66-01-start-up-without-node-v8.md). */
export function blockHint(blockStart: Int32Array, base: number, card: number): number {
  return blockStart[card]! || base;
}

/** `CardTable.recordBlock` over a block offset table whose cards start at
 *  `base`, for a thread that has the table's memory but not the object. */
export function recordBlockStart(blockStart: Int32Array, base: number, start: number, end: number): void {
  const first = (start - base + CARD_WORDS - 1) >> CARD_SHIFT;
  const last = (end - 1 - base) >> CARD_SHIFT;
  // Most blocks are objects of a card or two; a free run may span millions of cards.
  if (last - first < 8) for (let c = first; c <= last; c++) blockStart[c] = start;
  else blockStart.fill(start, first, last + 1);
}

export class CardTable {
  /** One byte per card: CARD_DIRTY or CARD_CLEAN. */
  readonly cards: Uint8Array;
  /** `cards` eight at a time (its length is padded to a multiple of 8). */
  private readonly cards64: Float64Array;
  /** Block offset table: a block start at or before each card's first word, 0 for
   *  `base` (read it through `blockHint`). */
  readonly blockStart: Int32Array;
  readonly count: number;

  constructor(
    /** First word of tenured; card i covers [base + i*128, base + (i+1)*128). */
    readonly base: number,
    readonly end: number,
  ) {
    this.count = Math.ceil((end - base) / CARD_WORDS);
    // Shared memory: the parallel collector's threads dirty cards and record blocks.
    this.cards = new Uint8Array(new SharedArrayBuffer((this.count + 7) & ~7));
    this.cards64 = new Float64Array(this.cards.buffer);
    this.blockStart = new Int32Array(new SharedArrayBuffer(this.count * 4));
  }

  cardOf(addr: number): number {
    return (addr - this.base) >> CARD_SHIFT;
  }

  cardStart(card: number): number {
    return this.base + (card << CARD_SHIFT);
  }

  isDirty(addr: number): boolean {
    return this.cards[(addr - this.base) >> CARD_SHIFT] === CARD_DIRTY;
  }

  /** Records a new block [start, end): every card whose first word lies inside it
   *  now names `start` as its block start. */
  recordBlock(start: number, end: number): void {
    recordBlockStart(this.blockStart, this.base, start, end);
  }

  /** The cards that cover [base, end): none past them can be dirty when no object
   *  lies at or above `end`. */
  cardsBelow(end: number): number {
    return end <= this.base ? 0 : Math.min(this.count, ((end - 1 - this.base) >> CARD_SHIFT) + 1);
  }

  /** The first dirty card in [card, to) (`to` or more if none). */
  nextDirty(card: number, to = this.count): number {
    return nextSetByte(this.cards, this.cards64, card, to);
  }

  /**
   * The start of the block containing the first word of `card`, walking forward from
   * the recorded hint (see the module comment) and remembering the result.
   */
  blockStartFor(card: number, words: Int32Array, types: TypeTable): number {
    const target = this.base + (card << CARD_SHIFT);
    let p = blockHint(this.blockStart, this.base, card);
    for (;;) {
      const next = blockEnd(words, types, p);
      if (next > target) break;
      p = next;
    }
    // A free chunk's start is written only over a prefix of its cards (recordJoined).
    if (words[p]! !== FREE_CHUNK) this.blockStart[card] = p;
    return p;
  }

  /**
   * Records the free block [start, end) that `FreeList.giveBack` made, joined to
   * the chunk that began at `end` when it reaches `joinedEnd` past it. That chunk's
   * cards naming `end` (no block start now) are a prefix of its cards: every
   * record of a free chunk's start names it in all the chunk's cards, or in those
   * of a joined block before the rest (here). They alone are rewritten; the later
   * cards keep naming a block before `start`, from which a walk still reaches
   * them, so a large free chunk's cards are not all written at every join.
   */
  recordJoined(start: number, end: number, joinedEnd: number): void {
    this.recordBlock(start, end);
    if (joinedEnd === end) return;
    const bs = this.blockStart;
    const last = (joinedEnd - 1 - this.base) >> CARD_SHIFT;
    for (let c = (end - this.base + CARD_WORDS - 1) >> CARD_SHIFT; c <= last && bs[c] === end; c++) bs[c] = start;
  }
}

/**
 * The index of the first non-zero byte of `bytes` in [from, to) (`to` if none);
 * `words` is `bytes` seen eight at a time, so `bytes` is a multiple of 8 long.
 * Zero bytes are skipped eight at a time in a loop of its own: a large heap has
 * millions of cards, and a collection looks at all of them, usually to find a
 * few set ones. The eight bytes are read as a double, the widest plain load:
 * all-zero bytes are +0, and bytes of 0 and 1 can form neither -0 nor NaN.
 */
export function nextSetByte(bytes: Uint8Array, words: Float64Array, from: number, to = bytes.length): number {
  const wordsTo = to >>> 3;
  let i = from;
  // One byte test for every case (not one before the aligned run and one after
  // it), so that no test goes without the feedback a warmed-up collector gave it.
  while (i < to) {
    if ((i & 7) === 0) {
      let w = i >>> 3;
      while (w < wordsTo && words[w] === 0) w++;
      i = w << 3;
      if (i >= to) break;
    }
    if (bytes[i] !== 0) return i;
    i++;
  }
  return to;
}

/** The end of the block (object or free chunk) that starts at `p`. */
export function blockEnd(words: Int32Array, types: Pick<TypeTable, 'rightWords'>, p: number): number {
  const w = words[p]!;
  if (w < 0) return w === FREE_CHUNK ? p + words[p + 1]! : p + 1;
  const a = (w & HEADER_TAG) !== 0 ? p : p + w;
  return a + HEADER_WORDS + types.rightWords(words, a);
}

