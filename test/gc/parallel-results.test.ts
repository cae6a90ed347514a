/**
 * The shared results buffer of the parallel phases (gc/parallel/context.ts):
 * threads claim chunks of `out`, and the main thread closes up the unused ends
 * of each thread's last chunk, wherever they sit, keeping every entry once.
 */

import { describe, expect, it } from 'vitest';
import { compactResults, GcContext, OUT_CHUNK } from '../../src/gc/parallel/context.js';
import { OUTCUR, P_OUT_CAP, S_HOLE_AT, S_HOLE_END, STATS_WORDS } from '../../src/gc/parallel/shared.js';
import { poolBuffers as buffers, rng } from './helpers.js';

/**
 * `threads` contexts over one buffer emit `counts[i]` results each, taking turns
 * in a random order (so that their chunks interleave); returns what the main
 * thread's compaction leaves and what was emitted.
 */
function emitAndCompact(counts: number[], seed: number): { got: number[]; want: number[] } {
  const threads = counts.length;
  const b = buffers(threads, counts.reduce((s, n) => s + n, 0) + threads * OUT_CHUNK);
  const ctxs = counts.map((_, id) => new GcContext(id, threads, b));
  const main = ctxs[0]!;
  main.ctl[P_OUT_CAP] = main.out.length;
  for (const c of ctxs) c.begin();
  const left = [...counts];
  const want: number[] = [];
  const next = rng(seed);
  let value = 1;
  while (left.some((n) => n > 0)) {
    const id = Math.floor(next() * threads);
    const n = Math.min(left[id]!, 1 + Math.floor(next() * 1500));
    for (let i = 0; i < n; i++) {
      ctxs[id]!.emit(value);
      want.push(value++);
    }
    left[id] = left[id]! - n;
  }
  for (const c of ctxs) c.end();
  const n = compactResults(main);
  return { got: [...main.out.subarray(0, n)].sort((x, y) => x - y), want };
}

describe('parallel results', () => {
  it('keeps every entry once, whichever chunks are part used', () => {
    const cases = [[0], [1], [OUT_CHUNK], [OUT_CHUNK + 1, 0, 3], [5000, 1, 0, 2 * OUT_CHUNK], [777, 3333, 12, 4096, 1], [0, 0, 0]];
    for (let k = 0; k < cases.length; k++) {
      const { got, want } = emitAndCompact(cases[k]!, 17 + k);
      expect(got).toEqual(want);
    }
  });

  it('records the unused end of the last chunk, and none for a thread that claimed nothing', () => {
    const b = buffers(2, 4 * OUT_CHUNK);
    const c = new GcContext(1, 2, b);
    c.ctl[P_OUT_CAP] = c.out.length;
    c.begin();
    for (let i = 0; i < OUT_CHUNK + 10; i++) c.emit(i + 1);
    c.end();
    expect(c.ctl[OUTCUR]).toBe(2 * OUT_CHUNK);
    expect([c.stats[STATS_WORDS + S_HOLE_AT], c.stats[STATS_WORDS + S_HOLE_END]]).toEqual([OUT_CHUNK + 10, 2 * OUT_CHUNK]);
    expect([c.stats[S_HOLE_AT], c.stats[S_HOLE_END]]).toEqual([0, 0]);
    expect(compactResults(c)).toBe(OUT_CHUNK + 10);
  });

  it('fails loudly when the results outgrow their buffer', () => {
    const b = buffers(1, OUT_CHUNK);
    const c = new GcContext(0, 1, b);
    c.ctl[P_OUT_CAP] = c.out.length;
    c.begin();
    for (let i = 0; i < OUT_CHUNK; i++) c.emit(i);
    expect(() => c.emit(0)).toThrow(/overflow/);
  });
});
