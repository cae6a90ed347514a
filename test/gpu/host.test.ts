/**
 * The main thread's side of the GPU worker (gpu/host/host.ts): a young mark's live
 * list comes back in shared memory that the worker is still writing after it
 * replied (MarkResult.liveReady says how far). Lists longer than one of the
 * worker's copy blocks (262,144 entries), shorter and longer again on one
 * marker, must all read back as the CPU's live set once waited for.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { closeGpuHost, WorkerGpuMarker } from '../../src/gpu/host/host.js';
import { expectedMarks, layoutSable, parallelLists, request, type ObjectGraph } from './graphs.js';

afterAll(async () => {
  await closeGpuHost();
});

const lists = parallelLists(600, 500);
const g: ObjectGraph = { ...lists, young: lists.refs.map(() => true) };
const laid = layoutSable(g);
const words = new Int32Array(new SharedArrayBuffer(laid.words.length * 4));
words.set(laid.words);

describe('the GPU worker streams a young mark’s live list', () => {
  for (const engine of ['gpu-dfs', 'gpu-bfs'] as const) {
    it(`${engine}: 300,000, then 5,000, then 300,000 live objects`, async () => {
      const marker = new WorkerGpuMarker({ engine, input: { layout: 'sable', words } });
      try {
        for (const roots of [g.roots, g.roots.slice(0, 10), g.roots]) {
          const req = request({ ...g, roots }, 'young', laid.addr, laid.youngRange);
          const res = await marker.mark(req);
          expect(res.liveReady).toBeTypeOf('function');
          res.liveReady!(res.live!.length);
          const want = expectedMarks({ ...g, roots }, req, laid.addr);
          expect(res.live!.length).toBe(want.size);
          const live = [...res.live!];
          // order=address (the default): sorted, so equal to the sorted expectation.
          expect(live).toEqual([...want].sort((a, b) => a - b));
        }
      } finally {
        marker.dispose();
      }
    }, 120_000);
  }
});
