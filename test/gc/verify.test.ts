import { describe, expect, it } from 'vitest';
import { SerialMarker } from '../../src/gc/serial-marker.js';
import { HeapVerificationError, verifyHeap, verifyHeapCopy, verifyMarks } from '../../src/gc/verify.js';
import type { MarkRequest } from '../../src/gc/marker.js';
import { alloc, collect, makeHeap } from './helpers.js';

async function smallGraph() {
  const { heap, roots } = makeHeap({ tenureAge: 1 });
  const node = heap.defineClass('Node', ['ref', 'int', 'ref']);
  const [left, , right] = node.offsets as [number, number, number];
  const r = roots.push(await alloc(heap, node));
  const child = await alloc(heap, node);
  heap.writeRef(roots.get(r), left, 0, child);
  const grandchild = await alloc(heap, node);
  heap.writeRef(child, right, 1, grandchild);
  return { heap, roots, node, r, left, right };
}

describe('verifyHeap', () => {
  it('accepts a healthy heap after collections', async () => {
    const { heap } = await smallGraph();
    await collect(heap, 'young');
    await collect(heap, 'young');
    await collect(heap, 'full');
    expect(() => verifyHeap(heap)).not.toThrow();
  });

  it('catches a bad header', async () => {
    const { heap, roots, r, left } = await smallGraph();
    await collect(heap, 'young');
    const child = heap.words[roots.get(r) + left]!;
    heap.words[child + 1] = 999;
    expect(() => verifyHeap(heap)).toThrow(HeapVerificationError);
    expect(() => verifyHeap(heap)).toThrow(new RegExp(`bad header at ${child} in survivor: unknown type id 999`));
  });

  it('catches a dangling reference into free eden space', async () => {
    const { heap, roots, r, right } = await smallGraph();
    await collect(heap, 'young');
    const obj = roots.get(r);
    heap.words[obj + right] = heap.edenStart + 40;
    expect(() => verifyHeap(heap)).toThrow(
      new RegExp(`dangling reference at ${obj + right} in the Node at ${obj}: ${heap.edenStart + 40}, into free eden space`),
    );
  });

  it('catches a dangling reference into the empty survivor space and into a free chunk', async () => {
    const { heap, roots, r, right } = await smallGraph();
    await collect(heap, 'young');
    const obj = roots.get(r);
    heap.words[obj + right] = heap.toStart + 8;
    expect(() => verifyHeap(heap)).toThrow(/into the empty survivor space/);
    heap.words[obj + right] = heap.tenuredEnd - 100;
    expect(() => verifyHeap(heap)).toThrow(/into the free chunk at/);
  });

  it('catches tenured space handed back twice (overlapping chunks, words counted twice)', async () => {
    const { heap } = await smallGraph();
    await collect(heap, 'full');
    const s = heap.freeList.alloc(64);
    expect(s).not.toBe(0);
    heap.freeList.giveBack(s, 64);
    expect(() => verifyHeap(heap)).not.toThrow();
    heap.freeList.giveBack(s + 32, 32);
    expect(() => verifyHeap(heap)).toThrow(/free list: /);
  });

  it('catches tenured space lost: taken from the free list, never written nor given back', async () => {
    const { heap } = await smallGraph();
    await collect(heap, 'full');
    expect(heap.freeList.alloc(64)).not.toBe(0);
    expect(() => verifyHeap(heap)).toThrow(/free list: /);
  });

  it('catches a card of the block offset table that names no block start', async () => {
    const { heap } = await smallGraph();
    await collect(heap, 'full');
    const [start, size] = heap.freeList.chunks().sort((x, y) => y[1] - x[1])[0]!;
    const card = heap.cards.cardOf(start + size - 1);
    expect(heap.cards.blockStart[card]).toBe(start);
    heap.cards.blockStart[card] = start + 8;
    expect(() => verifyHeap(heap)).toThrow(new RegExp(`block offset table: card ${card} .* names ${start + 8}, which is no block start`));
  });

  it('keeps the block offset table valid when given-back space joins the chunk after it', async () => {
    const { heap } = await smallGraph();
    await collect(heap, 'full');
    // The second half of a carve goes back first: its cards name it, the chunk after
    // it joins it. Then the first half goes back and joins them both.
    const s = heap.allocTenured(2000);
    expect(s).not.toBe(0);
    heap.giveBackTenured(s + 1000, 1000);
    expect(heap.cards.blockStart[heap.cards.cardOf(s + 1999)]).toBe(s + 1000);
    heap.giveBackTenured(s, 1000);
    expect(Array.from(heap.cards.blockStart)).not.toContain(s + 1000);
    expect(() => verifyHeap(heap)).not.toThrow();
  });

  it('catches free words in tenured that the free list does not count', async () => {
    const { heap } = await smallGraph();
    await collect(heap, 'full');
    const fl = heap.freeList;
    const s = fl.alloc(64);
    fl.giveBack(s, 64);
    // The count loses those words: usedBytes would overstate the heap's use.
    fl.freeWords -= 64;
    expect(() => verifyHeap(heap)).toThrow(/free list: counts \d+ free words in tenured, but tenured's free blocks hold \d+/);
  });

  it('catches an old-to-young reference in a clean card', async () => {
    const { heap, roots, r, right } = await smallGraph();
    await collect(heap, 'young');
    await collect(heap, 'young');
    const old = roots.get(r);
    expect(old).toBeGreaterThanOrEqual(heap.tenuredStart);
    const young = heap.allocInstance({ typeId: heap.words[old + 1]!, offsets: [], edgeIndex: [] });
    heap.words[old + right] = young; // bypassing the write barrier
    expect(() => verifyHeap(heap)).toThrow(new RegExp(`missed old-to-young card: slot ${old + right} of the Node at ${old}`));
  });

  it('runs after every collection with verifyGc and stops the program with the error', async () => {
    const { heap, roots, left } = await smallGraph().then((g) => ({ ...g }));
    (heap.options as { verifyGc?: boolean }).verifyGc = true;
    const child = heap.words[roots.get(0) + left]!;
    heap.words[child + 3] = 7; // a length word on an instance
    await expect(collect(heap, 'full')).rejects.toThrow(/bad header at \d+ in survivor: instance of Node with length word 7/);
  });
});

describe('verifyMarks', () => {
  async function marked() {
    const { heap, roots } = await smallGraph();
    const marker = new SerialMarker(heap);
    const request: MarkRequest = {
      roots: Int32Array.from([roots.get(0)]),
      kind: 'young',
      youngStart: heap.youngStart,
      youngEnd: heap.youngEnd,
    };
    const result = marker.mark(request);
    return { heap, request, result };
  }

  it('accepts the serial marker', async () => {
    const { heap, request, result } = await marked();
    expect(result.live).toHaveLength(3);
    expect(() => verifyMarks(heap, request, result, 'serial')).not.toThrow();
    const full = new SerialMarker(heap).mark({ ...request, kind: 'full' });
    expect(() => verifyMarks(heap, { ...request, kind: 'full' }, full, 'serial')).not.toThrow();
  });

  it('names a missing object', async () => {
    const { heap, request, result } = await marked();
    const bitmap = result.bitmap.slice();
    const victim = result.live![2]!;
    bitmap[victim >>> 5]! &= ~(1 << (victim & 31));
    expect(() => verifyMarks(heap, request, { ...result, bitmap }, 'gpu-x')).toThrow(
      new RegExp(`gpu-x missed the reachable Node at ${victim} \\(young mark\\)`),
    );
  });

  it('runs on every collection under verifyGc, whatever the marker', async () => {
    const { heap, roots } = await smallGraph();
    (heap.options as { verifyGc?: boolean }).verifyGc = true;
    const child = heap.words[roots.get(0) + 4]!;
    heap.words[child + 2] = 0; // the marker now sees no references in the child
    await expect(collect(heap, 'young')).rejects.toThrow(/serial missed the reachable Node at \d+ \(young mark\)/);
  });

  it('names an extra mark', async () => {
    const { heap, request, result } = await marked();
    const bitmap = result.bitmap.slice();
    const extra = heap.edenTop - 1;
    bitmap[extra >>> 5]! |= 1 << (extra & 31);
    expect(() => verifyMarks(heap, request, { ...result, bitmap }, 'gpu-x')).toThrow(
      new RegExp(`gpu-x marked ${extra}, which is not a reachable object`),
    );
  });

  it('checks the live list', async () => {
    const { heap, request, result } = await marked();
    const live = Int32Array.from([...result.live!, result.live![0]!]);
    expect(() => verifyMarks(heap, request, { ...result, live })).toThrow(/listed 4 live young objects, expected 3/);
  });
});

describe('verifyHeapCopy', () => {
  it('accepts an exact copy and names the first reference word that differs', async () => {
    const { heap, roots, r, left } = await smallGraph();
    await collect(heap, 'young');
    const copy = new Uint32Array(heap.words.buffer.slice(0));
    expect(() => verifyHeapCopy(heap, copy, 'm')).not.toThrow();
    const slot = roots.get(r) + left;
    copy[slot] = copy[slot]! + 4;
    expect(() => verifyHeapCopy(heap, copy, 'm')).toThrow(HeapVerificationError);
    expect(() => verifyHeapCopy(heap, copy, 'm')).toThrow(new RegExp(`m's copy of the heap differs at word ${slot} `));
  });

  it('ignores scalar words, which no marker reads', async () => {
    const { heap, roots, r, left } = await smallGraph();
    await collect(heap, 'young');
    const copy = new Uint32Array(heap.words.buffer.slice(0));
    // Sable keeps the int field left of the header, just before it.
    const a = roots.get(r);
    copy[a - 1] = 12345;
    expect(left).toBeGreaterThanOrEqual(4);
    expect(() => verifyHeapCopy(heap, copy, 'm')).not.toThrow();
  });
});
