/**
 * Serial's young mark with a limit of objects (SerialMarker.markYoungUpTo), which
 * a GPU collector's threshold sizes a first young collection with: null past the
 * limit, with no mark left behind for the next mark to trip on; the whole mark,
 * as `mark` gives it, within it. Both layouts, both of the trace's forms.
 */
import { describe, expect, it } from 'vitest';
import type { MarkRequest } from '../../src/gc/marker.js';
import { SerialMarker } from '../../src/gc/serial-marker.js';
import { alloc, makeHeap } from './helpers.js';

describe("serial's young mark up to a number of objects", () => {
  for (const layout of ['sable', 'refgraph'] as const) {
    it(`gives up past the limit and leaves no stray mark, or marks all within it (${layout})`, async () => {
      const { heap, roots } = makeHeap({ layout, heapBytes: 4 << 20 });
      const node = heap.defineClass('Node', ['ref', 'int']);
      // Two rooted lists of 100 nodes, garbage between their nodes.
      for (let l = 0; l < 2; l++) {
        const slot = roots.push(0);
        for (let i = 0; i < 100; i++) {
          const n = await alloc(heap, node);
          heap.writeRef(n, node.offsets[0]!, node.edgeIndex[0]!, roots.get(slot));
          roots.slots[slot] = n;
          await alloc(heap, node);
        }
      }
      const request = (): MarkRequest => ({ roots: roots.slots.slice(0, roots.count), kind: 'young', youngStart: heap.youngStart, youngEnd: heap.youngEnd });
      const serial = new SerialMarker(heap);
      // Past the limit, at a root and inside a list: nothing is given.
      expect(serial.markYoungUpTo(request(), 0)).toBeNull();
      expect(serial.markYoungUpTo(request(), 150)).toBeNull();
      expect(serial.markYoungUpTo(request(), 199)).toBeNull();
      // The next mark, limited or not, finds every object: none was left marked.
      const all = serial.markYoungUpTo(request(), 200)!;
      expect(all.live!.length).toBe(200);
      const live = new Set(all.live!);
      expect(serial.markYoungUpTo(request(), 150)).toBeNull();
      const whole = serial.mark(request());
      expect(new Set(whole.live!)).toEqual(live);
      for (const a of live) expect((whole.bitmap[a >>> 5]! >>> (a & 31)) & 1).toBe(1);
    });

    it(`leaves no mark on the object it gave up at, far from those it listed (${layout})`, async () => {
      const { heap, roots } = makeHeap({ layout, heapBytes: 4 << 20 });
      const node = heap.defineClass('Node', ['ref', 'int']);
      // X, then garbage, then a list of 100 whose tail refers to X: the trace
      // lists the list and meets X, alone in its bitmap word, as the 101st.
      const x = await alloc(heap, node);
      for (let i = 0; i < 40; i++) await alloc(heap, node);
      const slot = roots.push(0);
      for (let i = 0; i < 100; i++) {
        const n = await alloc(heap, node);
        heap.writeRef(n, node.offsets[0]!, node.edgeIndex[0]!, i === 0 ? x : roots.get(slot));
        roots.slots[slot] = n;
      }
      const request: MarkRequest = { roots: roots.slots.slice(0, 1), kind: 'young', youngStart: heap.youngStart, youngEnd: heap.youngEnd };
      const serial = new SerialMarker(heap);
      expect(serial.markYoungUpTo(request, 100)).toBeNull();
      const whole = serial.mark(request);
      expect(whole.live!.length).toBe(101);
      expect(whole.live).toContain(x);
    });
  }
});
