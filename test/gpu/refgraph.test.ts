/**
 * gpu-dfs and gpu-bfs on the refgraph layout: the CSR graphs of both
 * generations, young collections that must not follow edges into tenured, and
 * the translation of vertex marks to the bitmap over heap addresses.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { GpuMarker } from '../../src/gpu/worker/gpu-marker.js';
import { destroyGpu } from '../../src/gpu/device/device.js';
import type { ObjectGraph } from './graphs.js';
import { bitmapSet, fullShapes, generational, layoutRefgraph, markAndTrace, randomGraph } from './graphs.js';

afterAll(async () => {
  await destroyGpu();
});

async function check(engine: 'gpu-dfs' | 'gpu-bfs', g: ObjectGraph, kind: 'young' | 'full', options = 'all') {
  const heap = layoutRefgraph(g);
  const marker = new GpuMarker({
    engine,
    input: { layout: 'refgraph', words: heap.words, graphs: () => heap.graphs! },
    options,
  });
  try {
    const { res, want } = await markAndTrace(marker, g, kind, heap);
    expect(marker.lastStats!.fallbackFrontier).not.toBe(-2);
    expect(bitmapSet(res.bitmap)).toEqual(want);
    if (kind === 'young') expect([...res.live!].sort((a, b) => a - b)).toEqual([...want].sort((a, b) => a - b));
  } finally {
    marker.dispose();
  }
}

const shapes = fullShapes();

const youngShapes = [generational(1500, 3, 5), generational(600, 6, 9), generational(300, 40, 2)];

for (const engine of ['gpu-dfs', 'gpu-bfs'] as const) {
  describe(`${engine} refgraph`, () => {
    for (const g of shapes) {
      it(`${g.name} full`, async () => {
        await check(engine, g, 'full');
      });
    }
    for (const g of youngShapes) {
      it(`${g.name} young`, async () => {
        await check(engine, g, 'young');
      });
    }
    it('baseline options (none), young and full', async () => {
      await check(engine, generational(800, 4, 21), 'full', 'none');
      await check(engine, generational(800, 4, 21), 'young', 'none');
    });
    it('an all-young heap and an all-tenured heap', async () => {
      const g = randomGraph(400, 3, 5, 8);
      await check(engine, { ...g, young: g.refs.map(() => true) }, 'young');
      await check(engine, { ...g, young: g.refs.map(() => false) }, 'full');
      await check(engine, { ...g, young: g.refs.map(() => false) }, 'young');
    });
  });
}
