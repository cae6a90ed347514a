/**
 * The serial sweep's walk (gc/sweep.ts) over tenured: what it writes to live
 * objects' headers. No marker sets the header's mark bit today, so the walk writes
 * a live header only where it finds the bit, and leaves every other header as it was.
 */
import { describe, expect, it } from 'vitest';
import { sweepTenured } from '../../src/gc/sweep.js';
import { HEADER_TAG, STATUS_MARK, STATUS_WORD } from '../../src/heap/object-model.js';
import { allocArray, makeHeap } from './helpers.js';

describe('tenured sweep', () => {
  it('clears a header mark bit, keeps other live headers and frees the unmarked object', async () => {
    // Arrays of 64 ints and more are large objects, allocated in tenured.
    const { heap, roots } = makeHeap({ heapBytes: 1 << 20, largeObjectBytes: 256 });
    heap.defineArray('int[]', 'int');
    const ints = heap.types.names.indexOf('int[]');
    const [a, b, c] = [await allocArray(heap, ints, 100), await allocArray(heap, ints, 100), await allocArray(heap, ints, 100)];
    for (const x of [a, b, c]) {
      expect(x).toBeGreaterThanOrEqual(heap.tenuredStart);
      roots.push(x);
    }
    heap.words[a + STATUS_WORD]! |= STATUS_MARK;
    const before = { a: heap.words[a + STATUS_WORD]!, b: heap.words[b + STATUS_WORD]! };
    expect(before.b & HEADER_TAG).toBe(HEADER_TAG);
    const bitmap = new Uint32Array((heap.words.length + 31) >>> 5);
    for (const x of [a, b]) bitmap[x >>> 5]! |= 1 << (x & 31);
    const freeBefore = heap.freeList.freeWords;

    sweepTenured(heap, bitmap);

    expect(heap.words[a + STATUS_WORD]).toBe(before.a & ~STATUS_MARK);
    expect(heap.words[b + STATUS_WORD]).toBe(before.b);
    expect(heap.freeList.freeWords).toBeGreaterThan(freeBefore + 100);
    expect(heap.freeList.chunks().some(([start, size]) => start <= c && c < start + size)).toBe(true);
  });
});
