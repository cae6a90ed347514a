/**
 * nextSetByte (heap/card-table.ts), the scan under every card-table and
 * mirror-log walk: it skips zero bytes eight at a time, so it is checked against
 * a byte-at-a-time scan for set bytes at every alignment, with ranges that start
 * and end inside a group of eight.
 */

import { describe, expect, it } from 'vitest';
import { CARD_WORDS, CardTable, blockHint, nextSetByte, recordBlockStart } from '../../src/heap/card-table.js';

function naive(bytes: Uint8Array, from: number, to: number): number {
  for (let i = from; i < to; i++) if (bytes[i] !== 0) return i;
  return to;
}

describe('nextSetByte', () => {
  it('finds the first set byte of [from, to) as a byte-by-byte scan does', () => {
    const bytes = new Uint8Array(96);
    const words = new Float64Array(bytes.buffer);
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed % n;
    };
    for (let trial = 0; trial < 400; trial++) {
      bytes.fill(0);
      const set = random(4);
      for (let k = 0; k < set; k++) bytes[random(96)] = 1;
      const from = random(97);
      const to = from + random(97 - from);
      expect(nextSetByte(bytes, words, from, to)).toBe(naive(bytes, from, to));
    }
  });

  it('returns `to` for an empty range and reads no byte at or past it', () => {
    const bytes = new Uint8Array(32);
    const words = new Float64Array(bytes.buffer);
    bytes[13] = 1;
    expect(nextSetByte(bytes, words, 5, 5)).toBe(5);
    expect(nextSetByte(bytes, words, 0, 13)).toBe(13);
    expect(nextSetByte(bytes, words, 9, 14)).toBe(13);
    expect(nextSetByte(bytes, words, 14)).toBe(32);
    bytes[31] = 1;
    expect(nextSetByte(bytes, words, 14)).toBe(31);
  });
});

describe('CardTable', () => {
  it('counts the cards covering [base, end) as those a walk below `end` looks at', () => {
    const base = 1000;
    const t = new CardTable(base, base + 10 * CARD_WORDS + 5);
    expect(t.count).toBe(11);
    expect(t.cardsBelow(0)).toBe(0);
    expect(t.cardsBelow(base)).toBe(0);
    expect(t.cardsBelow(base + 1)).toBe(1);
    expect(t.cardsBelow(base + CARD_WORDS)).toBe(1);
    expect(t.cardsBelow(base + CARD_WORDS + 1)).toBe(2);
    expect(t.cardsBelow(base + 100 * CARD_WORDS)).toBe(11);
  });

  it('names tenured\'s start as every card\'s block start until a block is recorded', () => {
    const base = 1000;
    const t = new CardTable(base, base + 40 * CARD_WORDS);
    expect(Array.from(t.blockStart).every((x) => x === 0)).toBe(true);
    for (const c of [0, 17, 39]) expect(blockHint(t.blockStart, base, c)).toBe(base);
    // A block from the middle of card 2 to past card 5's start names itself in cards 3 to 5.
    recordBlockStart(t.blockStart, base, base + 2 * CARD_WORDS + 7, base + 5 * CARD_WORDS + 1);
    expect([2, 3, 4, 5, 6].map((c) => blockHint(t.blockStart, base, c))).toEqual([base, ...Array(3).fill(base + 2 * CARD_WORDS + 7), base]);
  });

  it('finds dirty cards only below the bound it is given', () => {
    const t = new CardTable(0, 64 * CARD_WORDS);
    t.cards[3] = 1;
    t.cards[40] = 1;
    expect(t.nextDirty(0)).toBe(3);
    expect(t.nextDirty(4)).toBe(40);
    expect(t.nextDirty(4, 40)).toBe(40);
    expect(t.nextDirty(4, 20)).toBe(20);
  });
});
