/** The CPU side of the GPU markers' fallbacks (no device needed). */
import { describe, expect, it } from 'vitest';
import { liveFromBits } from '../../src/gpu/cpu-trace.js';
import { rng } from './graphs.js';

describe('liveFromBits', () => {
  it('lists the set bits of [lo, hi) in address order, edge words included', () => {
    const r = rng(7);
    for (let t = 0; t < 300; t++) {
      const n = 1 + Math.floor(r() * 40);
      const bits = new Uint32Array(n);
      // Dense, sparse and empty words, bit 31 included.
      for (let i = 0; i < n; i++) bits[i] = r() < 0.2 ? 0 : r() < 0.5 ? 0xffffffff : Math.floor(r() * 2 ** 32);
      const lo = Math.floor(r() * n * 32);
      const hi = lo + Math.floor(r() * (n * 32 - lo + 40));
      const want: number[] = [];
      for (let a = lo; a < Math.min(hi, n * 32); a++) if ((bits[a >>> 5]! >>> (a & 31)) & 1) want.push(a);
      let asked = -1;
      const got = liveFromBits(bits, lo, hi, [0, n], (count) => new Int32Array((asked = count)));
      expect(asked).toBe(want.length);
      expect([...got]).toEqual(want);
      // Only the words of the segments are read.
      const cut = Math.floor(r() * (n + 1));
      const inSegs = want.filter((a) => a >>> 5 < cut || a >>> 5 >= cut + 2);
      expect([...liveFromBits(bits, lo, hi, [0, cut, cut + 2, n], (c) => new Int32Array(c))]).toEqual(inSegs);
    }
  });
});
