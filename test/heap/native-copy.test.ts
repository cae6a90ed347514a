// Word copies through one memcpy (heap/native-copy.ts): each must leave exactly
// what TypedArray `set` leaves, whatever memory its ends lie in.
import { describe, expect, it } from 'vitest';
import { copyWordsInto, NATIVE_COPY_MIN_WORDS, overlaps } from '../../src/heap/native-copy.js';

type Words = Uint32Array | Int32Array;

const filled = <T extends Words>(a: T, seed: number): T => a.map((_, i) => (i * 2654435761 + seed) | 0) as T;

/** `dst` after `copyWordsInto`, beside a copy of it after `set`. */
function both(dst: Words, at: number, src: Words, from: number, n: number): [number[], number[]] {
  const expected = Uint32Array.from(dst);
  expected.set(Uint32Array.from(src).subarray(from, from + n), at);
  copyWordsInto(dst, at, src, from, n);
  return [Array.from(new Uint32Array(dst.buffer, dst.byteOffset, dst.length)), Array.from(expected)];
}

describe('copyWordsInto', () => {
  const big = NATIVE_COPY_MIN_WORDS + 37;
  const kinds = {
    plain: (n: number) => new ArrayBuffer(4 * n),
    shared: (n: number) => new SharedArrayBuffer(4 * n),
  };
  for (const [dk, dmake] of Object.entries(kinds)) {
    for (const [sk, smake] of Object.entries(kinds)) {
      for (const n of [0, 5, big]) {
        it(`copies ${n} words from ${sk} into ${dk} memory as set does, at odd words and view offsets`, () => {
          const dst = filled(new Uint32Array(dmake(4 * big), 4, 3 * big), 1);
          const src = filled(new Int32Array(smake(4 * big), 12, 3 * big), 2);
          const [got, want] = both(dst, 3, src, big + 1, n);
          expect(got).toEqual(want);
        });
      }
    }
  }

  it('copies between disjoint ranges of one buffer natively, and overlapping ones as set does, both ways', () => {
    for (const [at, from] of [[10, 5000], [5000, 10], [10, 10 + big - 1], [10 + big - 1, 10], [7, 9]]) {
      const buf = new SharedArrayBuffer(4 * 8000);
      const dst = filled(new Uint32Array(buf), 3);
      const [got, want] = both(dst, at!, dst, from!, big);
      expect(got, `from ${from} to ${at}`).toEqual(want);
    }
  });

  it('refuses a range outside either view, large or small, and writes nothing', () => {
    const dst = filled(new Uint32Array(new SharedArrayBuffer(4 * 4 * big)), 4);
    const before = Array.from(dst);
    const src = new Uint32Array(2 * big);
    expect(() => copyWordsInto(dst, 3 * big + 1, src, 0, big)).toThrow(RangeError);
    expect(() => copyWordsInto(dst, 0, src, big + 1, big)).toThrow(RangeError);
    expect(() => copyWordsInto(dst, -1, src, 0, big)).toThrow(RangeError);
    expect(() => copyWordsInto(dst, 0, src, 2 * big - 2, 5)).toThrow(RangeError);
    expect(Array.from(dst)).toEqual(before);
  });
});

describe('overlaps', () => {
  it('says whether two ranges of n words share a byte, either one first', () => {
    for (const [a, b] of [
      [0, 40],
      [40, 0],
    ] as const) {
      expect(overlaps(a, b, 10)).toBe(false); // adjacent
      expect(overlaps(a, b, 11)).toBe(true); // one word shared
      expect(overlaps(a, b, 9)).toBe(false);
    }
    expect(overlaps(64, 64, 1)).toBe(true);
    expect(overlaps(64, 64, 0)).toBe(false);
  });
});
