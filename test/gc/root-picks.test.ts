/**
 * The roots' referents picked from a young live list (gc/roots.ts rootPicks),
 * whose new addresses are all a device evacuation hands back, and the roots
 * redirected from them (fixRootsFromList).
 */

import { describe, expect, it } from 'vitest';
import { IntList } from '../../src/gc/int-list.js';
import { fixRootsFromList, rootPicks } from '../../src/gc/roots.js';
import { alloc, makeHeap } from './helpers.js';

async function youngObjects(count: number) {
  const { heap, roots } = makeHeap();
  const node = heap.defineClass('Node', ['ref', 'int']);
  const objects: number[] = [];
  for (let i = 0; i < count; i++) objects.push(await alloc(heap, node));
  return { heap, roots, live: Int32Array.from(objects).sort() };
}

describe('root picks', () => {
  it('are the positions in the live list of the roots young referents, ascending and once each', async () => {
    const { heap, roots, live } = await youngObjects(10);
    for (const i of [7, 2, 7, 0, 9, 2]) roots.push(live[i]!);
    roots.push(0);
    roots.push(heap.tenuredStart + 8);
    const out = new IntList();
    expect([...rootPicks(heap, live, out)!]).toEqual([0, 2, 7, 9]);
    expect(out.length).toBe(4);
  });

  it('redirect each root slot to its referent new address, and leave the others', async () => {
    const { heap, roots, live } = await youngObjects(10);
    const order = [7, 2, 7, 0, 9, 2];
    for (const i of order) roots.push(live[i]!);
    roots.push(0);
    const picks = rootPicks(heap, live, new IntList())!.slice();
    const forward = Int32Array.from(picks, (i) => 100_000 + i);
    fixRootsFromList(heap, live, forward, picks);
    expect([...roots.slots.subarray(0, order.length + 1)]).toEqual([...order.map((i) => 100_000 + i), 0]);
  });

  it('are none when a search of the live list misses a root referent (a list out of order)', async () => {
    const { heap, roots, live } = await youngObjects(6);
    roots.push(live[4]!);
    expect(rootPicks(heap, live.slice().reverse(), new IntList())).toBeNull();
    expect(rootPicks(heap, live, new IntList())).toEqual(Int32Array.of(4));
  });

  it('fail loudly when a root referent was not picked', async () => {
    const { heap, roots, live } = await youngObjects(4);
    roots.push(live[1]!);
    roots.push(live[3]!);
    expect(() => fixRootsFromList(heap, live, Int32Array.of(5), Int32Array.of(1))).toThrow(/not among the picked/);
  });
});
