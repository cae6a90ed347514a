/**
 * No compilation inside a pause: every pipeline a GPU marker can use is created
 * at `prepare` and dispatched once before it is handed out (device/shader.ts
 * `runOnce`), since lavapipe compiles a pipeline at its first dispatch. Dawn's
 * own prototypes are wrapped here to watch what the device is asked to do,
 * independently of the marker's count (`GpuMarkStats.pipelinesCreated`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { destroyGpu, openGpu } from '../../src/gpu/device/device.js';
import { GpuMarker } from '../../src/gpu/worker/gpu-marker.js';
import { GenerationalPlan } from '../../src/gc/plan.js';
import { createHeap } from '../../src/heap/heap.js';
import { gpuInput } from '../../src/collectors/memory.js';
import { alloc, collect, RootArray } from '../gc/helpers.js';

/** Pipelines the device created, their entry points, and those dispatched at least once. */
const created: GPUComputePipeline[] = [];
const entryPoints = new WeakMap<GPUComputePipeline, string>();
const dispatched = new Set<GPUComputePipeline>();
const restore: (() => void)[] = [];

function wrap<T extends object, K extends keyof T>(proto: T, name: K, make: (orig: T[K]) => T[K]): void {
  const orig = proto[name];
  proto[name] = make(orig);
  restore.push(() => {
    proto[name] = orig;
  });
}

beforeAll(async () => {
  await openGpu();
  const current = new WeakMap<GPUComputePassEncoder, GPUComputePipeline>();
  type CreateAsync = GPUDevice['createComputePipelineAsync'];
  wrap(GPUDevice.prototype, 'createComputePipelineAsync', (orig: CreateAsync) =>
    async function (this: GPUDevice, d: GPUComputePipelineDescriptor) {
      const p = await orig.call(this, d);
      created.push(p);
      entryPoints.set(p, d.compute.entryPoint ?? '?');
      return p;
    } as CreateAsync,
  );
  wrap(GPUDevice.prototype, 'createComputePipeline', (orig: GPUDevice['createComputePipeline']) =>
    function (this: GPUDevice, d: GPUComputePipelineDescriptor) {
      const p = orig.call(this, d);
      created.push(p);
      entryPoints.set(p, d.compute.entryPoint ?? '?');
      return p;
    },
  );
  const pass = GPUComputePassEncoder.prototype;
  wrap(pass, 'setPipeline', (orig) =>
    function (this: GPUComputePassEncoder, p: GPUComputePipeline) {
      current.set(this, p);
      orig.call(this, p);
    },
  );
  const dispatch = (this_: GPUComputePassEncoder): void => {
    const p = current.get(this_);
    if (p) dispatched.add(p);
  };
  wrap(pass, 'dispatchWorkgroups', (orig) =>
    function (this: GPUComputePassEncoder, x: number, y?: number, z?: number) {
      dispatch(this);
      orig.call(this, x, y, z);
    },
  );
  wrap(pass, 'dispatchWorkgroupsIndirect', (orig) =>
    function (this: GPUComputePassEncoder, b: GPUBuffer, o: number) {
      dispatch(this);
      orig.call(this, b, o);
    },
  );
});

afterAll(async () => {
  for (const r of restore.reverse()) r();
  await destroyGpu();
});

/** Every configuration that builds a distinct set of programs: both engines,
 *  both layouts, the device evacuation, the remembered set always on the GPU. */
const configs = [
  { engine: 'gpu-dfs', layout: 'sable', options: 'evacuate=gpu,remset=0' },
  { engine: 'gpu-bfs', layout: 'sable', options: 'evacuate=gpu,remset=0' },
  { engine: 'gpu-dfs', layout: 'refgraph', options: 'all' },
  { engine: 'gpu-bfs', layout: 'refgraph', options: 'all' },
] as const;

describe('GPU pipelines run once at start-up', () => {
  for (const c of configs) {
    it(`${c.engine} ${c.layout} (${c.options}): prepare dispatches every pipeline it creates, and collections create none`, async () => {
      const heap = createHeap({ heapBytes: 512 * 1024, youngBytes: 128 * 1024, tenureAge: 1, layout: c.layout });
      const roots = new RootArray(1024);
      heap.setRoots(roots);
      const marker = new GpuMarker({ engine: c.engine, options: c.options, input: gpuInput(heap) });
      try {
        heap.setCollector(new GenerationalPlan(heap, marker));
        const before = created.length;
        await marker.prepare();
        const made = created.slice(before);
        // Each configuration adds programs the ones before it did not build.
        expect(made.length).toBeGreaterThan(0);
        expect(marker.startup?.pipelines).toBe(made.length);
        expect(made.filter((p) => !dispatched.has(p)).map((p) => entryPoints.get(p))).toEqual([]);

        // Eight lists whose heads are tenured after the first collection, each
        // round inserting young nodes behind them (remembered slots), then a
        // young collection (a full one in round 3), whose survivors are
        // evacuated on the device or replayed on its copy of the heap.
        const node = heap.defineClass('Node', ['ref', 'int']);
        const next = node.offsets[0]!;
        for (let k = 0; k < 8; k++) roots.push(await alloc(heap, node));
        const seen: number[] = [];
        const afterPrepare = created.length;
        for (let round = 0; round < 6; round++) {
          for (let i = 0; i < 200; i++) {
            const a = await alloc(heap, node);
            const head = roots.get(i % 8);
            heap.writeRef(a, next, 0, heap.words[head + next]!);
            heap.writeRef(head, next, 0, a);
          }
          await collect(heap, round === 3 ? 'full' : 'young');
          seen.push(marker.lastStats!.pipelinesCreated);
        }
        expect(heap.stats.youngCollections).toBeGreaterThan(0);
        expect(heap.stats.fullCollections).toBeGreaterThan(0);
        expect(seen).toEqual(seen.map(() => 0));
        expect(created.slice(afterPrepare).map((p) => entryPoints.get(p))).toEqual([]);
      } finally {
        marker.dispose();
      }
    });
  }
});
