// Which collections a GPU collector gives its device (src/collectors/device-threshold.ts,
// `--gpu-min-live`): those predicted to trace at least the threshold, the prediction
// being what is in use times the share the last collections of that kind kept. The
// GPU marker is a stand-in that marks as serial does and counts its marks;
// test/gpu/gpu-min-live.test.ts runs the real one on lavapipe.
import { describe, expect, it } from 'vitest';
import { DEFAULT_GPU_MIN_LIVE, DeviceThreshold } from '../../src/collectors/device-threshold.js';
import { GpuFallbackMarker } from '../../src/collectors/gpu-fallback.js';
import { createCollector } from '../../src/gc/index.js';
import { HEAP_READER, type MarkRequest } from '../../src/gc/marker.js';
import { SerialMarker } from '../../src/gc/serial-marker.js';
import { createHeap, type HeapImpl } from '../../src/heap/heap.js';
import type { GcRecord } from '../../src/heap/telemetry.js';
import type { WorkerGpuMarker } from '../../src/gpu/index.js';
import { alloc, collect, RootArray } from '../gc/helpers.js';

/** A GPU marker that reads the heap as the CPU does (so the plan needs nothing of a
 *  mirror) and counts the marks it was given. */
function standIn(heap: HeapImpl, software: boolean) {
  const marks: string[] = [];
  const serial = new SerialMarker(heap);
  const gpu = {
    name: 'gpu-dfs',
    constraints: { ...HEAP_READER },
    adapter: { software },
    mark: (r: MarkRequest) => {
      marks.push(r.kind);
      return serial.mark(r);
    },
    prepare: () => Promise.resolve(),
    uploadAhead: () => Promise.resolve(),
    dispose: () => {},
  };
  return { gpu: gpu as unknown as WorkerGpuMarker, marks };
}

/** A heap collected by a GpuFallbackMarker around the stand-in, wired as collectors/memory.ts wires it. */
async function routedHeap(software: boolean, minLiveBytes?: number) {
  const records: GcRecord[] = [];
  let marker: GpuFallbackMarker | null = null;
  const heap = createHeap({ heapBytes: 1 << 20, logGc: (_line, r) => (marker!.observe(r), records.push(r)) });
  const roots = new RootArray();
  heap.setRoots(roots);
  const s = standIn(heap, software);
  marker = new GpuFallbackMarker(s.gpu, heap, () => {}, minLiveBytes);
  await marker.prepare();
  heap.setCollector(marker.around(createCollector('gpu-dfs', heap, { marker })));
  return { heap, roots, marker, records, marks: s.marks, node: heap.defineClass('Node', ['ref', 'int']) };
}

describe('DeviceThreshold', () => {
  it('predicts a first collection of each kind by what is in use, later ones by the share kept', () => {
    const heap = createHeap({ heapBytes: 1 << 20 });
    const t = new DeviceThreshold(heap, 4096);
    const node = heap.defineClass('Node', ['ref', 'int']);
    for (let i = 0; i < 1000; i++) heap.allocInstance(node);
    const young = heap.youngUsedWords() * 4;
    expect(young).toBeGreaterThan(4096);
    expect(t.route('young')).toEqual({ onDevice: true, predictedBytes: young });
    expect(t.route('full')).toEqual({ onDevice: true, predictedBytes: heap.usedBytes() });
    // A young collection that kept a tenth of what was in use: the next prediction is a tenth.
    t.route('young');
    t.observe({ kind: 'young', survivedBytes: young / 10, promotedBytes: 0, usedBefore: young, usedAfter: young / 10 } as GcRecord);
    const next = t.route('young');
    expect(next.predictedBytes).toBeCloseTo(young / 10, 6);
    expect(next.onDevice).toBe(young / 10 >= 4096);
    // A full collection that kept half.
    t.observe({ kind: 'full', survivedBytes: 0, promotedBytes: 0, usedBefore: 8000, usedAfter: 4000 } as GcRecord);
    expect(t.route('full').predictedBytes).toBeCloseTo(heap.usedBytes() / 2, 6);
  });

  it('gives the device a collection predicted at the threshold, and every one at 0', () => {
    const heap = createHeap({ heapBytes: 1 << 20 });
    const node = heap.defineClass('Node', ['ref', 'int']);
    for (let i = 0; i < 10; i++) heap.allocInstance(node);
    const young = heap.youngUsedWords() * 4;
    expect(new DeviceThreshold(heap, young).route('young').onDevice).toBe(true);
    expect(new DeviceThreshold(heap, young + 1).route('young').onDevice).toBe(false);
    const none = new DeviceThreshold(createHeap({ heapBytes: 1 << 20 }), 0);
    expect(none.route('young')).toEqual({ onDevice: true, predictedBytes: 0 });
  });
});

describe('GpuFallbackMarker with --gpu-min-live', () => {
  it('runs the collections predicted under the threshold on the CPU, named so in their records', async () => {
    const { heap, roots, marker, records, marks, node } = await routedHeap(false, 16 << 10);
    // 1: a first young collection of more than the threshold in use goes to the device; nothing survives.
    for (let i = 0; i < 2000; i++) await alloc(heap, node);
    expect(heap.youngUsedWords() * 4).toBeGreaterThan(16 << 10);
    await collect(heap, 'young');
    expect(marks).toEqual(['young']);
    expect(records[0]!.collector).toBe('gpu-dfs');
    // 2: the same again, predicted to keep nothing: the CPU's, a heap reader's collection.
    for (let i = 0; i < 2000; i++) await alloc(heap, node);
    await collect(heap, 'young');
    expect(marks).toEqual(['young']);
    expect(records[1]!.collector).toBe('gpu-dfs(cpu)');
    expect(records[1]!.underGpuMinLive).toEqual({ predictedBytes: 0, minLiveBytes: 16 << 10 });
    // 3: a young collection that keeps a list, still predicted from the last one's share: the CPU's.
    let head = 0;
    roots.push(0);
    for (let i = 0; i < 2000; i++) {
      const n = await alloc(heap, node);
      heap.writeRef(n, node.offsets[0]!, node.edgeIndex[0]!, roots.slots[0]!);
      roots.slots[0] = n;
      head = n;
    }
    expect(head).not.toBe(0);
    await collect(heap, 'young');
    expect(records[2]!.collector).toBe('gpu-dfs(cpu)');
    expect(records[2]!.survivedBytes + records[2]!.promotedBytes).toBeGreaterThan(16 << 10);
    // 4: with the share kept now 0.3 (0, 0, then 1 at weight 0.3), twice as much in use goes to the device.
    for (let i = 0; i < 2000; i++) await alloc(heap, node);
    await collect(heap, 'young');
    expect(marks).toEqual(['young', 'young']);
    expect(records[3]!.collector).toBe('gpu-dfs');
    expect(marker.cpuCollections).toBe(2);
    // Between collections the constraints are the GPU marker's again.
    expect(marker.constraints).not.toBe(HEAP_READER);
    marker.dispose();
  });

  it('gives a software adapter every collection by default, and a hardware one 2 MiB', async () => {
    const soft = await routedHeap(true);
    expect(soft.marker.threshold!.minBytes).toBe(0);
    for (let i = 0; i < 10; i++) await alloc(soft.heap, soft.node);
    await collect(soft.heap, 'young');
    await collect(soft.heap, 'full');
    expect(soft.marks).toEqual(['young', 'full']);
    expect(soft.marker.cpuCollections).toBe(0);
    soft.marker.dispose();
    const hard = await routedHeap(false);
    expect(hard.marker.threshold!.minBytes).toBe(DEFAULT_GPU_MIN_LIVE);
    expect(DEFAULT_GPU_MIN_LIVE).toBe(2 << 20);
    await collect(hard.heap, 'young');
    expect(hard.marks).toEqual([]);
    expect(hard.records[0]!.collector).toBe('gpu-dfs(cpu)');
    hard.marker.dispose();
  });
});
