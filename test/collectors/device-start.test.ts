// A GPU collector's device starting beside the program (src/collectors/gpu-fallback.ts
// `prepare`, `--gpu-opt start=`): the device is opened before the program runs, its
// kernels compiled and buffers made beside it; until the worker says they are ready,
// every collection runs on the CPU, and only then do eden's uploads ahead start. The
// GPU marker is a stand-in whose start-up the test ends; test/gpu/device-start.test.ts
// runs the real one on lavapipe.
import { describe, expect, it } from 'vitest';
import { GpuFallbackMarker, type GpuFallback } from '../../src/collectors/gpu-fallback.js';
import { createCollector } from '../../src/gc/index.js';
import { HEAP_READER, MarkerFaultError, type MarkRequest } from '../../src/gc/marker.js';
import { SerialMarker } from '../../src/gc/serial-marker.js';
import { createHeap, type HeapImpl } from '../../src/heap/heap.js';
import { formatGcRecord, type GcRecord } from '../../src/heap/telemetry.js';
import type { WorkerGpuMarker } from '../../src/gpu/index.js';
import { collect, RootArray } from '../gc/helpers.js';

type Start = 'beside' | 'before' | 'adapter';

/** A GPU marker that marks as serial does and counts its marks, whose start-up
 *  beside the program ends when the test calls `end` (with an error to fail it). */
function standIn(heap: HeapImpl, software: boolean, deviceStart: Start) {
  const calls: string[] = [];
  const serial = new SerialMarker(heap);
  let finished = false;
  let settle: (e?: Error) => void = () => {};
  const reply = new Promise<void>((resolve, reject) => {
    settle = (e) => {
      finished = true;
      if (e) reject(e);
      else resolve();
    };
  });
  const gpu = {
    name: 'gpu-dfs',
    constraints: { ...HEAP_READER },
    adapter: { software },
    options: { deviceStart },
    open: async () => void calls.push('open'),
    prepare: async () => void calls.push('prepare'),
    prepareBeside: () => {
      calls.push('prepareBeside');
      return { done: () => finished, reply };
    },
    mark: async (r: MarkRequest) => {
      calls.push(`mark ${r.kind}`);
      return serial.mark(r);
    },
    uploadAhead: () => Promise.resolve(),
    landUploads: () => 0,
    dispose: () => void calls.push('dispose'),
  };
  return { gpu: gpu as unknown as WorkerGpuMarker, calls, end: (e?: Error) => settle(e) };
}

/** A heap collected through a GpuFallbackMarker around the stand-in, wired as
 *  collectors/memory.ts wires it; every collection the device may take it takes
 *  (`--gpu-min-live 0`). */
async function startingHeap(software: boolean, deviceStart: Start) {
  const records: GcRecord[] = [];
  const told: GpuFallback[] = [];
  let marker: GpuFallbackMarker | null = null;
  const heap = createHeap({ heapBytes: 1 << 20, logGc: (_line, r) => (marker!.observe(r), records.push(r)) });
  heap.setRoots(new RootArray());
  const s = standIn(heap, software, deviceStart);
  marker = new GpuFallbackMarker(s.gpu, heap, (f) => told.push(f), 0);
  let started = 0;
  await marker.prepare(() => started++);
  heap.setCollector(marker.around(createCollector('gpu-dfs', heap, { marker })));
  return { heap, marker, records, told, s, started: () => started };
}

describe('a GPU device starting beside the program', () => {
  it('leaves every collection to the CPU until the kernels are ready, then gives the device the next', async () => {
    const { heap, marker, records, s, started } = await startingHeap(false, 'adapter');
    expect(marker.startsBeside).toBe(true);
    expect(s.calls).toEqual(['open', 'prepareBeside']);
    await collect(heap, 'young');
    await collect(heap, 'full');
    expect(records.map((r) => [r.collector, r.deviceStarting])).toEqual([
      ['gpu-dfs(cpu)', true],
      ['gpu-dfs(cpu)', true],
    ]);
    expect(formatGcRecord(records[0]!)).toMatch(/ on-cpu \(the device is still starting beside the program\)$/);
    expect(marker.startingCollections).toBe(2);
    // Not counted as under --gpu-min-live.
    expect(marker.cpuCollections).toBe(0);
    expect(started()).toBe(0);
    s.end();
    await collect(heap, 'young');
    expect(started()).toBe(1);
    expect(records[2]!.collector).toBe('gpu-dfs');
    expect(records[2]!.deviceStarting).toBeUndefined();
    expect(s.calls.slice(2)).toEqual(['mark young']);
    expect(marker.startingCollections).toBe(2);
    // Nothing is left for the run's end to wait for.
    expect(await marker.finishStarting()).toBe(0);
    expect(started()).toBe(1);
  });

  it('waits at the run\'s end for a start-up still under way, which then counts as started', async () => {
    const { marker, s, started } = await startingHeap(false, 'beside');
    setTimeout(() => s.end(), 30);
    const waited = await marker.finishStarting();
    expect(waited).toBeGreaterThanOrEqual(20);
    expect(started()).toBe(1);
  });

  it('falls back to the CPU, told once, when the device fails while starting', async () => {
    const { heap, marker, records, told, s, started } = await startingHeap(false, 'adapter');
    await collect(heap, 'young');
    s.end(new MarkerFaultError('device-lost', 'the GPU device was lost: test'));
    await collect(heap, 'young');
    await collect(heap, 'young');
    expect(told).toEqual([{ fault: 'device-lost', during: 'start-up', collection: 2, message: 'the GPU device was lost: test' }]);
    expect(marker.fallback).toEqual(told[0]);
    expect(started()).toBe(0);
    expect(s.calls.filter((c) => c.startsWith('mark'))).toEqual([]);
    expect(records.map((r) => r.collector)).toEqual(['gpu-dfs(cpu)', 'gpu-dfs', 'gpu-dfs']);
    expect(marker.constraints).toBe(HEAP_READER);
    expect(await marker.finishStarting()).toBe(0);
  });

  it('throws on an error in the start-up that is not a device fault', async () => {
    const { heap, s } = await startingHeap(false, 'beside');
    s.end(new TypeError('a bug of ours'));
    await expect(collect(heap, 'young')).rejects.toThrow('a bug of ours');
  });

  it('starts before the program on a software adapter by default, and beside it when asked', async () => {
    const before = await startingHeap(true, 'adapter');
    expect(before.marker.startsBeside).toBe(false);
    expect(before.s.calls).toEqual(['open', 'prepare']);
    expect(before.started()).toBe(1);
    await collect(before.heap, 'young');
    expect(before.records[0]!.collector).toBe('gpu-dfs');

    const hardwareBefore = await startingHeap(false, 'before');
    expect(hardwareBefore.s.calls).toEqual(['open', 'prepare']);
    expect(hardwareBefore.started()).toBe(1);

    const beside = await startingHeap(true, 'beside');
    expect(beside.marker.startsBeside).toBe(true);
    expect(beside.s.calls).toEqual(['open', 'prepareBeside']);
    expect(beside.started()).toBe(0);
  });
});
