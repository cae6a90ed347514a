/**
 * The sizes of the parallel copy's local allocation buffers (gc/parallel/copier.ts
 * labWords): to-space and tenured LABs grow with what the last collections copied,
 * so that a large copy claims the shared top rarely, and a thread's unused last
 * LAB, left behind as a filler in to-space, stays a small part of what survived.
 */

import { describe, expect, it } from 'vitest';
import { labWords } from '../../src/gc/parallel/copier.js';
import { MAX_TO_LAB, MIN_TO_LAB, P_TO_LAB } from '../../src/gc/parallel/shared.js';
import { verifyHeap } from '../../src/gc/verify.js';
import { alloc, collect, makeParallelHeap } from './helpers.js';

describe('parallel copy: LAB sizes', () => {
  it('are the largest power of two within the bounds that is at most an eighth of a thread\'s share', () => {
    expect(labWords(0, 16, 1024, 8192)).toBe(1024);
    expect(labWords(16 * 8 * 4096, 16, 1024, 8192)).toBe(4096);
    expect(labWords(16 * 8 * 3000, 16, 1024, 8192)).toBe(2048);
    expect(labWords(16 * 8 * 4095, 16, 1024, 8192)).toBe(2048);
    expect(labWords(1e12, 16, 1024, 8192)).toBe(8192);
    expect(labWords(1e12, 1, 16, 2048)).toBe(2048);
  });

  it('leave fillers in to-space of at most an eighth of what survived, or a smallest LAB per thread', async () => {
    const threads = 16;
    // A tenure age no survivor reaches: everything stays in the survivor spaces.
    const { heap, roots, marker } = await makeParallelHeap(threads, { heapBytes: 96 * 2 ** 20, layout: 'sable', tenureAge: 15 }, 4096);
    const node = heap.defineClass('Node', ['int', 'ref', 'ref']);
    const nodeWords = heap.types.objectWords(heap.words, await alloc(heap, node));
    // Lists of 100 nodes, each list a root (every thread finds work), half a
    // survivor space in all.
    const length = 100;
    const lists = Math.floor(heap.plan.survivorWords / 2 / (length * nodeWords));
    expect(lists).toBeGreaterThan(threads * 8);
    for (let l = 0; l < lists; l++) {
      const r = roots.push(0);
      for (let i = 0; i < length; i++) {
        const n = await alloc(heap, node);
        heap.writeRef(n, node.offsets[1]!, node.edgeIndex[1]!, roots.get(r));
        roots.slots[r] = n;
      }
    }
    const live = lists * length * nodeWords;
    for (let c = 0; c < 3; c++) {
      await collect(heap, 'young');
      verifyHeap(heap);
      expect(heap.stats.bytesPromoted).toBe(0);
      const used = heap.youngUsedWords();
      expect(used).toBeGreaterThanOrEqual(live);
      // The first copy has the smallest LABs; later ones are sized to what it
      // copied, and the threads' unused last LABs stay within an eighth of it.
      expect(used - live).toBeLessThanOrEqual(Math.max(live / 8, threads * MIN_TO_LAB) + threads * nodeWords);
      const lab = marker.gc.ctx.ctl[P_TO_LAB]!;
      if (c === 0) expect(lab).toBe(MIN_TO_LAB);
      else expect(lab).toBe(labWords(live, threads, MIN_TO_LAB, MAX_TO_LAB));
    }
    expect(labWords(live, threads, MIN_TO_LAB, MAX_TO_LAB)).toBeGreaterThan(MIN_TO_LAB);
  });
});
