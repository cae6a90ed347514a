// Where words copied to or from shared memory are staged (heap/word-parity.ts).
import { describe, expect, it } from 'vitest';
import { atParityOf, bufferWord, copyWords } from '../../src/heap/word-parity.js';

describe('word parity', () => {
  it('counts words from the start of the buffer', () => {
    const buf = new SharedArrayBuffer(64);
    expect(bufferWord(new Int32Array(buf), 3)).toBe(3);
    expect(bufferWord(new Uint32Array(buf, 12, 4), 2)).toBe(5);
  });

  it('moves a position to the next word only when the parities differ', () => {
    expect(atParityOf(10, 4)).toBe(10);
    expect(atParityOf(10, 7)).toBe(11);
    expect(atParityOf(11, 7)).toBe(11);
    expect(atParityOf(11, 8)).toBe(12);
    expect(atParityOf(0, 1)).toBe(1);
  });
});

describe('copyWords', () => {
  // Sizes below and above the staging threshold, both parities, overlapping both ways.
  for (const n of [1, 33, 255, 256, 5000]) {
    for (const [dst, src] of [[1000, 20_000], [1001, 20_000], [20_001, 1000], [20_000, 1000], [1003, 1000], [1000, 1003], [1004, 1000]]) {
      it(`copies ${n} words from ${src} to ${dst} as copyWithin does`, () => {
        const shared = new Int32Array(new SharedArrayBuffer(4 * 40_000)).map((_, i) => i * 7 + 3);
        const expected = Int32Array.from(shared).copyWithin(dst!, src!, src! + n);
        copyWords(shared, dst!, src!, n);
        expect(Array.from(shared)).toEqual(Array.from(expected));
      });
    }
  }

  it('counts parity from the start of the buffer, not of the view', () => {
    const buf = new SharedArrayBuffer(4 * 10_000);
    const view = new Int32Array(buf, 4, 9_000).map((_, i) => i + 1);
    const expected = Int32Array.from(view).copyWithin(10, 5_000, 5_600);
    copyWords(view, 10, 5_000, 600);
    expect(Array.from(view)).toEqual(Array.from(expected));
  });
});
