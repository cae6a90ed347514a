/**
 * gpu-dfs and gpu-bfs on the sable layout: every shape, young and full
 * collections, compared with an independent CPU trace.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { GpuMarker } from '../../src/gpu/worker/gpu-marker.js';
import { destroyGpu } from '../../src/gpu/device/device.js';
import type { ObjectGraph } from './graphs.js';
import { bitmapSet, complete, fullShapes, generational, layoutSable, markAndTrace, randomGraph, wide } from './graphs.js';

afterAll(async () => {
  await destroyGpu();
});

const shapes = fullShapes();

async function check(engine: 'gpu-dfs' | 'gpu-bfs', g: ObjectGraph, kind: 'young' | 'full', options = 'all') {
  const heap = layoutSable(g);
  const marker = new GpuMarker({ engine, input: { layout: 'sable', words: heap.words }, options });
  try {
    const { res, want } = await markAndTrace(marker, g, kind, heap);
    expect(marker.lastStats!.fallbackFrontier).not.toBe(-2);
    expect(bitmapSet(res.bitmap)).toEqual(want);
    if (kind === 'young') {
      const live = [...res.live!].sort((a, b) => a - b);
      expect(live).toEqual([...want].sort((a, b) => a - b));
      // order=address hands the list over sorted (order.wgsl).
      if (options.includes('order=address')) expect([...res.live!]).toEqual(live);
    } else {
      expect(res.live).toBeUndefined();
    }
    return res;
  } finally {
    marker.dispose();
  }
}

for (const engine of ['gpu-dfs', 'gpu-bfs'] as const) {
  describe(`${engine} sable`, () => {
    for (const g of shapes) {
      it(`${g.name} full`, async () => {
        await check(engine, g, 'full');
      });
    }
    for (const g of [generational(1500, 3, 5), generational(600, 6, 9), randomGraph(500, 2, 4, 3)]) {
      for (const options of ['all,order=mark', 'all,order=address']) {
        it(`${g.name} young (${options})`, async () => {
          const young = g.young.some((y) => y) ? g.young : g.refs.map((_, i) => i % 3 !== 0);
          await check(engine, { ...g, young }, 'young', options);
        });
      }
    }
    // prepare() with warmUp (the default on hardware adapters) creates the
    // heap-sized buffers with a rootless young and full mark: the marks after
    // it find what the CPU finds.
    it('young and full marks after a warm-up', async () => {
      const g = generational(1500, 3, 5);
      const heap = layoutSable(g);
      const input = { layout: 'sable' as const, words: heap.words, youngRange: heap.youngRange };
      const marker = new GpuMarker({ engine, input, warmUp: true });
      try {
        await marker.prepare();
        for (const kind of ['young', 'full', 'young'] as const) {
          const { res, want } = await markAndTrace(marker, g, kind, heap);
          expect(bitmapSet(res.bitmap)).toEqual(want);
          if (kind === 'young') expect(new Set(res.live)).toEqual(want);
        }
      } finally {
        marker.dispose();
      }
    });
    // Young wide objects: gpu-dfs spreads n of them over the grid's G workgroups
    // (n > G here on a software adapter's 4 workgroups, n < G on a GPU).
    for (const g of [complete(90, 3), wide(3000)]) {
      for (const options of ['all,order=mark', 'all,order=address', 'all,-vector,order=address']) {
        it(`${g.name} young, all young (${options})`, async () => {
          await check(engine, { ...g, young: g.refs.map(() => true) }, 'young', options);
        });
      }
    }
  });
}

describe('adapter limits', () => {
  /** What `prepare` throws for a heap of `length` words (a stand-in: only the
   *  length is read before the checks, not a real array that big). */
  async function prepareError(engine: 'gpu-dfs' | 'gpu-bfs', length: number): Promise<unknown> {
    const words = { length } as unknown as Int32Array;
    const marker = new GpuMarker({ engine, input: { layout: 'sable', words }, options: 'all' });
    try {
      return await marker.prepare().then(
        () => null,
        (e: unknown) => e,
      );
    } finally {
      marker.dispose();
    }
  }

  it('gpu-dfs refuses, before marking, a heap whose linked stack exceeds one binding', async () => {
    const { openGpu, GpuAdapterLimitError } = await import('../../src/gpu/device/device.js');
    const max = (await openGpu()).limits.maxStorageBufferBindingSize;
    // The stack takes 4 bytes per 4 heap words: just over the limit.
    const err = await prepareError('gpu-dfs', max + 64);
    expect(err).toBeInstanceOf(GpuAdapterLimitError);
    expect((err as Error).message).toMatch(/linked stack, over the \d+ MiB storage binding limit/);
  });

  it('gpu-bfs refuses, before marking, a heap whose mirror needs more bindings than the adapter has', async () => {
    const { openGpu, GpuAdapterLimitError } = await import('../../src/gpu/device/device.js');
    const { limits } = await openGpu();
    const chunkBytes = 2 ** Math.floor(Math.log2(Math.min(limits.maxStorageBufferBindingSize, limits.maxBufferSize)));
    // One chunk more than the bindings left beside the kernels' own (mirror.ts).
    const chunks = limits.maxStorageBuffersPerShaderStage - 8 + 1;
    const err = await prepareError('gpu-bfs', (chunks * chunkBytes) / 4);
    expect(err).toBeInstanceOf(GpuAdapterLimitError);
    expect((err as Error).message).toMatch(new RegExp(`needs ${chunks} storage bindings .* use --heap \\d+m or less`));
  });
});

describe('remembered set scanned on the GPU (remset.wgsl)', () => {
  // Every tenured object's reference slots, cut at 128-word card boundaries as
  // the plan cuts them: the kernel must report each young referent once and
  // exactly the runs of consecutive young slots within each range, each range's
  // first run (or an empty one) at the range's own entry, so in address order.
  for (const g of [generational(1500, 3, 5), generational(400, 40, 7), complete(60, 2)]) {
    it(`${g.name}`, async () => {
      const young = g.young.some((y) => y) ? g.young : g.refs.map((_, i) => i % 2 === 0);
      const graph = { ...g, young };
      const heap = layoutSable(graph);
      const [ys, ye] = heap.youngRange;
      const ranges: number[] = [];
      const wantRuns = new Set<string>();
      const wantRoots = new Set<number>();
      graph.refs.forEach((_, i) => {
        if (young[i]) return;
        const a = heap.addr[i]!;
        const end = a + 4 + heap.words[a + 2]!;
        for (let lo = a + 4; lo < end; ) {
          const hi = Math.min(end, (Math.floor(lo / 128) + 1) * 128);
          ranges.push(lo, hi);
          let first = -1;
          for (let s = lo; s <= hi; s++) {
            const v = s < hi ? heap.words[s]! : 0;
            const isYoung = v >= ys && v < ye;
            if (isYoung) wantRoots.add(v);
            if (isYoung && first < 0) first = s;
            if (!isYoung && first >= 0) {
              wantRuns.add(`${first}+${s - first}`);
              first = -1;
            }
          }
          lo = hi;
        }
      });
      const marker = new GpuMarker({
        engine: 'gpu-dfs',
        input: { layout: 'sable', words: heap.words },
        options: 'all,remset=0',
      });
      try {
        expect(marker.constraints.scansRememberedSet).toBe(true);
        const found = await marker.scanRememberedSet(Int32Array.from(ranges), ys, ye);
        expect(found).not.toBeNull();
        expect(found!.roots.length).toBe(wantRoots.size);
        expect(new Set(found!.roots)).toEqual(wantRoots);
        const runs = new Set<string>();
        const r = found!.runs;
        const rangeCount = ranges.length / 2;
        for (let k = 0; k < r.length; k += 2) if (r[k + 1]! > 0) runs.add(`${r[k]}+${r[k + 1]}`);
        expect(runs).toEqual(wantRuns);
        expect(wantRuns.size).toBeGreaterThan(0);
        // Entry k is range k's first run, or empty at its start; the rest are further runs.
        expect(r.length / 2).toBeGreaterThanOrEqual(rangeCount);
        for (let k = 0; k < rangeCount; k++) {
          const [lo, hi] = [ranges[2 * k]!, ranges[2 * k + 1]!];
          const [first, count] = [r[2 * k]!, r[2 * k + 1]!];
          if (count === 0) expect(first).toBe(lo);
          else expect(first >= lo && first + count <= hi).toBe(true);
          if (count > 0 && first > lo) expect(heap.words[first - 1]! >= ys && heap.words[first - 1]! < ye).toBe(false);
        }
        for (let k = 2 * rangeCount; k < r.length; k += 2) expect(r[k + 1]!).toBeGreaterThan(0);
        expect(r.length / 2 - rangeCount + [...Array(rangeCount).keys()].filter((k) => r[2 * k + 1]! > 0).length).toBe(wantRuns.size);
        // Below `remset=` slots the marker declines, and the plan scans on the CPU.
        if (ranges.length > 0) {
          const small = new GpuMarker({ engine: 'gpu-bfs', input: { layout: 'sable', words: heap.words }, options: 'all' });
          try {
            expect(await small.scanRememberedSet(Int32Array.from(ranges), ys, ye)).toBeNull();
          } finally {
            small.dispose();
          }
        }
        // The mark that follows uses the mirror the scan brought up to date.
        const { res, want } = await markAndTrace(marker, graph, 'young', heap);
        expect(bitmapSet(res.bitmap)).toEqual(want);
      } finally {
        marker.dispose();
      }
    });
  }
});
