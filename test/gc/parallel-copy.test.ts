/**
 * The parallel copy (gc/parallel/copy.ts) under races: many threads (more than
 * this machine's cores, so that threads are preempted mid-copy) copy one shared
 * structure reached from many roots and from thousands of remembered slots in
 * tenured, and every reachable young object must be copied exactly once, every
 * reference must land on its object's one copy, and the heap must verify.
 */

import { describe, expect, it } from 'vitest';
import { SerialMarker } from '../../src/gc/serial-marker.js';
import { verifyHeap } from '../../src/gc/verify.js';
import type { HeapImpl } from '../../src/heap/heap.js';
import { alloc, allocArray, collect, makeParallelHeap, rng, type RootArray } from './helpers.js';

interface Shared {
  heap: HeapImpl;
  roots: RootArray;
  /** The tenured array whose slots all point into the structure. */
  big: number;
  /** Node ids in allocation order: node i holds value i. */
  count: number;
  /** Each node's two successors' ids (-1: null), the model of the structure. */
  edges: Int32Array;
  /** The node id of each root slot from 1 on (slot 0 holds the tenured array). */
  rootIds: number[];
  val: number;
  left: number;
  right: number;
}

/**
 * `nodes` young nodes, each pointing at two random earlier nodes (a DAG whose
 * nodes have many parents); `rootCount` roots at random nodes; and a tenured
 * array of `slots` references, slot i to node i % nodes.
 */
async function sharedStructure(layout: 'sable' | 'refgraph', threads: number, nodes: number, rootCount: number, slots: number, seed: number): Promise<Shared> {
  const { heap, roots } = await makeParallelHeap(threads, { heapBytes: 16 * 2 ** 20, layout, tenureAge: 3 }, rootCount + 16);
  const node = heap.defineClass('Node', ['int', 'ref', 'ref']);
  // A second size (same offsets for the shared fields), so that LABs end with room
  // for no further object and fillers are written.
  const wide = heap.defineClass('Wide', ['int', 'ref', 'ref', 'int']);
  const arr = heap.defineArray('ref[]', 'ref');
  const [val, left, right] = node.offsets as [number, number, number];
  const rand = rng(seed);
  const big = await allocArray(heap, arr, slots);
  expect(big).toBeGreaterThanOrEqual(heap.tenuredStart);
  roots.push(big);
  const addr: number[] = [];
  const edges = new Int32Array(2 * nodes).fill(-1);
  for (let i = 0; i < nodes; i++) {
    const a = heap.allocInstance(i % 3 === 0 ? wide : node);
    expect(a, 'the structure fits in eden').not.toBe(0);
    heap.words[a + val] = i;
    if (i > 0) {
      const l = Math.floor(rand() * i);
      const r = Math.floor(rand() * i);
      heap.writeRef(a, left, node.edgeIndex[1]!, addr[l]!);
      heap.writeRef(a, right, node.edgeIndex[2]!, addr[r]!);
      edges[2 * i] = l;
      edges[2 * i + 1] = r;
    }
    addr.push(a);
  }
  const rootIds: number[] = [];
  for (let i = 0; i < rootCount; i++) {
    const id = Math.floor(rand() * nodes);
    rootIds.push(id);
    roots.push(addr[id]!);
  }
  for (let i = 0; i < slots; i++) heap.writeRef(big, heap.arrayDataOffset + i, i, addr[i % nodes]!);
  return { heap, roots, big, count: nodes, edges, rootIds, val, left, right };
}

/** Each node's current address, found from the tenured array, checking the
 *  structure against the model; the first fault is reported. */
function checkStructure(s: Shared): number[] {
  const { heap, big, count, edges, val, left, right } = s;
  const w = heap.words;
  const at: number[] = [];
  const slots = w[big + 3]!;
  const faults: string[] = [];
  for (let i = 0; i < slots && faults.length === 0; i++) {
    const a = w[big + 4 + i]!;
    const id = i % count;
    if (w[a + val] !== id) faults.push(`slot ${i} refers to ${a}, holding ${w[a + val]}, not node ${id}`);
    if (at[id] === undefined) at[id] = a;
    // Every reference to a node names the same copy.
    else if (a !== at[id]) faults.push(`slot ${i} refers to ${a}, another slot to ${at[id]}: node ${id} has two copies`);
  }
  for (let i = 0; i < count && faults.length === 0; i++) {
    const a = at[i]!;
    for (const [k, off] of [[0, left], [1, right]] as const) {
      const v = w[a + off]!;
      const want = edges[2 * i + k]!;
      if ((v === 0 ? -1 : w[v + val]) !== want || (v !== 0 && v !== at[want])) {
        faults.push(`node ${i} edge ${k} refers to ${v}, not to node ${want} at ${at[want]}`);
      }
    }
  }
  // The root slots were redirected to the same copies.
  s.rootIds.forEach((id, i) => {
    if (faults.length === 0 && s.roots.get(i + 1) !== at[id]) faults.push(`root ${i + 1} refers to ${s.roots.get(i + 1)}, not to node ${id} at ${at[id]}`);
  });
  expect(faults).toEqual([]);
  return at;
}

/** Live young objects now, by an independent serial mark from the roots and the tenured array. */
function liveYoung(s: Shared): number {
  const h = s.heap;
  const roots: number[] = [];
  s.roots.visitRoots((slots, from, to) => {
    for (let i = from; i < to; i++) if (slots[i]! >= h.youngStart && slots[i]! < h.youngEnd) roots.push(slots[i]!);
  });
  const slots = h.words[s.big + 3]!;
  for (let i = 0; i < slots; i++) roots.push(h.words[s.big + 4 + i]!);
  const r = new SerialMarker(h).mark({ roots: Int32Array.from(roots.filter((v) => v >= h.youngStart && v < h.youngEnd)), kind: 'young', youngStart: h.youngStart, youngEnd: h.youngEnd });
  return r.live!.length;
}

describe('parallel copy', () => {
  for (const layout of ['sable', 'refgraph'] as const) {
    for (const threads of [1, 2, 8, 16]) {
      it(`copies a structure shared by many roots and remembered slots exactly once (${layout}, ${threads} threads)`, async () => {
        const s = await sharedStructure(layout, threads, 6000, 2000, 30000, 17 + threads);
        // Several young collections: the nodes age through both survivors, then
        // are promoted (tenure age 3); a last full collection moves the rest.
        for (let round = 0; round < 5; round++) {
          const expected = liveYoung(s);
          await collect(s.heap, round === 4 ? 'full' : 'young');
          const rec = s.heap.lastRecord!;
          expect(rec.marker.threads, 'the threads copied').toBeDefined();
          const perThread = rec.marker.threads!.split(',').map((x) => Number(x.split('/')[0]));
          expect(perThread.length).toBe(threads);
          // Copied once each: the winners' counts add up to the live objects.
          expect(perThread.reduce((a, b) => a + b, 0)).toBe(expected);
          expect(rec.liveYoungObjects).toBe(expected);
          verifyHeap(s.heap);
          const at = checkStructure(s);
          expect(new Set(at).size).toBe(s.count);
        }
        // By now every node was promoted.
        expect(checkStructure(s).every((a) => a >= s.heap.tenuredStart)).toBe(true);
      });
    }
  }

  for (const threads of [2, 8]) {
    it(`walks dirty cards that the tenured pieces it promotes into share with old objects (sable, ${threads} threads)`, async () => {
      const { heap, roots } = await makeParallelHeap(threads, { heapBytes: 16 * 2 ** 20, layout: 'sable', tenureAge: 1, verifyGc: true }, 4096);
      const node = heap.defineClass('Node', ['int', 'ref', 'ref']);
      const [val, left, right] = node.offsets as [number, number, number];
      const arr = heap.defineArray('ref[]', 'ref');
      const data = heap.arrayDataOffset;
      // Tenured filled with large arrays, every other one dropped and swept: the
      // free list is then chunks between live arrays, at card offsets that are
      // not card boundaries, and the promotion reserve is carved from them.
      const len = Math.max(5000, heap.largeObjectWords + 1);
      const kept: number[] = [];
      for (let i = 0; heap.freeList.freeWords > 2 * (len + 8); i++) {
        const a = await allocArray(heap, arr, len);
        expect(a).toBeGreaterThanOrEqual(heap.tenuredStart);
        roots.push(a);
        if (i % 2 === 0) kept.push(roots.count - 1);
      }
      for (let i = 0; i < roots.count; i++) if (!kept.includes(i)) roots.slots[i] = 0;
      await collect(heap, 'full');
      const arrays = () => kept.map((i) => roots.get(i));
      // Each young node is referred to from a kept array's first or last slot,
      // whose cards the pieces after and before it may share.
      const slotOf = (k: number): number => {
        const a = arrays()[k >> 1]!;
        return a + data + ((k & 1) === 0 ? 0 : len - 1);
      };
      const generation = async (base: number, count: number): Promise<void> => {
        for (let i = 0; i < count; i++) {
          const n = await alloc(heap, node);
          heap.words[n + val] = base + i;
          const s = slotOf(i);
          const a = arrays()[i >> 1]!;
          heap.writeRef(a, s - a, s - a - data, n);
        }
      };
      const older = 2 * kept.length;
      await generation(0, older);
      await collect(heap, 'young');
      // The older generation (now of age 1) points at a younger one, which stays
      // young when the older is promoted: the promoted copies' cards are dirtied
      // by the threads while others walk the old arrays' cards.
      const young: number[] = [];
      for (let i = 0; i < older; i++) {
        const n = await alloc(heap, node);
        heap.words[n + val] = older + i;
        young.push(n);
        roots.push(n);
      }
      for (let i = 0; i < older; i++) {
        const o = heap.words[slotOf(i)]!;
        heap.writeRef(o, right, node.edgeIndex[2]!, roots.get(roots.count - older + i));
        heap.writeRef(o, left, node.edgeIndex[1]!, heap.words[slotOf((i + 1) % older)]!);
      }
      await collect(heap, 'young');
      const rec = heap.lastRecord!;
      expect(rec.promotedBytes, 'the older generation was promoted').toBeGreaterThan(0);
      verifyHeap(heap);
      // Every slot names its node's one copy; the promoted copies refer to the
      // younger generation's copies.
      const arrayCards = new Set<number>();
      const copyCards = new Set<number>();
      for (let i = 0; i < older; i++) {
        const o = heap.words[slotOf(i)]!;
        expect(heap.words[o + val]).toBe(i);
        expect(o).toBeGreaterThanOrEqual(heap.tenuredStart);
        expect(heap.words[heap.words[o + right]! + val]).toBe(older + i);
        expect(heap.words[o + right]).toBe(roots.get(roots.count - older + i));
        expect(heap.words[heap.words[o + left]! + val]).toBe((i + 1) % older);
        arrayCards.add(heap.cards.cardOf(slotOf(i)));
        copyCards.add(heap.cards.cardOf(o));
      }
      // The case this test is for happened: a copy promoted onto a card of an old array's dirty slot.
      expect([...copyCards].some((c) => arrayCards.has(c)), 'some promoted copy shares a card with a remembered slot').toBe(true);
      // The cards the copy dirtied hold: the next young collection finds the younger generation from them.
      await collect(heap, 'young');
      verifyHeap(heap);
      for (let i = 0; i < older; i++) expect(heap.words[heap.words[heap.words[slotOf(i)]! + right]! + val]).toBe(older + i);
    });
  }

  it('dirties every card of a promoted array whose slots still refer to young objects', async () => {
    const { heap, roots } = await makeParallelHeap(4, { heapBytes: 16 * 2 ** 20, layout: 'sable', tenureAge: 1 });
    const node = heap.defineClass('Node', ['int']);
    const arr = heap.defineArray('ref[]', 'ref');
    const len = Math.min(heap.largeObjectWords - 8, 40 * 128);
    const a0 = await allocArray(heap, arr, len);
    expect(a0, 'the array starts young').toBeLessThan(heap.youngEnd);
    const slot = roots.push(a0);
    await collect(heap, 'young');
    // Now of age 1: the next collection promotes it, while nodes of age 0 stay young.
    const stride = 37;
    for (let i = 0; i < len; i += stride) {
      const n = await alloc(heap, node);
      heap.words[n + node.offsets[0]!] = i;
      const a = roots.get(slot);
      heap.writeRef(a, heap.arrayDataOffset + i, i, n);
    }
    await collect(heap, 'young');
    const a = roots.get(slot);
    expect(a, 'the array was promoted').toBeGreaterThanOrEqual(heap.tenuredStart);
    const cards = new Set<number>();
    for (let i = 0; i < len; i += stride) {
      const s = a + heap.arrayDataOffset + i;
      const n = heap.words[s]!;
      expect(n, 'the node stayed young').toBeLessThan(heap.youngEnd);
      expect(heap.words[n + node.offsets[0]!]).toBe(i);
      cards.add(heap.cards.cardOf(s));
      expect(heap.cards.isDirty(s), `card ${heap.cards.cardOf(s)} of slot ${i}`).toBe(true);
    }
    expect(cards.size, 'the slots lie on many cards').toBeGreaterThan(20);
    verifyHeap(heap);
  });

  it('tells a heap mirror every card of the remembered slots it rewrote', async () => {
    // A GPU engine's copy of the heap learns what a CPU collection changed only
    // from the mirror log: here, the slots of a tenured array that spans many
    // neighbouring dirty cards, all redirected to their nodes' new copies.
    const { heap, roots } = await makeParallelHeap(2, { heapBytes: 16 * 2 ** 20, layout: 'sable', tenureAge: 1 });
    const log = heap.attachMirrorLog();
    const mirror = new Int32Array(heap.words.length);
    const sync = (): void => {
      const r = log.takeDirtyRanges();
      for (let i = 0; i < r.length; i += 2) mirror.set(heap.words.subarray(r[i]!, r[i + 1]!), r[i]!);
    };
    const node = heap.defineClass('Node', ['int']);
    const arr = heap.defineArray('ref[]', 'ref');
    const len = Math.max(40 * 128, heap.largeObjectWords + 1);
    const big = await allocArray(heap, arr, len);
    expect(big, 'the array is allocated in tenured').toBeGreaterThanOrEqual(heap.tenuredStart);
    roots.push(big);
    for (let i = 0; i < len; i++) {
      const n = await alloc(heap, node);
      heap.words[n + node.offsets[0]!] = i;
      heap.writeRef(big, heap.arrayDataOffset + i, i, n);
    }
    sync();
    const before = heap.words.slice(big, big + heap.arrayDataOffset + len);
    await collect(heap, 'young');
    sync();
    let moved = 0;
    for (let i = 0; i < len; i++) {
      const s = big + heap.arrayDataOffset + i;
      if (heap.words[s] !== before[s - big]) moved++;
      expect(mirror[s], `slot ${i} (card ${heap.cards.cardOf(s)})`).toBe(heap.words[s]);
      expect(heap.words[heap.words[s]! + node.offsets[0]!]).toBe(i);
    }
    expect(moved, 'every node moved').toBe(len);
    expect(heap.cards.cardOf(big + heap.arrayDataOffset + len - 1) - heap.cards.cardOf(big), 'the slots span many cards').toBeGreaterThan(30);
  });

  it('keeps stealing from a busy thread: lists hanging off one array are copied by both threads', async () => {
    const { heap, roots } = await makeParallelHeap(2, { heapBytes: 32 * 2 ** 20 });
    const node = heap.defineClass('Node', ['ref', 'int']);
    const arr = heap.defineArray('ref[]', 'ref');
    const top = heap.allocArray(arr, 256);
    roots.push(top);
    for (let l = 0; l < 256; l++) {
      let head = 0;
      for (let i = 0; i < 200; i++) {
        const a = heap.allocInstance(node);
        heap.writeRef(a, node.offsets[0]!, 0, head);
        head = a;
      }
      heap.writeRef(top, heap.arrayDataOffset + l, l, head);
    }
    // Whether the second thread runs while the first has work is up to the OS
    // (this machine is shared): up to 10 collections, one of them with a thread
    // that stole more than once.
    const seen: string[] = [];
    for (let attempt = 0; attempt < 10; attempt++) {
      await collect(heap, 'young');
      const field = heap.lastRecord!.marker.threads!;
      seen.push(field);
      const steals = field.split(',').map((x) => Number(x.split('/')[1]));
      if (Math.max(...steals) >= 2) break;
    }
    const steals = seen[seen.length - 1]!.split(',').map((x) => Number(x.split('/')[1]));
    expect(Math.max(...steals), seen.join(' | ')).toBeGreaterThanOrEqual(2);
  });

  it('promotes when the survivor space overflows, and keeps the card of a promoted object that refers to young ones', async () => {
    const { heap, roots } = await makeParallelHeap(4, { heapBytes: 8 * 2 ** 20, survivorRatio: 64, verifyGc: true });
    const node = heap.defineClass('Node', ['ref', 'int']);
    // A chain far larger than the survivor space.
    let head = 0;
    const n = Math.floor((heap.toEnd - heap.toStart) / 3);
    for (let i = 0; i < n; i++) {
      const a = await alloc(heap, node);
      heap.writeRef(a, node.offsets[0]!, 0, head);
      heap.words[a + node.offsets[1]!] = i;
      head = a;
    }
    const slot = roots.push(head);
    await collect(heap, 'young');
    const rec = heap.lastRecord!;
    expect(rec.kind).toBe('young');
    expect(rec.promotedBytes).toBeGreaterThan(0);
    expect(rec.survivedBytes).toBeGreaterThan(0);
    expect(rec.liveYoungObjects).toBe(n);
    // The chain is intact, values in order.
    let p = roots.get(slot);
    for (let i = n - 1; i >= 0; i--) {
      expect(heap.words[p + node.offsets[1]!]).toBe(i);
      p = heap.words[p + node.offsets[0]!]!;
    }
    expect(p).toBe(0);
    // A second collection follows the remembered references out of tenured.
    await collect(heap, 'young');
    expect(heap.lastRecord!.liveYoungObjects).toBeLessThanOrEqual(n);
  });

  it('falls back to the serial evacuation when tenured cannot reserve room for every young word', async () => {
    const { heap, roots } = await makeParallelHeap(2, { heapBytes: 2 * 2 ** 20, verifyGc: true });
    const arr = heap.defineArray('int[]', 'int');
    // Fill tenured with large arrays until less than eden is left.
    while (heap.freeList.freeWords > heap.edenEnd - heap.edenStart) roots.push(await allocArray(heap, arr, heap.largeObjectWords + 1));
    const node = heap.defineClass('Node', ['ref']);
    let head = 0;
    for (let i = 0; i < 1000; i++) {
      const a = await alloc(heap, node);
      heap.writeRef(a, node.offsets[0]!, 0, head);
      head = a;
    }
    roots.push(head);
    // Fill eden so that its words exceed what tenured could reserve.
    while (heap.allocArray(arr, 32) !== 0) {
      // until eden is full
    }
    await collect(heap, 'young');
    const rec = heap.lastRecord!;
    expect(rec.marker.threads, 'marked, not copied, by the threads').toBeDefined();
    expect(rec.phases.mark).toBeGreaterThan(0);
    expect(rec.liveYoungObjects).toBe(1000);
  });
});
