// `--gc auto` picks the engine per collection by the rule documented in
// src/cli/auto-marker.ts and docs/cli.md, and says which one ran in the log line.
import { describe, expect, it } from 'vitest';
import {
  AutoMarker,
  chooseEngine,
  GPU_MIN_WORK,
  markWork,
  PARALLEL_MIN_THREADS,
  PARALLEL_MIN_WORK,
} from '../../src/collectors/auto-marker.js';
import { HEAP_READER, type MarkRequest, type Marker } from '../../src/gc/marker.js';
import { SerialMarker } from '../../src/gc/serial-marker.js';
import { createHeap } from '../../src/heap/heap.js';
import { runCaptured } from '../expectations.js';

describe('auto: the rule', () => {
  it('serial for small work, whatever the machine', () => {
    for (const hardwareGpu of [false, true]) {
      expect(chooseEngine({ work: 1000, threads: 16, hardwareGpu })).toBe('serial');
      expect(chooseEngine({ work: PARALLEL_MIN_WORK - 1, threads: 16, hardwareGpu })).toBe('serial');
    }
  });

  it('parallel for large work with enough threads, serial with fewer', () => {
    expect(chooseEngine({ work: PARALLEL_MIN_WORK, threads: PARALLEL_MIN_THREADS, hardwareGpu: false })).toBe('parallel');
    expect(chooseEngine({ work: GPU_MIN_WORK * 4, threads: PARALLEL_MIN_THREADS, hardwareGpu: false })).toBe('parallel');
    expect(chooseEngine({ work: GPU_MIN_WORK * 4, threads: PARALLEL_MIN_THREADS - 1, hardwareGpu: false })).toBe('serial');
  });

  it('the GPU only with a hardware adapter and a large heap', () => {
    expect(chooseEngine({ work: GPU_MIN_WORK, threads: 2, hardwareGpu: true })).toBe('gpu-dfs');
    expect(chooseEngine({ work: GPU_MIN_WORK - 1, threads: 8, hardwareGpu: true })).toBe('parallel');
    expect(chooseEngine({ work: GPU_MIN_WORK, threads: 8, hardwareGpu: false })).toBe('parallel');
  });
});

describe('auto: the marker', () => {
  /** A heap with a rooted list in eden and `tenuredWords` of int arrays in tenured. */
  function heapWith(tenuredWords: number) {
    const heap = createHeap({ heapBytes: 256 * 2 ** 20 });
    const node = heap.defineClass('Node', ['ref', 'int']);
    const ints = heap.defineArray('int[]', 'int');
    let head = 0;
    for (let i = 0; i < 100; i++) {
      const n = heap.allocInstance(node);
      heap.writeRef(n, node.offsets[0]!, node.edgeIndex[0]!, head);
      head = n;
    }
    const roots = [head];
    for (let left = tenuredWords; left > 0; left -= 1 << 22) roots.push(heap.allocArray(ints, Math.min(left, 1 << 22)));
    const request = (kind: 'young' | 'full'): MarkRequest => ({
      roots: Int32Array.from(roots),
      kind,
      youngStart: heap.youngStart,
      youngEnd: heap.youngEnd,
    });
    return { heap, request };
  }

  function fakeGpu(heap: ReturnType<typeof createHeap>) {
    const calls = { probes: 0, marks: 0 };
    const serial = new SerialMarker(heap);
    const gpu: Marker = { name: 'fake-gpu', constraints: HEAP_READER, mark: (r) => (calls.marks++, serial.mark(r)), dispose() {} };
    return { calls, gpu };
  }

  it('measures work as roots plus occupied words', () => {
    const { heap, request } = heapWith(1 << 20);
    expect(markWork(heap, request('young'))).toBe(2 + heap.edenTop - heap.edenStart);
    expect(markWork(heap, request('full'))).toBe(2 + heap.usedBytes() / 4);
  });

  it('never probes the GPU for small collections; marks like the serial marker', async () => {
    const { heap, request } = heapWith(0);
    const { calls, gpu } = fakeGpu(heap);
    const auto = new AutoMarker(heap, { threads: 8, probeGpu: async () => (calls.probes++, true), gpuMarker: () => gpu });
    for (const kind of ['young', 'full'] as const) {
      const r = await auto.mark(request(kind));
      expect(auto.lastEngine).toBe('serial');
      expect(auto.name).toBe('auto(serial)');
      const expected = new SerialMarker(heap).mark(request(kind));
      expect(r.bitmap.every((x, i) => x === expected.bitmap[i])).toBe(true);
    }
    expect(calls.probes).toBe(0);
    auto.dispose();
  });

  it('uses a hardware GPU for a large heap, probing once', async () => {
    const { heap, request } = heapWith(GPU_MIN_WORK);
    const { calls, gpu } = fakeGpu(heap);
    const auto = new AutoMarker(heap, { threads: 2, probeGpu: async () => (calls.probes++, true), gpuMarker: () => gpu });
    await auto.mark(request('young')); // young: eden is small, so serial
    expect(auto.lastEngine).toBe('serial');
    await auto.mark(request('full'));
    await auto.mark(request('full'));
    expect(auto.lastEngine).toBe('gpu-dfs');
    expect(calls).toEqual({ probes: 1, marks: 2 });
    expect(auto.counts).toEqual({ serial: 1, parallel: 0, 'gpu-dfs': 2 });
    auto.dispose();
  });

  it('does not use a software adapter: parallel with enough threads, else serial', async () => {
    const { heap, request } = heapWith(GPU_MIN_WORK);
    for (const [threads, engine] of [[PARALLEL_MIN_THREADS, 'parallel'], [2, 'serial']] as const) {
      const { calls, gpu } = fakeGpu(heap);
      const auto = new AutoMarker(heap, { threads, probeGpu: async () => (calls.probes++, false), gpuMarker: () => gpu });
      const r = await auto.mark(request('full'));
      await auto.mark(request('full'));
      expect(auto.lastEngine).toBe(engine);
      expect(calls).toEqual({ probes: 1, marks: 0 });
      const expected = new SerialMarker(heap).mark(request('full'));
      expect(r.bitmap.every((x, i) => x === expected.bitmap[i])).toBe(true);
      auto.dispose();
    }
  });
});

describe('auto: runs', () => {
  it('small collections run serial, and the log line says so', async () => {
    const run = await runCaptured('programs/binary_trees.mini', { gc: 'auto', heapBytes: 8 * 2 ** 20, logGc: true, verifyGc: true });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('long lived tree of depth 10 check: 2047');
    expect(run.stderr).toMatch(/^\[gc 1\] young \(eden full\) auto\(serial\) /m);
    expect(run.stderr).not.toMatch(/auto\((parallel|gpu-dfs)\)/);
  });

  it('large collections with 4 threads run parallel', async () => {
    const run = await runCaptured('bench/programs/parallel_lists_256.mini', {
      gc: 'auto', heapBytes: 128 * 2 ** 20, threads: 4, logGc: true, verifyGc: true,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/\(minorGc\(\) call\) auto\(parallel\) /);
    expect(run.stderr).toMatch(/\(gc\(\) call\) auto\(parallel\) /);
  });
});
