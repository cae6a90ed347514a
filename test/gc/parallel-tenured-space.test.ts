/**
 * The parallel copy's use of tenured space. Each thread that promotes carves a
 * tenured LAB and gives back its unused end; mark-sweep never moves the copies,
 * so that end stays a hole between live objects. A collection that promotes a
 * little must therefore not carve large LABs: with 2048-word LABs, a program
 * that promoted a few hundred words per collection used up tenured's contiguous
 * space at 2048 words or more per collection, until a large array no longer fit
 * in an 8 MiB heap a sixth full (hash_table.mini, 16 threads, --gc-stress).
 */

import { describe, expect, it } from 'vitest';
import { verifyHeap } from '../../src/gc/verify.js';
import { alloc, collect, makeParallelHeap } from './helpers.js';

/** The largest free chunk of tenured. */
function largestFree(chunks: Array<[number, number]>): number {
  let m = 0;
  for (const [, size] of chunks) if (size > m) m = size;
  return m;
}

describe('parallel copy: tenured space', () => {
  for (const threads of [1, 4, 16]) {
    it(`small promotions use little more than their own size of tenured's contiguous space (${threads} threads)`, async () => {
      // tenureAge 0: every young survivor is promoted at its first collection.
      const { heap, roots } = await makeParallelHeap(threads, { heapBytes: 16 * 2 ** 20, layout: 'sable', tenureAge: 0 }, 8192);
      const node = heap.defineClass('Node', ['int', 'ref', 'ref']);
      const nodeWords = 4 + 3;
      const before = largestFree(heap.freeList.chunks());
      const rounds = 60;
      const perRound = 40;
      let promoted = 0;
      for (let r = 0; r < rounds; r++) {
        // Each node its own root, so that every thread finds work.
        for (let i = 0; i < perRound; i++) roots.push(await alloc(heap, node));
        await collect(heap, 'young');
        promoted += perRound * nodeWords;
        for (let i = roots.count - perRound; i < roots.count; i++) expect(roots.get(i)).toBeGreaterThanOrEqual(heap.tenuredStart);
        verifyHeap(heap);
      }
      const used = before - largestFree(heap.freeList.chunks());
      // The copies themselves, the holes LABs sized to them leave (a fraction of
      // them), and at most a smallest LAB (16 words) per thread per collection.
      const bound = 2 * promoted + rounds * threads * 16;
      expect(used, `tenured's largest chunk shrank by ${used} words for ${promoted} promoted`).toBeLessThanOrEqual(bound);
    });
  }

  for (const threads of [1, 4, 16]) {
    it(`a collection that promotes much more than lately grows its LABs instead of carving each object under the lock (${threads} threads)`, async () => {
      // The first collection has no promotion behind it: its LABs start at the
      // smallest size, which a 7-word node does not fit a quarter of.
      const { heap, roots, marker } = await makeParallelHeap(threads, { heapBytes: 32 * 2 ** 20, layout: 'sable', tenureAge: 0 }, 64);
      const node = heap.defineClass('Node', ['int', 'ref', 'ref']);
      const [, next] = node.offsets;
      const lists = 64;
      const perList = 400;
      let nodeWords = 0;
      for (let l = 0; l < lists; l++) {
        let head = 0;
        for (let i = 0; i < perList; i++) {
          const a = await alloc(heap, node);
          heap.writeRef(a, next!, 0, head);
          nodeWords = heap.types.objectWords(heap.words, a);
          head = a;
        }
        roots.push(head);
      }
      await collect(heap, 'young');
      const objects = lists * perList;
      expect(heap.lastRecord?.promotedBytes).toBe(objects * nodeWords * 4);
      const carves = marker.copier.lastCarves;
      expect(carves).toBeGreaterThan(0);
      // Each thread that takes work ramps its own LAB up from the smallest, so the
      // bound allows every thread a doubling's worth (16 carves) beside the 1 in 16.
      const bound = objects / 16 + 16 * threads;
      expect(carves, `${carves} carves under the lock for ${objects} promoted objects`).toBeLessThan(bound);
      verifyHeap(heap);
    });
  }
});
