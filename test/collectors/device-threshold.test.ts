// Which collections a GPU collector gives its device (src/collectors/device-threshold.ts,
// `--gpu-min-live`): those predicted to trace at least the threshold, the prediction
// being what is in use times the share the last collections of that kind kept. The
// GPU marker is a stand-in that marks as serial does and counts its marks;
// test/gpu/gpu-min-live.test.ts runs the real one on lavapipe.
import { describe, expect, it, vi } from 'vitest';
import { CHAIN_SHARE, DEFAULT_GPU_MIN_LIVE, DeviceThreshold, FULL_FACTOR } from '../../src/collectors/device-threshold.js';
import { GpuFallbackMarker } from '../../src/collectors/gpu-fallback.js';
import { createCollector } from '../../src/gc/index.js';
import { HEAP_READER, type MarkRequest } from '../../src/gc/marker.js';
import { SerialMarker } from '../../src/gc/serial-marker.js';
import { createHeap, type HeapImpl } from '../../src/heap/heap.js';
import { formatGcRecord, type GcRecord } from '../../src/heap/telemetry.js';
import type { WorkerGpuMarker } from '../../src/gpu/index.js';
import { alloc, collect, RootArray } from '../gc/helpers.js';

/** A GPU marker that reads the heap as the CPU does (so the plan needs nothing of a
 *  mirror) and counts the marks it was given; each mark reports `cpuShare.value`
 *  of its time as its CPU finish. */
function standIn(heap: HeapImpl, software: boolean, cpuShare = { value: 0 }) {
  const marks: string[] = [];
  const serial = new SerialMarker(heap);
  const gpu = {
    name: 'gpu-dfs',
    constraints: { ...HEAP_READER },
    adapter: { software },
    mark: async (r: MarkRequest) => {
      marks.push(r.kind);
      const m = await serial.mark(r);
      const mark = Math.max(m.times.mark, 1);
      return { ...m, times: { ...m.times, mark, cpuFallback: cpuShare.value * mark } };
    },
    // The kernels before the program: the device takes collections from the first.
    options: { deviceStart: 'before' },
    open: () => Promise.resolve(),
    prepare: () => Promise.resolve(),
    uploadAhead: () => Promise.resolve(),
    dispose: () => {},
  };
  return { gpu: gpu as unknown as WorkerGpuMarker, marks };
}

/** A heap collected by a GpuFallbackMarker around the stand-in, wired as collectors/memory.ts wires it. */
async function routedHeap(software: boolean, minLiveBytes?: number, cpuShare = { value: 0 }) {
  const records: GcRecord[] = [];
  let marker: GpuFallbackMarker | null = null;
  const heap = createHeap({ heapBytes: 1 << 20, logGc: (_line, r) => (marker!.observe(r), records.push(r)) });
  const roots = new RootArray();
  heap.setRoots(roots);
  const s = standIn(heap, software, cpuShare);
  marker = new GpuFallbackMarker(s.gpu, heap, () => {}, minLiveBytes);
  await marker.prepare();
  heap.setCollector(marker.around(createCollector('gpu-dfs', heap, { marker })));
  return { heap, roots, marker, records, marks: s.marks, node: heap.defineClass('Node', ['ref', 'int']) };
}

/** A rooted list of `n` nodes, allocated without collecting. */
function rootedList(heap: HeapImpl, roots: RootArray, node: ReturnType<HeapImpl['defineClass']>, n: number): void {
  const slot = roots.push(0);
  for (let i = 0; i < n; i++) {
    const a = heap.allocInstance(node);
    heap.writeRef(a, node.offsets[0]!, node.edgeIndex[0]!, roots.slots[slot]!);
    roots.slots[slot] = a;
  }
}

function probedHeap() {
  const heap = createHeap({ heapBytes: 1 << 20 });
  const roots = new RootArray(16);
  heap.setRoots(roots);
  return { heap, roots, node: heap.defineClass('Node', ['ref', 'int']) };
}

describe('DeviceThreshold', () => {
  it('counts a first collection of each kind with the survival probe when few objects live', () => {
    const { heap, roots, node } = probedHeap();
    for (let i = 0; i < 1000; i++) heap.allocInstance(node);
    rootedList(heap, roots, node, 10);
    const young = heap.youngUsedWords() * 4;
    expect(young).toBeGreaterThan(4096);
    const t = new DeviceThreshold(heap, 4096);
    const nodeBytes = young / 1010;
    expect(t.route('young')).toMatchObject({ onDevice: false, predictedBytes: 10 * nodeBytes, minBytes: 4096 });
    expect(t.route('full')).toMatchObject({ onDevice: false, predictedBytes: 10 * nodeBytes, minBytes: 4 * 4096 });
  });

  it('traces a first young collection up to the threshold however many objects live, and guesses half for a full one', () => {
    const { heap, roots, node } = probedHeap();
    // 3,000 nodes, more than the probe counts for auto (PROBE_OBJECTS) or for a full
    // collection here, and garbage as large beside them.
    rootedList(heap, roots, node, 3000);
    const listBytes = heap.youngUsedWords() * 4;
    const nodeBytes = listBytes / 3000;
    for (let i = 0; i < 3000; i++) heap.allocInstance(node);
    // A threshold above the list's bytes: the whole list is traced and counted, for the CPU.
    const over = new DeviceThreshold(heap, listBytes + 4);
    const cpu = over.route('young');
    expect(cpu).toMatchObject({ onDevice: false, predictedBytes: listBytes, minBytes: listBytes + 4 });
    expect(cpu.probeMs).toBeGreaterThanOrEqual(0);
    // One below it: the trace stops once past the threshold, within a node of it, for the device.
    const at = new DeviceThreshold(heap, listBytes - nodeBytes).route('young');
    expect(at.onDevice).toBe(true);
    expect(at.predictedBytes).toBeGreaterThan(listBytes - nodeBytes);
    expect(at.predictedBytes).toBeLessThanOrEqual(listBytes);
  });

  it('guesses half of what is in use when the probe gives up on a full collection, then learns the shares kept', () => {
    const { heap, roots, node } = probedHeap();
    rootedList(heap, roots, node, 3000);
    const young = heap.youngUsedWords() * 4;
    const t = new DeviceThreshold(heap, 4096);
    const first = t.route('young');
    expect(first.onDevice).toBe(true);
    expect(first.predictedBytes).toBeGreaterThan(4096);
    expect(t.route('full')).toMatchObject({ onDevice: true, predictedBytes: heap.usedBytes() / 2, minBytes: 4 * 4096 });
    // A young collection that kept a tenth of what was in use: the next prediction is a tenth.
    t.route('young');
    t.observe({ kind: 'young', survivedBytes: young / 10, promotedBytes: 0, usedBefore: young, usedAfter: young / 10 } as GcRecord, false);
    expect(t.route('young').predictedBytes).toBeCloseTo(young / 10, 6);
    // A full collection that kept a quarter.
    t.observe({ kind: 'full', survivedBytes: 0, promotedBytes: 0, usedBefore: 8000, usedAfter: 2000 } as GcRecord, false);
    expect(t.route('full').predictedBytes).toBeCloseTo(heap.usedBytes() / 4, 6);
  });

  it('does not probe under the threshold, and gives the device a prediction at it and every one at 0', () => {
    const { heap, roots, node } = probedHeap();
    rootedList(heap, roots, node, 100);
    const young = heap.youngUsedWords() * 4;
    // Less in use than the threshold: that bound is the prediction, and no probe ran.
    const under = new DeviceThreshold(heap, young + 1);
    expect(under.route('young')).toEqual({ onDevice: false, predictedBytes: young, minBytes: young + 1 });
    expect(under.probe.lastSlots).toBe(0);
    // Everything reachable: the probe counts it all, at the threshold.
    expect(new DeviceThreshold(heap, young).route('young')).toMatchObject({ onDevice: true, predictedBytes: young, minBytes: young });
    // A full collection marks where a young one copies: it needs FULL_FACTOR times the threshold.
    expect(FULL_FACTOR).toBe(4);
    const used = heap.usedBytes();
    expect(new DeviceThreshold(heap, used / 4).route('full')).toMatchObject({ onDevice: true, predictedBytes: used, minBytes: used });
    expect(new DeviceThreshold(heap, used / 4 + 1).route('full')).toMatchObject({ onDevice: false, predictedBytes: used, minBytes: used + 4 });
    const every = new DeviceThreshold(heap, 0);
    expect(every.route('young').onDevice).toBe(true);
    expect(every.probe.lastSlots).toBe(0);
  });
});

describe('GpuFallbackMarker with --gpu-min-live', () => {
  it('runs the collections predicted under the threshold on the CPU, named so in their records', async () => {
    const { heap, roots, marker, records, marks, node } = await routedHeap(false, 32 << 10);
    // 1: a first young collection of a list larger than the threshold: the probe's
    // trace passes it, so the device's. All of it survives.
    rootedList(heap, roots, node, 3000);
    await collect(heap, 'young');
    expect(marks).toEqual(['young']);
    expect(records[0]!.collector).toBe('gpu-dfs');
    // The probe that routed it is part of its pause, and of its log line.
    expect(records[0]!.probeMs).toBeGreaterThanOrEqual(0);
    const p = records[0]!.phases;
    expect(records[0]!.pauseMs).toBeGreaterThanOrEqual(records[0]!.probeMs! + p.roots + p.mark + p.copy);
    expect(formatGcRecord(records[0]!)).toMatch(/ probe=\d+\.\d\dms /);
    // 2: the list dropped, a little garbage: survivors and eden in use, all predicted to survive: the device's.
    roots.count = 0;
    for (let i = 0; i < 1000; i++) heap.allocInstance(node);
    await collect(heap, 'young');
    expect(marks).toEqual(['young', 'young']);
    // 3: less garbage than the threshold in use: the CPU's, a heap reader's collection.
    for (let i = 0; i < 500; i++) heap.allocInstance(node);
    await collect(heap, 'young');
    expect(marks).toEqual(['young', 'young']);
    expect(records[2]!.collector).toBe('gpu-dfs(cpu)');
    expect(records[2]!.underGpuMinLive!.minLiveBytes).toBe(32 << 10);
    expect(records[2]!.underGpuMinLive!.predictedBytes).toBeLessThan(32 << 10);
    // 4: the share kept is now 0.49 (1, then 0 twice at weight 0.3): a list of 3000 goes to the device again.
    rootedList(heap, roots, node, 3000);
    await collect(heap, 'young');
    expect(marks).toEqual(['young', 'young', 'young']);
    expect(records[3]!.collector).toBe('gpu-dfs');
    expect(marker.cpuCollections).toBe(1);
    // Between collections the constraints are the GPU marker's again.
    expect(marker.constraints).not.toBe(HEAP_READER);
    marker.dispose();
  });

  it('runs a first young collection that keeps many objects but few bytes on the CPU, with the mark that sized it', async () => {
    const { heap, roots, records, marks, node, marker } = await routedHeap(false, 96 << 10);
    // 3,000 nodes (more than the survival probe counts) in 84,000 bytes, under the
    // threshold, and garbage enough that more than the threshold is in use.
    rootedList(heap, roots, node, 3000);
    const listBytes = heap.youngUsedWords() * 4;
    expect(listBytes).toBeLessThan(96 << 10);
    for (let i = 0; i < 2000; i++) heap.allocInstance(node);
    const serialMarks = vi.spyOn(SerialMarker.prototype, 'mark');
    try {
      await collect(heap, 'young');
      // The CPU's, predicted exactly, and marked once: by the sizing, not again.
      expect(marks).toEqual([]);
      expect(records[0]!.collector).toBe('gpu-dfs(cpu)');
      expect(records[0]!.underGpuMinLive!.predictedBytes).toBe(listBytes);
      expect(records[0]!.probeMs).toBeGreaterThanOrEqual(0);
      expect(serialMarks).not.toHaveBeenCalled();
      expect(records[0]!.liveYoungObjects).toBe(3000);
      // The list survived whole (into the survivor space and, past its size, tenured).
      let n = 0;
      for (let a = roots.get(0); a !== 0; a = heap.words[a + node.offsets[0]!]!) n++;
      expect(n).toBe(3000);
      // The next young collection knows the share kept: no sizing, serial's own mark.
      for (let i = 0; i < 2000; i++) heap.allocInstance(node);
      await collect(heap, 'young');
      expect(records[1]!.probeMs).toBeUndefined();
      expect(serialMarks).toHaveBeenCalledTimes(1);
    } finally {
      serialMarks.mockRestore();
      marker.dispose();
    }
  });

  it("keeps a full collection on the CPU while the device's last mark spent most of its time finishing on the CPU", async () => {
    const share = { value: 0.9 };
    const { heap, roots, marker, records, marks, node } = await routedHeap(false, 1024, share);
    rootedList(heap, roots, node, 3000);
    // A young mark on the device that its CPU finish took 90% of: a chain.
    await collect(heap, 'young');
    expect(marks).toEqual(['young']);
    expect(CHAIN_SHARE).toBe(0.5);
    // The full collection, over the threshold, stays on the CPU, named so.
    await collect(heap, 'full');
    expect(marks).toEqual(['young']);
    expect(records[1]!.collector).toBe('gpu-dfs(cpu)');
    expect(records[1]!.chainOnCpu!.cpuShare).toBeCloseTo(0.9, 10);
    expect(records[1]!.underGpuMinLive).toBeUndefined();
    expect(formatGcRecord(records[1]!)).toMatch(/ on-cpu \(a chain: the device's last mark spent 90% finishing on the CPU\)/);
    // A young collection still goes to the device, and measures again: no chain now.
    share.value = 0.2;
    await collect(heap, 'young');
    expect(marks).toEqual(['young', 'young']);
    await collect(heap, 'full');
    expect(marks).toEqual(['young', 'young', 'full']);
    expect(records[3]!.collector).toBe('gpu-dfs');
    // A full mark on the device teaches it too: at 0.6 the next full stays on the CPU.
    share.value = 0.6;
    await collect(heap, 'full');
    await collect(heap, 'full');
    expect(marks).toEqual(['young', 'young', 'full', 'full']);
    expect(marker.cpuCollections).toBe(2);
    marker.dispose();
    // With no threshold (a software adapter's default) a chain goes to the device too.
    const soft = await routedHeap(true, undefined, { value: 0.9 });
    rootedList(soft.heap, soft.roots, soft.node, 100);
    await collect(soft.heap, 'young');
    await collect(soft.heap, 'full');
    expect(soft.marks).toEqual(['young', 'full']);
    soft.marker.dispose();
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
