/** IntList's helpers. */
import { describe, expect, it } from 'vitest';
import { appendSetBits, IntList } from '../../src/gc/int-list.js';
import { rng } from './helpers.js';

describe('appendSetBits', () => {
  it('appends the set bits of [lo, hi) in address order, edge words included', () => {
    const r = rng(7);
    const out = new IntList(4);
    for (let t = 0; t < 300; t++) {
      const n = 1 + Math.floor(r() * 40);
      const bits = new Uint32Array(n);
      // Dense, sparse and empty words, bit 31 included.
      for (let i = 0; i < n; i++) bits[i] = r() < 0.2 ? 0 : r() < 0.5 ? 0xffffffff : Math.floor(r() * 2 ** 32);
      const lo = Math.floor(r() * n * 32);
      const hi = lo + Math.floor(r() * (n * 32 - lo + 40));
      const want: number[] = [];
      for (let a = lo; a < Math.min(hi, n * 32); a++) if ((bits[a >>> 5]! >>> (a & 31)) & 1) want.push(a);
      out.clear();
      appendSetBits(out, bits, lo, hi);
      expect(out.length).toBe(want.length);
      expect([...out.view()]).toEqual(want);
      // Two ranges with a gap of two words: only the words of the ranges are read.
      const cut = Math.floor(r() * (n + 1));
      const inRanges = want.filter((a) => a >>> 5 < cut || a >>> 5 >= cut + 2);
      out.clear();
      appendSetBits(out, bits, lo, Math.min(hi, cut * 32));
      appendSetBits(out, bits, Math.max(lo, (cut + 2) * 32), hi);
      expect([...out.view()]).toEqual(inRanges);
    }
  });
});
