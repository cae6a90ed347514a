/**
 * Serial's young mark with a limit of words (SerialMarker.markYoungUpTo), which a
 * GPU collector's threshold sizes a first young collection with: null once its
 * objects pass the limit, with no mark left behind for the next mark to trip
 * on; the whole mark, as `mark` gives it, and its words, within it. Both
 * layouts, both of the trace's forms.
 */
import { describe, expect, it, vi } from 'vitest';
import type { MarkRequest } from '../../src/gc/marker.js';
import { SerialMarker } from '../../src/gc/serial-marker.js';
import { alloc, allocArray, makeHeap } from './helpers.js';

describe("serial's young mark up to a number of words", () => {
  for (const layout of ['sable', 'refgraph'] as const) {
    it(`gives up past the limit and leaves no stray mark, or marks and counts all within it (${layout})`, async () => {
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
      const nodeWords = heap.types.objectWords(heap.words, roots.get(0));
      const request = (): MarkRequest => ({ roots: roots.slots.slice(0, roots.count), kind: 'young', youngStart: heap.youngStart, youngEnd: heap.youngEnd });
      const serial = new SerialMarker(heap);
      // Past the limit, early, midway and by one word at the end: nothing is given.
      expect(serial.markYoungUpTo(request(), 0)).toBeNull();
      expect(serial.markYoungUpTo(request(), 150 * nodeWords)).toBeNull();
      expect(serial.markYoungUpTo(request(), 200 * nodeWords - 1)).toBeNull();
      // The next mark, limited or not, finds every object: none was left marked.
      const all = serial.markYoungUpTo(request(), 200 * nodeWords)!;
      expect(all.words).toBe(200 * nodeWords);
      expect(all.mark.live!.length).toBe(200);
      const live = new Set(all.mark.live!);
      expect(serial.markYoungUpTo(request(), 10)).toBeNull();
      const whole = serial.mark(request());
      expect(new Set(whole.live!)).toEqual(live);
      for (const a of live) expect((whole.bitmap[a >>> 5]! >>> (a & 31)) & 1).toBe(1);
    });

    it(`leaves no mark on the object it gave up at, far from those it listed (${layout})`, async () => {
      const { heap, roots } = makeHeap({ layout, heapBytes: 4 << 20 });
      const node = heap.defineClass('Node', ['ref', 'int']);
      // X, then garbage, then a list of 64 whose tail refers to X: the mark counts
      // its words when its list first fills, at 64 objects, and gives up as it
      // meets X, alone in its bitmap word, as the 65th.
      const x = await alloc(heap, node);
      for (let i = 0; i < 40; i++) await alloc(heap, node);
      const slot = roots.push(0);
      for (let i = 0; i < 64; i++) {
        const n = await alloc(heap, node);
        heap.writeRef(n, node.offsets[0]!, node.edgeIndex[0]!, i === 0 ? x : roots.get(slot));
        roots.slots[slot] = n;
      }
      const nodeWords = heap.types.objectWords(heap.words, x);
      const request: MarkRequest = { roots: roots.slots.slice(0, 1), kind: 'young', youngStart: heap.youngStart, youngEnd: heap.youngEnd };
      const serial = new SerialMarker(heap);
      expect(serial.markYoungUpTo(request, 64 * nodeWords - 1)).toBeNull();
      const whole = serial.mark(request);
      expect(whole.live!.length).toBe(65);
      expect(whole.live).toContain(x);
    });

    it(`leaves no mark on a root it gave up at (${layout})`, async () => {
      const { heap, roots } = makeHeap({ layout, heapBytes: 4 << 20 });
      const node = heap.defineClass('Node', ['ref', 'int']);
      // X, garbage, then 64 nodes, each a root, and X the 65th root.
      const x = await alloc(heap, node);
      for (let i = 0; i < 40; i++) await alloc(heap, node);
      for (let i = 0; i < 64; i++) roots.push(await alloc(heap, node));
      roots.push(x);
      const request: MarkRequest = { roots: roots.slots.slice(0, roots.count), kind: 'young', youngStart: heap.youngStart, youngEnd: heap.youngEnd };
      const serial = new SerialMarker(heap);
      expect(serial.markYoungUpTo(request, 0)).toBeNull();
      const whole = serial.mark(request);
      expect(whole.live!.length).toBe(65);
      expect(whole.live).toContain(x);
    });

    it(`leaves no mark on an array's element it gave up at (${layout})`, async () => {
      const { heap, roots } = makeHeap({ layout, heapBytes: 4 << 20 });
      const node = heap.defineClass('Node', ['ref', 'int']);
      const refs = heap.defineArray('Node[]', 'ref');
      // X, garbage, then an array whose 64th element is X: found as the 65th object.
      const x = await alloc(heap, node);
      for (let i = 0; i < 40; i++) await alloc(heap, node);
      const arr = await allocArray(heap, refs, 64);
      roots.push(arr);
      for (let i = 0; i < 63; i++) heap.writeRef(arr, heap.arrayDataOffset + i, i, await alloc(heap, node));
      heap.writeRef(arr, heap.arrayDataOffset + 63, 63, x);
      const request: MarkRequest = { roots: roots.slots.slice(0, 1), kind: 'young', youngStart: heap.youngStart, youngEnd: heap.youngEnd };
      const serial = new SerialMarker(heap);
      expect(serial.markYoungUpTo(request, 0)).toBeNull();
      const whole = serial.mark(request);
      expect(whole.live!.length).toBe(65);
      expect(whole.live).toContain(x);
    });

    it(`gives up on the slots it scanned, before its few objects fill its list (${layout})`, async () => {
      const { heap, roots } = makeHeap({ layout, heapBytes: 4 << 20 });
      const node = heap.defineClass('Node', ['ref', 'int']);
      const refs = heap.defineArray('Node[]', 'ref');
      // A root array of 8 arrays of 2,000 elements, all S but the first, which is
      // the array's own T: 18 objects, far fewer than fill the list, holding 16,000 slots.
      const shared = await alloc(heap, node);
      const root = await allocArray(heap, refs, 8);
      roots.push(root);
      roots.push(shared);
      const own: number[] = [];
      for (let i = 0; i < 8; i++) {
        const arr = await allocArray(heap, refs, 2000);
        heap.writeRef(root, heap.arrayDataOffset + i, i, arr);
        const t = await alloc(heap, node);
        own.push(t);
        heap.writeRef(arr, heap.arrayDataOffset, 0, t);
        for (let k = 1; k < 2000; k++) heap.writeRef(arr, heap.arrayDataOffset + k, k, shared);
      }
      const request: MarkRequest = { roots: roots.slots.slice(0, 1), kind: 'young', youngStart: heap.youngStart, youngEnd: heap.youngEnd };
      const serial = new SerialMarker(heap);
      const all = serial.mark(request);
      expect(all.live!.length).toBe(18);
      const words = heap.types.wordsOf(heap.words, all.live!, 0, 18);
      // Three arrays' slots pass a limit of 5,000 words: it stops there, without
      // counting any object's words, and leaves the arrays after it untraced.
      const counts = vi.spyOn(heap.types, 'wordsOf');
      expect(serial.markYoungUpTo(request, 5000)).toBeNull();
      expect(counts).not.toHaveBeenCalled();
      counts.mockRestore();
      // No stray mark: the next marks find every object, and within its words the
      // limited mark gives them all.
      expect(new Set(serial.mark(request).live!)).toEqual(new Set(all.live!));
      const within = serial.markYoungUpTo(request, words)!;
      expect(within.words).toBe(words);
      expect(new Set(within.mark.live!)).toEqual(new Set(all.live!));
      for (const t of own) expect(within.mark.live).toContain(t);
    });

    it(`gives up on the slots it scanned in wide instances too (${layout})`, async () => {
      const { heap, roots } = makeHeap({ layout, heapBytes: 4 << 20 });
      const node = heap.defineClass('Node', ['ref', 'int']);
      const wide = heap.defineClass('Wide', Array<'ref'>(40).fill('ref'));
      // 8 rooted instances of 40 references each, all to S but the first, their own T.
      const shared = await alloc(heap, node);
      for (let i = 0; i < 8; i++) {
        const w = await alloc(heap, wide);
        roots.push(w);
        heap.writeRef(w, wide.offsets[0]!, wide.edgeIndex[0]!, await alloc(heap, node));
        for (let k = 1; k < 40; k++) heap.writeRef(w, wide.offsets[k]!, wide.edgeIndex[k]!, shared);
      }
      const request: MarkRequest = { roots: roots.slots.slice(0, roots.count), kind: 'young', youngStart: heap.youngStart, youngEnd: heap.youngEnd };
      const serial = new SerialMarker(heap);
      const counts = vi.spyOn(heap.types, 'wordsOf');
      expect(serial.markYoungUpTo(request, 100)).toBeNull();
      expect(counts).not.toHaveBeenCalled();
      counts.mockRestore();
      expect(serial.mark(request).live!.length).toBe(17);
    });
  }
});
