/**
 * The roots' young referents (gc/roots.ts rootReferents), whose new addresses
 * are all a device evacuation hands back, the roots redirected from them
 * (fixRootsFromReferents), and their places in a live list (gc/list-search.ts
 * positionsIn, which the GPU marker uses to pick their new addresses).
 */

import { describe, expect, it } from 'vitest';
import { IntList } from '../../src/gc/int-list.js';
import { positionsIn } from '../../src/gc/list-search.js';
import { fixRootsFromReferents, rootReferents } from '../../src/gc/roots.js';
import { alloc, makeHeap } from './helpers.js';

async function youngObjects(count: number) {
  const { heap, roots } = makeHeap();
  const node = heap.defineClass('Node', ['ref', 'int']);
  const objects: number[] = [];
  for (let i = 0; i < count; i++) objects.push(await alloc(heap, node));
  return { heap, roots, live: Int32Array.from(objects).sort() };
}

describe('root referents', () => {
  it('are the roots young referents, ascending and once each', async () => {
    const { heap, roots, live } = await youngObjects(10);
    for (const i of [7, 2, 7, 0, 9, 2]) roots.push(live[i]!);
    roots.push(0);
    roots.push(heap.tenuredStart + 8);
    const out = new IntList();
    expect([...rootReferents(heap, out)]).toEqual([0, 2, 7, 9].map((i) => live[i]));
    expect(out.length).toBe(4);
  });

  it('redirect each root slot to its referent new address, and leave the others', async () => {
    const { heap, roots, live } = await youngObjects(10);
    const order = [7, 2, 7, 0, 9, 2];
    for (const i of order) roots.push(live[i]!);
    roots.push(0);
    const referents = rootReferents(heap, new IntList()).slice();
    const picks = positionsIn(live, referents)!;
    expect([...picks]).toEqual([0, 2, 7, 9]);
    const forward = Int32Array.from(picks, (i) => 100_000 + i);
    fixRootsFromReferents(heap, referents, forward);
    expect([...roots.slots.subarray(0, order.length + 1)]).toEqual([...order.map((i) => 100_000 + i), 0]);
  });

  it('have no places when a search of the live list misses one (a list out of order)', async () => {
    const { heap, roots, live } = await youngObjects(6);
    roots.push(live[4]!);
    const referents = rootReferents(heap, new IntList());
    expect(positionsIn(live.slice().reverse(), referents)).toBeNull();
    expect(positionsIn(live, referents)).toEqual(Int32Array.of(4));
  });

  it('fail loudly when a root referent was not picked', async () => {
    const { heap, roots, live } = await youngObjects(4);
    roots.push(live[1]!);
    roots.push(live[3]!);
    expect(() => fixRootsFromReferents(heap, Int32Array.of(live[1]!), Int32Array.of(5))).toThrow(/not among the picked/);
  });
});
