import { availableParallelism } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { createCollector } from '../../src/gc/index.js';
import type { MarkRequest, MarkResult } from '../../src/gc/marker.js';
import { ParallelMarker, defaultThreads } from '../../src/gc/parallel-marker.js';
import { ACTIVE, EPOCH, gateOf } from '../../src/gc/parallel/shared.js';
import { SerialMarker } from '../../src/gc/serial-marker.js';
import { createHeap, type HeapImpl } from '../../src/heap/heap.js';
import { alloc, allocArray, collect, rng, RootArray } from './helpers.js';


/**
 * A random object graph built through the Heap API: instances of a few classes mixing
 * scalar and reference fields, small reference and scalar arrays in eden and large
 * reference arrays in tenured; some long chains so that traces go deep, and a wide
 * array so that work has to be shared.
 */
function randomHeap(layout: 'sable' | 'refgraph', seed: number, objects: number): { heap: HeapImpl; all: number[] } {
  const rand = rng(seed);
  const heap = createHeap({ heapBytes: 4 * 2 ** 20, layout });
  const classes = [
    heap.defineClass('A', ['ref', 'int', 'ref']),
    heap.defineClass('B', ['float', 'ref', 'bool', 'ref', 'ref', 'int']),
    heap.defineClass('C', ['int', 'int']),
    heap.defineClass('D', ['ref']),
  ];
  const refArr = heap.defineArray('ref[]', 'ref');
  const intArr = heap.defineArray('int[]', 'int');
  const floatArr = heap.defineArray('float[]', 'float');
  const all: number[] = [];
  const arrays: number[] = [];
  for (let i = 0; i < objects; i++) {
    const r = rand();
    let a: number;
    if (r < 0.75) a = heap.allocInstance(classes[Math.floor(rand() * classes.length)]!);
    else if (r < 0.9) { a = heap.allocArray(refArr, Math.floor(rand() * 12)); arrays.push(a); }
    else if (r < 0.95) a = heap.allocArray(intArr, Math.floor(rand() * 8));
    else a = heap.allocArray(floatArr, Math.floor(rand() * 8));
    expect(a).not.toBe(0);
    all.push(a);
  }
  // Large reference arrays go straight to tenured.
  for (let i = 0; i < 3; i++) {
    const a = heap.allocArray(refArr, heap.largeObjectWords + 10);
    expect(a).toBeGreaterThanOrEqual(heap.tenuredStart);
    arrays.push(a);
    all.push(a);
  }
  const pick = (): number => (rand() < 0.15 ? 0 : all[Math.floor(rand() * all.length)]!);
  const chainNext = new Map<number, number>();
  for (const a of all) {
    const t = heap.words[a + 1]!;
    const c = classes.find((k) => k.typeId === t);
    if (c === undefined) continue;
    c.offsets.forEach((off, f) => {
      const e = c.edgeIndex[f]!;
      if (e < 0) return;
      // Half the 'D' objects form chains of consecutive objects (deep traces).
      let v = pick();
      if (c === classes[3] && rand() < 0.5) {
        v = all[all.indexOf(a) + 1] ?? 0;
        chainNext.set(a, v);
      }
      heap.writeRef(a, off, e, v);
    });
  }
  for (const a of arrays) {
    const len = heap.words[a + 3]!;
    const big = a >= heap.tenuredStart;
    for (let i = 0; i < len; i++) {
      const v = big ? (rand() < 0.01 ? pick() : 0) : pick();
      heap.writeRef(a, heap.arrayDataOffset + i, i, v);
    }
  }
  return { heap, all };
}

/** The marked addresses in [lo, hi) and the sorted live list, copied out of the marker's buffers. */
function snapshot(r: MarkResult, lo: number, hi: number): { bits: number[]; live: number[] | undefined } {
  const bits: number[] = [];
  for (let w = lo >>> 5; w < (hi + 31) >>> 5; w++) {
    const x = r.bitmap[w]!;
    if (x !== 0) for (let b = 0; b < 32; b++) if ((x >>> b) & 1) bits.push(w * 32 + b);
  }
  return {
    bits,
    live: r.live ? Array.from(r.live).sort((a, b) => a - b) : undefined,
  };
}

const markers: ParallelMarker[] = [];
afterEach(() => {
  for (const m of markers) m.dispose();
  markers.length = 0;
});

describe('parallel marker', () => {
  it('defaults to every core up to 8, then five of every eight more (HotSpot ParallelGCThreads)', () => {
    expect([1, 2, 8, 9, 16, 64].map((c) => defaultThreads(c))).toEqual([1, 2, 8, 8, 13, 43]);
    expect(defaultThreads()).toBe(defaultThreads(availableParallelism()));
  });

  for (const layout of ['sable', 'refgraph'] as const) {
    for (const threads of [1, 2, 4]) {
      it(`marks random ${layout} heaps exactly as the serial marker does (${threads} threads)`, async () => {
        for (let seed = 1; seed <= 4; seed++) {
          const { heap, all } = randomHeap(layout, seed * 7919 + threads, 3000);
          const serial = new SerialMarker(heap);
          const parallel = new ParallelMarker(heap, threads);
          markers.push(parallel);
          const rand = rng(seed);
          for (const kind of ['young', 'full'] as const) {
            for (const rootCount of [0, 1, 5, 200]) {
              const roots = new Int32Array(rootCount);
              for (let i = 0; i < rootCount; i++) roots[i] = all[Math.floor(rand() * all.length)]!;
              const request: MarkRequest = { roots, kind, youngStart: heap.youngStart, youngEnd: heap.youngEnd };
              const lo = kind === 'young' ? heap.youngStart : 0;
              const hi = kind === 'young' ? heap.youngEnd : heap.words.length;
              const expected = snapshot(serial.mark(request), lo, hi);
              const got = snapshot(await parallel.mark(request), lo, hi);
              expect(got.live).toEqual(expected.live);
              expect(got.bits).toEqual(expected.bits);
              if (kind === 'young') expect(got.live!.length).toBe(new Set(got.live).size);
            }
          }
        }
      });
    }
  }

  it('shares the work of a wide heap among the workers', async () => {
    for (const layout of ['sable', 'refgraph'] as const) {
      const heap = createHeap({ heapBytes: 64 * 2 ** 20, layout });
      const node = heap.defineClass('Node', ['ref', 'int']);
      const arr = heap.defineArray('ref[]', 'ref');
      // 64 lists of 2000 nodes hanging off one array: one root, so every object the
      // second worker scans came to it through the shared queue.
      const top = heap.allocArray(arr, 64);
      for (let l = 0; l < 64; l++) {
        let head = 0;
        for (let i = 0; i < 2000; i++) {
          const n = heap.allocInstance(node);
          heap.writeRef(n, node.offsets[0]!, node.edgeIndex[0]!, head);
          head = n;
        }
        heap.writeRef(top, heap.arrayDataOffset + l, l, head);
      }
      const serial = new SerialMarker(heap);
      const parallel = new ParallelMarker(heap, 2);
      markers.push(parallel);
      for (const kind of ['young', 'full'] as const) {
        const request: MarkRequest = { roots: Int32Array.of(top), kind, youngStart: heap.youngStart, youngEnd: heap.youngEnd };
        const n = heap.words.length;
        const expected = snapshot(serial.mark(request), 0, n);
        // Whether the second worker runs while the first still has work is up to
        // the OS: on a busy 2-core machine it once got none. So up to 10 marks,
        // each checked, and at least one of them shared.
        const seen: string[] = [];
        for (let attempt = 0; attempt < 10; attempt++) {
          const got = snapshot(await parallel.mark(request), 0, n);
          expect(got.bits.length).toBe(1 + 64 * 2000);
          expect(got).toEqual(expected);
          expect(parallel.lastScanned.reduce((a, b) => a + b, 0)).toBe(1 + 64 * 2000);
          seen.push(String(parallel.lastScanned));
          if (Math.min(...parallel.lastScanned) > 0) break;
        }
        expect(Math.min(...parallel.lastScanned), seen.join(' | ')).toBeGreaterThan(0);
      }
    }
  });

  /** A random sable heap's full mark from 50 of its objects, and what serial marks. */
  function fullMarkCase(seed: number) {
    const { heap, all } = randomHeap('sable', seed, 3000);
    const request: MarkRequest = { roots: Int32Array.from(all.slice(0, 50)), kind: 'full', youngStart: heap.youngStart, youngEnd: heap.youngEnd };
    const n = heap.words.length;
    return { heap, used: heap.usedBytes() / 4, request, n, expected: snapshot(new SerialMarker(heap).mark(request), 0, n) };
  }

  it('marks on the main thread alone when the heap in use is below soloWords, and only then', async () => {
    const { heap, used, request, n, expected } = fullMarkCase(7);
    // A command for the workers bumps EPOCH (and opens their gates); one run alone does not.
    const epoch = (m: ParallelMarker): number => Atomics.load(m.gc.ctx.ctl, EPOCH);
    const solo = new ParallelMarker(heap, 4, undefined, used + 1);
    markers.push(solo);
    await solo.prepare();
    for (let i = 0; i < 3; i++) {
      const before = epoch(solo);
      expect(snapshot(await solo.mark(request), 0, n)).toEqual(expected);
      expect(epoch(solo)).toBe(before);
      expect(solo.lastScanned.slice(1)).toEqual([0, 0, 0]);
      expect(solo.lastScanned[0]).toBe(expected.bits.length);
    }
    const woken = new ParallelMarker(heap, 4, undefined, used);
    markers.push(woken);
    await woken.prepare();
    const before = epoch(woken);
    expect(snapshot(await woken.mark(request), 0, n)).toEqual(expected);
    expect(epoch(woken)).toBe(before + 1);
    expect(woken.lastScanned.reduce((a, b) => a + b, 0)).toBe(expected.bits.length);
  });

  it('above soloWords wakes one thread per soloWords (at least two): the workers past them sleep on, their gates shut', async () => {
    const { heap, used, request, n, expected } = fullMarkCase(5);
    const gate = (m: ParallelMarker, id: number): number => Atomics.load(m.gc.ctx.ctl, gateOf(id));
    // The heap in use spans three soloWords: three of the five threads take part.
    const m = new ParallelMarker(heap, 5, undefined, Math.ceil(used / 3));
    markers.push(m);
    await m.prepare();
    expect(m.gc.activeFor(used)).toBe(3);
    expect(m.gc.activeFor(m.gc.soloWords)).toBe(2);
    expect(m.gc.activeFor(100 * used)).toBe(5);
    const epoch = (): number => Atomics.load(m.gc.ctx.ctl, EPOCH);
    for (let i = 0; i < 3; i++) {
      const shut = [gate(m, 3), gate(m, 4)];
      expect(snapshot(await m.mark(request), 0, n)).toEqual(expected);
      expect(m.gc.ctx.ctl[ACTIVE]).toBe(3);
      expect([gate(m, 1), gate(m, 2)]).toEqual([epoch(), epoch()]);
      expect([gate(m, 3), gate(m, 4)]).toEqual(shut);
      expect(shut).not.toContain(epoch());
      expect(m.lastScanned.slice(3)).toEqual([0, 0]);
      expect(m.lastScanned.reduce((a, b) => a + b, 0)).toBe(expected.bits.length);
    }
    // With a smaller share per thread the same pool wakes them all, the ones
    // left out before included.
    (m.gc as { soloWords: number }).soloWords = 1;
    for (let i = 0; i < 2; i++) {
      expect(snapshot(await m.mark(request), 0, n)).toEqual(expected);
      expect(m.gc.ctx.ctl[ACTIVE]).toBe(5);
      expect([1, 2, 3, 4].map((id) => gate(m, id))).toEqual([epoch(), epoch(), epoch(), epoch()]);
      expect(m.lastScanned.reduce((a, b) => a + b, 0)).toBe(expected.bits.length);
    }
  });

  it('with alternateSolo (the warm-up), runs every other command alone whatever its size, each marking as serial does', async () => {
    const { heap, request, n, expected } = fullMarkCase(11);
    const epoch = (m: ParallelMarker): number => Atomics.load(m.gc.ctx.ctl, EPOCH);
    const m = new ParallelMarker(heap, 4);
    markers.push(m);
    await m.prepare();
    m.gc.alternateSolo = true;
    const woke: boolean[] = [];
    for (let i = 0; i < 4; i++) {
      const before = epoch(m);
      expect(snapshot(await m.mark(request), 0, n)).toEqual(expected);
      woke.push(epoch(m) !== before);
    }
    // A mark is one command: the first wakes the workers, the second runs alone, and so on.
    expect(woke).toEqual([true, false, true, false]);
  });

  it('picks up types defined after the workers started (refgraph)', async () => {
    const { heap, all } = randomHeap('refgraph', 42, 500);
    const serial = new SerialMarker(heap);
    const parallel = new ParallelMarker(heap, 2);
    markers.push(parallel);
    const full = (roots: number[]): MarkRequest => ({ roots: Int32Array.from(roots), kind: 'full', youngStart: heap.youngStart, youngEnd: heap.youngEnd });
    await parallel.mark(full(all.slice(0, 10)));
    const late = heap.defineClass('Late', ['int', 'ref', 'ref']);
    const a = heap.allocInstance(late);
    heap.writeRef(a, late.offsets[1]!, late.edgeIndex[1]!, all[100]!);
    heap.writeRef(a, late.offsets[2]!, late.edgeIndex[2]!, all[200]!);
    const request = full([a]);
    const n = heap.words.length;
    const expected = snapshot(serial.mark(request), 0, n);
    expect(snapshot(await parallel.mark(request), 0, n)).toEqual(expected);
  });

  it('runs a generational plan with verify-gc through many collections', async () => {
    for (const layout of ['sable', 'refgraph'] as const) {
      const heap = createHeap({ heapBytes: 256 * 1024, layout, verifyGc: true, gcStress: 97 });
      const roots = new RootArray();
      heap.setRoots(roots);
      const marker = new ParallelMarker(heap, 2);
      markers.push(marker);
      const collector = createCollector('parallel', heap, { marker });
      const node = heap.defineClass('Node', ['int', 'ref', 'ref']);
      const arr = heap.defineArray('ref[]', 'ref');
      const [val, left, right] = node.offsets as [number, number, number];
      const keep = roots.push(await allocArray(heap, arr, 64));
      for (let i = 0; i < 20000; i++) {
        const n = await alloc(heap, node);
        heap.words[n + val] = i;
        const slot = i % 64;
        const holder = roots.get(keep);
        const prev = heap.words[holder + 4 + slot]!;
        heap.writeRef(n, left, node.edgeIndex[1]!, prev);
        heap.writeRef(n, right, node.edgeIndex[2]!, 0);
        heap.writeRef(roots.get(keep), 4 + slot, slot, n);
        if (i % 5 === 0) heap.writeRef(roots.get(keep), 4 + slot, slot, 0);
      }
      await collect(heap, 'full');
      expect(heap.stats.youngCollections + heap.stats.fullCollections).toBeGreaterThan(10);
      expect(heap.lastRecord!.collector).toBe('parallel');
      collector.dispose();
    }
  });
});
