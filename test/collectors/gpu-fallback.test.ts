// The GPU collectors' marker around its GPU marker (src/collectors/gpu-fallback.ts):
// a device fault (MarkerFaultError) makes it the serial marker for good, told once;
// any other error is a bug and goes on up. The GPU marker is a stand-in here;
// test/gpu/faults.test.ts injects real faults on lavapipe.
import { describe, expect, it } from 'vitest';
import { AutoMarker } from '../../src/collectors/auto-marker.js';
import { GpuFallbackMarker, type GpuFallback } from '../../src/collectors/gpu-fallback.js';
import { Alternating } from './alternating.js';
import { HEAP_READER, MarkerFaultError, type MarkRequest } from '../../src/gc/marker.js';
import { SerialMarker } from '../../src/gc/serial-marker.js';
import { createHeap } from '../../src/heap/index.js';
import type { WorkerGpuMarker } from '../../src/gpu/index.js';

const COPYING = { keepsHeapCopy: true, replaysEvacuation: true, scansRememberedSet: true, copiesYoung: false, evacuatesYoung: true };

/** A GPU marker each of whose calls fails with `error()`; it counts them. */
function standIn(error: () => Error) {
  const calls: string[] = [];
  let disposed = 0;
  const fail = async (op: string): Promise<never> => {
    calls.push(op);
    throw error();
  };
  const gpu = {
    name: 'gpu-dfs',
    constraints: COPYING,
    mark: () => fail('mark'),
    scanRememberedSet: () => fail('remset'),
    replayEvacuation: () => fail('replay'),
    assignYoung: () => fail('assign'),
    finishYoung: () => fail('finish'),
    verifyCopy: () => fail('verify'),
    uploadAhead: () => fail('upload'),
    // The kernels before the program: the device takes collections from the first.
    options: { deviceStart: 'before' },
    open: () => Promise.resolve(),
    prepare: () => Promise.resolve(),
    dispose: () => {
      disposed++;
    },
  };
  return { gpu: gpu as unknown as WorkerGpuMarker, calls, disposed: () => disposed };
}

const request = (heap: ReturnType<typeof createHeap>, kind: 'young' | 'full'): MarkRequest => ({
  roots: new Int32Array(0),
  kind,
  youngStart: heap.youngStart,
  youngEnd: heap.youngEnd,
});

describe('GpuFallbackMarker', () => {
  it('redoes a faulted mark with the serial marker and stays on the CPU, told once', async () => {
    const heap = createHeap({ heapBytes: 1 << 20 });
    const s = standIn(() => new MarkerFaultError('device-lost', 'the GPU device was lost: test'));
    const told: GpuFallback[] = [];
    const m = new GpuFallbackMarker(s.gpu, heap, (f) => told.push(f));
    expect(m.constraints).toBe(COPYING);
    const got = await m.mark(request(heap, 'full'));
    const want = await new SerialMarker(heap).mark(request(heap, 'full'));
    expect(Array.from(got.bitmap)).toEqual(Array.from(want.bitmap));
    expect(told).toEqual([{ fault: 'device-lost', during: 'mark', collection: 1, message: 'the GPU device was lost: test' }]);
    expect(m.fallback).toEqual(told[0]);
    expect(m.constraints).toBe(HEAP_READER);
    expect(s.disposed()).toBe(1);
    // Nothing reaches the GPU marker again, and nothing is told twice.
    await m.mark(request(heap, 'young'));
    expect(await m.scanRememberedSet(new Int32Array(0), heap.youngStart, heap.youngEnd)).toBeNull();
    expect(await m.assignYoung(new Int32Array(0), { toStart: 0, toEnd: 0, tenureAge: 1, tenuredStart: 0 })).toMatchObject({ ok: false });
    await m.uploadAhead(0, 0, 16);
    await m.verifyCopy(() => {
      throw new Error('no copy to verify');
    });
    expect(s.calls).toEqual(['mark']);
    expect(told.length).toBe(1);
  });

  it('hands a fault in the device evacuation on to the plan, which undoes its part', async () => {
    const heap = createHeap({ heapBytes: 1 << 20 });
    const s = standIn(() => new MarkerFaultError('out-of-memory', 'the GPU is out of memory: test'));
    const told: GpuFallback[] = [];
    const m = new GpuFallbackMarker(s.gpu, heap, (f) => told.push(f));
    await expect(m.finishYoung(0, new Int32Array(0), false, null)).rejects.toBeInstanceOf(MarkerFaultError);
    expect(told).toMatchObject([{ fault: 'out-of-memory', during: 'evacuation' }]);
    expect(m.constraints).toBe(HEAP_READER);
  });

  it('a fault between collections (the eden upload) falls back before the next one', async () => {
    const heap = createHeap({ heapBytes: 1 << 20 });
    const s = standIn(() => new MarkerFaultError('map-failed', 'the GPU refused to map a read-back: test'));
    const told: GpuFallback[] = [];
    const m = new GpuFallbackMarker(s.gpu, heap, (f) => told.push(f));
    await m.uploadAhead(0, 16, 32);
    expect(told).toMatchObject([{ fault: 'map-failed', during: 'eden upload', collection: 1 }]);
  });

  it('uploads in flight together that meet one fault fall back once', async () => {
    const heap = createHeap({ heapBytes: 1 << 20 });
    const s = standIn(() => new MarkerFaultError('device-lost', 'the GPU device was lost: test'));
    const told: GpuFallback[] = [];
    const m = new GpuFallbackMarker(s.gpu, heap, (f) => told.push(f));
    await Promise.all([m.uploadAhead(0, 16, 32), m.uploadAhead(16, 32, 48), m.uploadAhead(32, 48, 64)]);
    expect(s.calls).toEqual(['upload', 'upload', 'upload']);
    expect(told).toMatchObject([{ fault: 'device-lost', during: 'eden upload', collection: 1 }]);
    expect(s.disposed()).toBe(1);
  });

  it('lets any other error through: a bug is not a fault of the device', async () => {
    const heap = createHeap({ heapBytes: 1 << 20 });
    const s = standIn(() => new TypeError('a bug'));
    const told: GpuFallback[] = [];
    const m = new GpuFallbackMarker(s.gpu, heap, (f) => told.push(f));
    await expect(m.mark(request(heap, 'full'))).rejects.toThrow('a bug');
    await expect(m.replayEvacuation(new Int32Array(0), new Int32Array(0), new Int32Array(0))).rejects.toThrow('a bug');
    expect(told).toEqual([]);
    expect(m.fallback).toBeNull();
    expect(m.constraints).toBe(COPYING);
    expect(s.disposed()).toBe(0);
  });
});

describe('--gc auto and a GPU fault', () => {
  it('redoes the mark with the serial marker and no longer chooses that engine', async () => {
    const heap = createHeap({ heapBytes: 1 << 20 });
    const made: string[] = [];
    const faults: string[] = [];
    const auto = new AutoMarker(heap, {
      threads: 1,
      model: new Alternating(1),
      probeGpu: () => Promise.resolve(true),
      gpuMarker: (engine) => {
        made.push(engine);
        const s = standIn(() => new MarkerFaultError('device-lost', `the GPU device was lost: ${engine}`));
        return s.gpu;
      },
      onGpuFault: (engine, f) => faults.push(`${engine}: ${f.message}`),
    });
    const chosen: string[] = [];
    for (let i = 0; i < 6; i++) {
      await auto.begin('full');
      chosen.push(auto.name);
      const got = await auto.mark(request(heap, 'full'));
      const want = await new SerialMarker(heap).mark(request(heap, 'full'));
      expect(Array.from(got.bitmap)).toEqual(Array.from(want.bitmap));
    }
    expect([...faults].sort()).toEqual(['gpu-bfs: the GPU device was lost: gpu-bfs', 'gpu-dfs: the GPU device was lost: gpu-dfs']);
    // Each GPU engine was chosen once, failed, and was never offered again.
    expect(chosen.filter((c) => c === 'auto(gpu-dfs)').length).toBe(1);
    expect(chosen.filter((c) => c === 'auto(gpu-bfs)').length).toBe(1);
    expect(chosen.slice(3)).toEqual(['auto(serial)', 'auto(serial)', 'auto(serial)']);
    expect([...made].sort()).toEqual(['gpu-bfs', 'gpu-dfs']);
    auto.dispose();
  });
});
