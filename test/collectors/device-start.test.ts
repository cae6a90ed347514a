// A GPU collector's device starting beside the program (src/collectors/gpu-fallback.ts
// `prepare`, `--gpu-opt start=`): the device is opened before the program runs, its
// kernels compiled and buffers made beside it. Until the worker says they are ready,
// collections the threshold leaves to the CPU run there as ever, the first one for the
// device waits for them before its pause, and eden's uploads ahead wait too. The GPU
// marker is a stand-in whose start-up the test ends; test/gpu/device-start.test.ts
// runs the real one on lavapipe.
import { describe, expect, it } from 'vitest';
import { GpuFallbackMarker, type GpuFallback } from '../../src/collectors/gpu-fallback.js';
import { createCollector } from '../../src/gc/index.js';
import { HEAP_READER, MarkerFaultError, type MarkRequest } from '../../src/gc/marker.js';
import { SerialMarker } from '../../src/gc/serial-marker.js';
import { createHeap, type HeapImpl } from '../../src/heap/heap.js';
import { formatGcRecord, type GcRecord } from '../../src/heap/telemetry.js';
import type { Outcome, WorkerGpuMarker } from '../../src/gpu/index.js';
import { collect, RootArray } from '../gc/helpers.js';

type Start = 'beside' | 'before' | 'adapter';

/** A GPU marker that marks as serial does and logs its calls, whose start-up
 *  beside the program ends when the test calls `end` (with an error to fail it). */
function standIn(heap: HeapImpl, software: boolean, deviceStart: Start) {
  const calls: string[] = [];
  const serial = new SerialMarker(heap);
  let outcome: Outcome<void> | undefined;
  let settle: (e?: Error) => void = () => {};
  const reply = new Promise<void>((resolve, reject) => {
    settle = (error) => {
      outcome = error ? { ok: false, error } : { ok: true, value: undefined };
      if (error) reject(error);
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
      return { reply, land: () => 0, outcome: () => outcome };
    },
    // As the worker does: the compiling stops, and the start-up's reply fails.
    abandonStart: () => {
      calls.push('abandonStart');
      setTimeout(() => settle(new Error('the kernels\' compiling was abandoned at the run\'s end')), 5);
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
 *  collectors/memory.ts wires it, with `--gpu-min-live minLive`. */
async function startingHeap(software: boolean, deviceStart: Start, minLive: number) {
  const records: GcRecord[] = [];
  const told: GpuFallback[] = [];
  let marker: GpuFallbackMarker | null = null;
  const heap = createHeap({ heapBytes: 1 << 20, logGc: (_line, r) => (marker!.observe(r), records.push(r)) });
  heap.setRoots(new RootArray());
  const s = standIn(heap, software, deviceStart);
  marker = new GpuFallbackMarker(s.gpu, heap, (f) => told.push(f), minLive);
  await marker.prepare();
  heap.setCollector(marker.around(createCollector('gpu-dfs', heap, { marker })));
  const marks = () => s.calls.filter((c) => c.startsWith('mark'));
  return { heap, marker, records, told, s, marks };
}

/** Ends the start-up `ms` from now, while the run waits. */
const endLater = (s: { end: (e?: Error) => void }, ms: number, e?: Error): void => void setTimeout(() => s.end(e), ms);

describe('a GPU device starting beside the program', () => {
  it('leaves the small collections to the CPU meanwhile and makes the first one for the device wait, outside its pause', async () => {
    const { heap, marker, records, s, marks } = await startingHeap(false, 'adapter', 1 << 30);
    expect(marker.startsBeside).toBe(true);
    expect(s.calls).toEqual(['open', 'prepareBeside']);
    expect(marker.started()).toBe(false);
    // Under --gpu-min-live: the CPU's, starting or not, and nothing waits.
    await collect(heap, 'young');
    expect(records[0]!.collector).toBe('gpu-dfs(cpu)');
    expect(records[0]!.deviceStartWaitMs).toBeUndefined();
    expect(marker.startWaits).toEqual({ collectionMs: 0, endMs: 0, abandoned: false });
    // Every collection for the device from here.
    marker.threshold = null;
    endLater(s, 40);
    await collect(heap, 'young');
    expect(marks()).toEqual(['mark young']);
    const waited = records[1]!;
    expect(waited.collector).toBe('gpu-dfs');
    expect(waited.deviceStartWaitMs).toBeGreaterThanOrEqual(30);
    expect(waited.pauseMs).toBeLessThan(waited.deviceStartWaitMs!);
    expect(formatGcRecord(waited)).toMatch(/ start-wait=\d+\.\d\dms( |$)/);
    expect(marker.startWaits.collectionMs).toBe(waited.deviceStartWaitMs);
    expect(marker.started()).toBe(true);
    // Started: no later collection waits, nor the run's end.
    await collect(heap, 'full');
    expect(records[2]!.deviceStartWaitMs).toBeUndefined();
    expect(marks()).toEqual(['mark young', 'mark full']);
    expect(await marker.finishStarting()).toBe(0);
    expect(s.calls).not.toContain('abandonStart');
    expect(marker.startWaits.abandoned).toBe(false);
  });

  it('stops at the run\'s end a start-up still under way, quietly, and waits only for it to stop', async () => {
    const { marker, told, s } = await startingHeap(false, 'beside', 1 << 30);
    // It would take a second to end by itself.
    endLater(s, 1000);
    const waited = await marker.finishStarting();
    expect(s.calls).toEqual(['open', 'prepareBeside', 'abandonStart']);
    expect(waited).toBeLessThan(500);
    expect(marker.startWaits).toEqual({ collectionMs: 0, endMs: waited, abandoned: true });
    // Stopped on purpose: no fall-back to tell of.
    expect(told).toEqual([]);
    expect(marker.fallback).toBeNull();
  });

  it('counts a start-up that ended before the stop came as finished', async () => {
    const { marker, told, s } = await startingHeap(false, 'beside', 1 << 30);
    // The start-up ends in the worker as the stop comes: its reply says it succeeded.
    (s.gpu as unknown as { abandonStart: () => void }).abandonStart = () => {
      s.calls.push('abandonStart');
      setTimeout(() => s.end(), 5);
    };
    expect(await marker.finishStarting()).toBeLessThan(100);
    expect(s.calls).toContain('abandonStart');
    expect(marker.startWaits.abandoned).toBe(false);
    expect(told).toEqual([]);
  });

  it('falls back to the CPU, told once, when the device fails while starting', async () => {
    const { heap, marker, records, told, s, marks } = await startingHeap(false, 'adapter', 0);
    endLater(s, 10, new MarkerFaultError('device-lost', 'the GPU device was lost: test'));
    await collect(heap, 'young');
    await collect(heap, 'young');
    expect(told).toEqual([{ fault: 'device-lost', during: 'start-up', collection: 1, message: 'the GPU device was lost: test' }]);
    expect(marker.fallback).toEqual(told[0]);
    expect(marks()).toEqual([]);
    expect(records.map((r) => r.collector)).toEqual(['gpu-dfs', 'gpu-dfs']);
    expect(records[0]!.deviceStartWaitMs).toBeGreaterThan(0);
    expect(marker.constraints).toBe(HEAP_READER);
    expect(marker.started()).toBe(false);
  });

  it('meets a fault in the start-up where the program looks for its end between collections', async () => {
    const { marker, told, s } = await startingHeap(false, 'adapter', 0);
    s.end(new MarkerFaultError('out-of-memory', 'the GPU is out of memory: test'));
    // As eden's uploads ahead ask (collectors/memory.ts).
    expect(marker.started()).toBe(false);
    expect(told.map((f) => f.during)).toEqual(['start-up']);
    expect(await marker.finishStarting()).toBe(0);
  });

  it('throws on an error in the start-up that is not a device fault', async () => {
    const { heap, s } = await startingHeap(false, 'beside', 0);
    s.end(new TypeError('a bug of ours'));
    await expect(collect(heap, 'young')).rejects.toThrow('a bug of ours');
  });

  it('starts before the program on a software adapter by default, and beside it when asked', async () => {
    const before = await startingHeap(true, 'adapter', 0);
    expect(before.marker.startsBeside).toBe(false);
    expect(before.s.calls).toEqual(['open', 'prepare']);
    expect(before.marker.started()).toBe(true);
    await collect(before.heap, 'young');
    expect(before.records[0]!.deviceStartWaitMs).toBeUndefined();
    expect(before.marks()).toEqual(['mark young']);

    const hardwareBefore = await startingHeap(false, 'before', 0);
    expect(hardwareBefore.s.calls).toEqual(['open', 'prepare']);

    const beside = await startingHeap(true, 'beside', 0);
    expect(beside.marker.startsBeside).toBe(true);
    expect(beside.s.calls).toEqual(['open', 'prepareBeside']);
    expect(beside.marker.started()).toBe(false);
  });
});
