// The threads that write a read-back into the heap (gpu/worker/heap-writers.ts):
// every queued segment lands where it was sent, whatever the blocks it spans,
// and a writer's failure surfaces in `flush` instead of a hang.
import { afterEach, describe, expect, it } from 'vitest';
import { HeapWriters, STAGE_SPEED, stagedShare, writeAtOnce, writerCount, writerScript } from '../../src/gpu/worker/heap-writers.js';

function sharedWords(n: number): Uint32Array {
  return new Uint32Array(new SharedArrayBuffer(n * 4));
}

let writers: HeapWriters | null = null;
afterEach(() => {
  writers?.dispose();
  writers = null;
});

describe('heap writers', () => {
  for (const threads of [0, 1, 3]) {
    it(`${threads} thread(s): segments of any size land in their destinations`, async () => {
      writers = await HeapWriters.start(threads === 0 ? '' : writerScript(), threads, 1000);
      const src = new Uint32Array(20_000).map((_, i) => i * 7 + 1);
      const heap = sharedWords(50_000);
      // A view that starts inside its buffer: the writers add its offset.
      const forward = new Uint32Array(new SharedArrayBuffer(4 * 9_000), 4 * 1_000, 8_000);
      // Plain memory, which other threads cannot write: written at once.
      const plain = new Uint32Array(300);
      // Segments: one inside a block, one spanning several blocks, many small ones.
      const segs: [Uint32Array, number, number, number][] = [[heap, 0, 30_000, 500], [heap, 500, 100, 4_321], [forward, 4_821, 0, 8_000], [plain, 2_000, 50, 250]];
      // Destinations of both parities: each is staged at its own, so some blocks end a word early.
      for (let k = 0, from = 12_821; from + 37 <= src.length; k++, from += 37) segs.push([heap, from, 40_000 + k * 41, 37]);
      for (const [dst, from, at, n] of segs) writers.copy(src, from, dst, at, n);
      writers.flush();
      for (const [dst, from, at, n] of segs) expect(Array.from(dst.subarray(at, at + n))).toEqual(Array.from(src.subarray(from, from + n)));
      // Nothing outside the segments was written.
      expect(heap[99]).toBe(0);
      expect(new Uint32Array(forward.buffer)[999]).toBe(0);
      // The buffers come back: a second round works as the first.
      heap.fill(0);
      for (const [dst, from, at, n] of segs) writers.copy(src, from, dst, at, n);
      writers.flush();
      expect(Array.from(heap.subarray(100, 4_421))).toEqual(Array.from(src.subarray(500, 4_821)));
    });
  }

  it('stage a share of the words for one writer and write the rest on the calling thread, all of it for two or more', async () => {
    // Equal finishing times: f / speed + (1 - f) = f / writers, where staging is `speed` times as fast as writing.
    expect(stagedShare(0)).toBe(0);
    expect(stagedShare(1, 1.6)).toBeCloseTo(1 / (2 - 1 / 1.6), 10);
    expect(stagedShare(2, 1.6)).toBe(1);
    expect(stagedShare(4, 1.6)).toBe(1);
    // Staging no faster than writing (both one memcpy): everything is staged, whatever the writers.
    expect(STAGE_SPEED).toBe(1);
    expect(stagedShare(1)).toBe(1);
    expect(stagedShare(1, 0.8)).toBe(1);
    writers = await HeapWriters.start(writerScript(), 1, 1000);
    expect(writers.share).toBe(stagedShare(1));
    // A share under 1, as the waits of earlier writes make it.
    writers.share = stagedShare(1, 1.6);
    const src = new Uint32Array(40_000).map((_, i) => i * 3 + 2);
    const heap = sharedWords(40_000);
    // One long copy and many short ones (each queued piece is either staged or written here).
    writers.copy(src, 0, heap, 0, 30_000);
    for (let at = 30_000; at + 100 <= 40_000; at += 100) writers.copy(src, at, heap, at, 100);
    writers.flush();
    expect(Array.from(heap)).toEqual(Array.from(src));
    // This thread wrote whole blocks of its own, about its share of them.
    expect(writers.lastOwnShare).toBeGreaterThan(0.1);
    expect(writers.lastOwnShare).toBeLessThan(0.5);
    // The next write's share followed how long this thread waited; within its bounds.
    expect(writers.share).toBeGreaterThanOrEqual(0);
    expect(writers.share).toBeLessThanOrEqual(1);
    expect(writers.share).not.toBe(stagedShare(1, 1.6));
    const two = await HeapWriters.start(writerScript(), 2, 1000);
    try {
      two.copy(src, 0, heap, 0, 30_000);
      two.flush();
      expect(two.lastOwnShare).toBe(0);
    } finally {
      two.dispose();
    }
  });

  it("a writer's failure is thrown by flush", async () => {
    writers = await HeapWriters.start(writerScript(), 2, 1000);
    const src = new Uint32Array(100).fill(5);
    const small = sharedWords(10);
    writers.copy(src, 0, small, 5, 100);
    expect(() => writers!.flush()).toThrow(/heap writer/);
  });

  it('leave a write under their threshold to the calling thread, at once', async () => {
    writers = await HeapWriters.start(writerScript(), 2, 1000, 4096);
    const src = new Uint32Array(3000).map((_, i) => i + 1);
    const heap = sharedWords(3000);
    expect(writers.threadsFor(4092)).toBe(0);
    writeAtOnce(src, 0, heap, 0, 1023);
    // In the heap before any flush: no writer took it.
    expect(Array.from(heap.subarray(0, 1023))).toEqual(Array.from(src.subarray(0, 1023)));
    writers.flush();
    expect(writers.threadsFor(4096)).toBe(2);
    writers.copy(src, 0, heap, 0, 3000);
    writers.flush();
    expect(Array.from(heap)).toEqual(Array.from(src));
  });

  it('are chosen from the cores unless asked for', () => {
    expect(writerCount(-1, 2)).toBe(0);
    expect(writerCount(-1, 3)).toBe(0);
    expect(writerCount(-1, 4)).toBe(1);
    expect(writerCount(-1, 64)).toBe(1);
    expect(writerCount(3, 2)).toBe(3);
    expect(writerCount(0, 16)).toBe(0);
  });
});
