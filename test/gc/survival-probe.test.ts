/**
 * The survival probe (gc/survival-probe.ts) that auto asks before a program's
 * first young collection: the young words the roots reach when they are few,
 * -1 past its budget or with a dirty card, in both layouts, and the same words
 * a serial young collection then keeps.
 */

import { describe, expect, it } from 'vitest';
import { SurvivalProbe } from '../../src/gc/survival-probe.js';
import { alloc, allocArray, makeHeap } from './helpers.js';

describe('the survival probe', () => {
  for (const layout of ['sable', 'refgraph'] as const) {
    it(`counts the young words the roots reach, each object once (${layout})`, async () => {
      const { heap, roots } = makeHeap({ layout, heapBytes: 4 << 20 });
      const node = heap.defineClass('Node', ['int', 'ref', 'ref']);
      const refs = heap.defineArray('Node[]', 'ref');
      // A list of 40 nodes, each also pointing back at the head (a cycle), from two
      // roots, an array holding the list's head twice, and garbage beside it.
      let head = 0;
      for (let i = 0; i < 40; i++) {
        const n = await alloc(heap, node);
        heap.writeRef(n, node.offsets[1]!, node.edgeIndex[1]!, head);
        head = n;
      }
      for (let a = head; a !== 0; a = heap.words[a + node.offsets[1]!]!) heap.writeRef(a, node.offsets[2]!, node.edgeIndex[2]!, head);
      const arr = await allocArray(heap, refs, 2);
      heap.writeRef(arr, heap.arrayDataOffset, 0, head);
      heap.writeRef(arr, heap.arrayDataOffset + 1, 1, head);
      for (let i = 0; i < 100; i++) await alloc(heap, node);
      roots.push(head);
      roots.push(arr);
      roots.push(head);
      const probe = new SurvivalProbe();
      const words = probe.youngLiveWords(heap);
      const nodeWords = heap.types.objectWords(heap.words, head);
      expect(words).toBe(40 * nodeWords + heap.types.objectWords(heap.words, arr));
      // What the roots reach is what a young collection keeps.
      heap.requestCollection('young', 'test');
      await heap.collectPending();
      const r = heap.lastRecord!;
      expect((r.survivedBytes + r.promotedBytes) / 4).toBe(words);
      // The survivors are still young and reached: the same probe looks again
      // from an empty table and finds them at their new addresses.
      expect(probe.youngLiveWords(heap)).toBe(words);
    });
  }

  it('gives up past its budget of objects, and a young probe while a card is dirty; a full one follows tenured objects', async () => {
    const { heap, roots } = makeHeap({ heapBytes: 4 << 20, tenureAge: 1 });
    const node = heap.defineClass('Node', ['ref']);
    let head = 0;
    for (let i = 0; i < 65; i++) {
      const n = await alloc(heap, node);
      heap.writeRef(n, node.offsets[0]!, node.edgeIndex[0]!, head);
      head = n;
    }
    roots.push(head);
    expect(new SurvivalProbe(64).youngLiveWords(heap)).toBe(-1);
    expect(new SurvivalProbe(65).youngLiveWords(heap)).toBe(65 * heap.types.objectWords(heap.words, head));
    // The list ages into tenured; a store of a young object into it dirties a card.
    for (let i = 0; i < 3; i++) {
      heap.requestCollection('young', 'test');
      await heap.collectPending();
    }
    const old = roots.get(0);
    expect(old).toBeGreaterThanOrEqual(heap.tenuredStart);
    expect(new SurvivalProbe().youngLiveWords(heap)).toBe(0);
    // A full probe follows the tenured list too.
    const nodeWords = heap.types.objectWords(heap.words, old);
    expect(new SurvivalProbe().heapLiveWords(heap)).toBe(65 * nodeWords);
    expect(new SurvivalProbe(64).heapLiveWords(heap)).toBe(-1);
    const young = await alloc(heap, node);
    heap.writeRef(old, node.offsets[0]!, node.edgeIndex[0]!, young);
    expect(new SurvivalProbe().youngLiveWords(heap)).toBe(-1);
    // A full probe does not need the cards. The store replaced the head's next
    // node: the head and the young node are all that live.
    expect(new SurvivalProbe().heapLiveWords(heap)).toBe(2 * nodeWords);
  });

  it('stops reading an array once its budget is spent', async () => {
    const { heap, roots } = makeHeap({ heapBytes: 16 << 20 });
    const node = heap.defineClass('Node', ['int']);
    const refs = heap.defineArray('Node[]', 'ref');
    // An array of 100,000 slots, the first 100 holding nodes (a full probe: the
    // array is large enough to be allocated in tenured).
    const arr = await allocArray(heap, refs, 100_000);
    roots.push(arr);
    for (let i = 0; i < 100; i++) heap.writeRef(arr, heap.arrayDataOffset + i, i, await alloc(heap, node));
    const words = (a: number): number => heap.types.objectWords(heap.words, a);
    // Its 65th object spends a budget of 64: 64 of the 100,000 slots read.
    const probe = new SurvivalProbe(64);
    expect(probe.heapLiveWords(heap)).toBe(-1);
    expect(probe.lastSlots).toBe(64);
    // With room for all 100 nodes and for reading every slot (32 per object of
    // its budget), it reads them all.
    const all = new SurvivalProbe(3200);
    expect(all.heapLiveWords(heap)).toBe(words(arr) + 100 * words(heap.words[arr + heap.arrayDataOffset]!));
    expect(all.lastSlots).toBe(100_000);
    // With room for the nodes but not for the slots (a budget of 200 objects
    // allows 6,400), it gives up after that many.
    const few = new SurvivalProbe(200);
    expect(few.heapLiveWords(heap)).toBe(-1);
    expect(few.lastSlots).toBe(32 * 200 + 1);
  });
});
