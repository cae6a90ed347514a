/**
 * nextSetByte (heap/card-table.ts), the scan under every card-table and
 * mirror-log walk: it skips zero bytes eight at a time, so it is checked against
 * a byte-at-a-time scan for set bytes at every alignment, with ranges that start
 * and end inside a group of eight.
 */

import { describe, expect, it } from 'vitest';
import { nextSetByte } from '../../src/heap/card-table.js';

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
