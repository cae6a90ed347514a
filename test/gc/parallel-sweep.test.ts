/**
 * The parallel sweep (gc/parallel/sweep.ts, sweeper.ts) against the serial one
 * (gc/sweep.ts): after real allocations and collections, the parallel marker marks
 * the heap, and both sweeps run from the same words, block offset table and mark
 * bitmap. They must leave the same words (marks cleared, free blocks written), the
 * same block offset table and the same free list. Tenured is many sweep regions
 * long, and large objects and free runs cross the regions' borders.
 */
import { describe, expect, it } from 'vitest';
import { REGION_WORDS } from '../../src/gc/parallel/sweep.js';
import { sweepTenured } from '../../src/gc/sweep.js';
import { HEADER_WORDS } from '../../src/heap/object-model.js';
import type { HeapOptions } from '../../src/heap/options.js';
import { allocArray, collect, makeParallelHeap, rng } from './helpers.js';

type Parallel = Awaited<ReturnType<typeof makeParallelHeap>>;

/** `count` arrays of `minLength`..`maxLength` held by roots, some referring to
 *  others; then about half the roots dropped (`alternate`: every other one, and
 *  no references, so that every other object dies). */
async function allocate({ heap, roots }: Parallel, seed: number, count: number, minLength: number, maxLength: number, alternate = false): Promise<void> {
  const rand = rng(seed);
  const first = roots.count;
  const refs = heap.types.names.indexOf('ref[]');
  const ints = heap.types.names.indexOf('int[]');
  for (let i = 0; i < count; i++) {
    const a = await allocArray(heap, !alternate && rand() < 0.5 ? refs : ints, minLength + Math.floor(rand() * (maxLength - minLength)));
    roots.push(a);
    // A reference from an older array keeps some objects alive with no root of their own.
    const from = roots.get(Math.floor(rand() * roots.count));
    if (from !== 0 && heap.words[from + 1] === refs) heap.writeRef(from, 4, 0, a);
  }
  for (let i = alternate ? first : 0; i < roots.count; i++) if (alternate ? (i - first) % 2 === 1 : rand() < 0.5) roots.slots[i] = 0;
}

function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): string {
  if (a.length !== b.length) return `lengths ${a.length} and ${b.length}`;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return `at ${i}: ${a[i]} against ${b[i]}`;
  return 'none';
}

/** Marks the heap with the parallel marker, sweeps it both ways from the same state and
 *  compares; true when the threads swept (false: they overflowed and one thread swept). */
async function sweepBothWays(p: Parallel, when: string): Promise<boolean> {
  const { heap, roots, marker } = p;
  const live = Int32Array.from(roots.slots.subarray(0, roots.count)).filter((a) => a !== 0);
  const { bitmap } = await marker.mark({ roots: live, kind: 'full', youngStart: heap.youngStart, youngEnd: heap.youngEnd });
  const words = heap.words.slice();
  const blocks = heap.cards.blockStart.slice();
  const swept = marker.sweeper.sweep(bitmap);
  // As the plan does: a sweep the threads gave up is done again on one thread, over what they left.
  if (!swept) sweepTenured(heap, bitmap);
  const parallel = { words: heap.words.slice(), blocks: heap.cards.blockStart.slice(), chunks: heap.freeList.chunks(), free: heap.freeList.freeWords };
  heap.words.set(words);
  heap.cards.blockStart.set(blocks);
  sweepTenured(heap, bitmap);
  expect({ when, words: firstDifference(parallel.words, heap.words) }).toEqual({ when, words: 'none' });
  expect({ when, blocks: firstDifference(parallel.blocks, heap.cards.blockStart) }).toEqual({ when, blocks: 'none' });
  expect(parallel.chunks).toEqual(heap.freeList.chunks());
  expect(parallel.free).toBe(heap.freeList.freeWords);
  return swept;
}

async function parallelHeap(options: HeapOptions): Promise<Parallel> {
  const p = await makeParallelHeap(4, { layout: 'sable', ...options }, 1 << 16);
  p.heap.defineArray('ref[]', 'ref');
  p.heap.defineArray('int[]', 'int');
  return p;
}

describe('parallel sweep', () => {
  it('leaves tenured exactly as the serial sweep does, over regions that large objects and free runs cross', async () => {
    const p = await parallelHeap({ heapBytes: 4 << 20, largeObjectBytes: 256 });
    expect(p.heap.tenuredEnd - p.heap.tenuredStart).toBeGreaterThan(20 * REGION_WORDS);
    let swept = 0;
    for (let r = 0; r < 6; r++) {
      await allocate(p, 100 + r, 150, 64, 2500);
      if (await sweepBothWays(p, `round ${r}`)) swept++;
      await collect(p.heap, 'full');
    }
    expect(swept).toBe(6);
    expect(p.heap.freeList.chunks().length).toBeGreaterThan(10);
  }, 120_000);

  it('keeps a free chunk that starts exactly at a region border and covers whole regions', async () => {
    const p = await parallelHeap({ heapBytes: 4 << 20, largeObjectBytes: 256 });
    const { heap, roots } = p;
    const ints = heap.types.names.indexOf('int[]');
    // Tenured is carved from its start: a live region, a dead block of three regions, a live tail.
    const first = await allocArray(heap, ints, REGION_WORDS - HEADER_WORDS);
    const dead = await allocArray(heap, ints, 3 * REGION_WORDS - HEADER_WORDS);
    const tail = await allocArray(heap, ints, 100);
    expect([first, dead, tail]).toEqual([heap.tenuredStart, heap.tenuredStart + REGION_WORDS, heap.tenuredStart + 4 * REGION_WORDS]);
    roots.push(first);
    roots.push(tail);
    // The first sweep frees the dead block; the second meets it as a listed chunk.
    expect(await sweepBothWays(p, 'the dead block')).toBe(true);
    expect(heap.freeList.chunks()).toContainEqual([dead, 3 * REGION_WORDS]);
    expect(await sweepBothWays(p, 'the chunk')).toBe(true);
    expect(heap.freeList.chunks()).toContainEqual([dead, 3 * REGION_WORDS]);
  }, 60_000);

  it('sweeps again on one thread when the free runs overflow its buffer, with the same result', async () => {
    // Small tenured objects, every other one dead: more runs than the first sweep expects,
    // and than the copy's result buffers (made for a small young generation) hold.
    const p = await parallelHeap({ heapBytes: 4 << 20, youngBytes: 128 << 10, largeObjectBytes: 32 });
    const results: boolean[] = [];
    for (let r = 0; r < 3; r++) {
      await allocate(p, 200 + r, 40_000, 5, 9, true);
      results.push(await sweepBothWays(p, `round ${r}`));
    }
    expect(results[0]).toBe(false);
    expect(results.slice(1)).toContain(true);
    expect(p.marker.sweeper.overflows).toBeGreaterThanOrEqual(1);
  }, 120_000);
});
