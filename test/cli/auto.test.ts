// `--gc auto`: the marker that picks an engine per collection by its pause model
// (src/collectors/auto-marker.ts, pause-model.ts), its log line and --stats line,
// --pause-goal, and the programs' output under engines switching every collection.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AutoMarker, PARALLEL_MIN_THREADS } from '../../src/collectors/auto-marker.js';
import { formatStats } from '../../src/collectors/memory.js';
import { PauseModel, type Engine, type Features, type Observation } from '../../src/collectors/pause-model.js';
import { Alternating, runWithHooks } from '../collectors/alternating.js';
import { HEAP_READER, type MarkRequest, type Marker } from '../../src/gc/marker.js';
import { SerialMarker } from '../../src/gc/serial-marker.js';
import { PROBE_OBJECTS } from '../../src/gc/survival-probe.js';
import { RootArray } from '../gc/helpers.js';
import { createHeap } from '../../src/heap/heap.js';
import { emptyPhases, formatGcRecord, type GcRecord } from '../../src/heap/telemetry.js';
import { readExpectations, runCaptured, samplePrograms } from '../expectations.js';
import { minivm } from '../minivm.js';

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
  const calls = { probes: 0, made: [] as string[], marks: 0 };
  const serial = new SerialMarker(heap);
  const make = (engine: string): Marker => {
    calls.made.push(engine);
    return { name: engine, constraints: HEAP_READER, mark: (r) => (calls.marks++, serial.mark(r)), dispose() {} };
  };
  return { calls, make };
}

/** A record of a collection by `engine` with a pause of `pauseMs`, all in the mark. */
function record(kind: 'young' | 'full', pauseMs: number): GcRecord {
  return {
    number: 1, kind, cause: 'test', collector: 'auto', usedBefore: 4 << 20, usedAfter: 1 << 20, capacity: 256 << 20,
    pauseMs, phases: { ...emptyPhases(), mark: pauseMs }, marker: { mark: pauseMs },
    liveYoungObjects: 10, survivedBytes: 1 << 20, promotedBytes: 0,
  };
}

/** A model taught that `engine` costs `ms` for collections like `f` (and the others far more). */
function taught(threads: number, engine: Engine, f: Partial<Features> = {}): PauseModel {
  const m = new PauseModel(threads);
  const base: Features = { kind: 'full', rootWork: 10, markWords: 1 << 20, copyWords: 0, sweepWords: 1 << 20, uploadWords: {}, ...f };
  for (const e of ['serial', 'parallel', 'gpu-dfs', 'gpu-bfs'] as const) {
    const o: Observation = { ...base, engine: e, rootsMs: 0, markMs: e === engine ? 0.01 : 500, uploadMs: 0, copyMs: 0, sweepMs: 0, otherMs: 0 };
    // At two sizes, so that the fixed and the per-word costs are both learned.
    for (let i = 0; i < 3; i++) m.observe(o);
    for (let i = 0; i < 3; i++) m.observe({ ...o, markWords: 0, sweepWords: 0, copyWords: 0 });
  }
  return m;
}

describe('auto: the marker', () => {
  it('warms its choice up before the program without choosing, probing or learning', async () => {
    const { heap } = heapWith(1 << 20);
    const { calls, make } = fakeGpu(heap);
    const model = new PauseModel(8);
    const auto = new AutoMarker(heap, { threads: 8, model, probeGpu: async () => (calls.probes++, true), gpuMarker: make });
    const before = JSON.stringify(model.choose({ kind: 'young', rootWork: 10, markWords: 1000, copyWords: 1000, sweepWords: 0, uploadWords: {} }, ['serial', 'gpu-dfs']));
    auto.warmUp();
    expect(calls.probes).toBe(0);
    expect(calls.made).toEqual([]);
    expect(auto.chooseMs).toBe(0);
    expect(auto.counts).toEqual({ serial: 0, parallel: 0, 'gpu-dfs': 0, 'gpu-bfs': 0 });
    for (const e of ['serial', 'parallel', 'gpu-dfs', 'gpu-bfs'] as const) for (const k of ['young', 'full'] as const) expect(model.samples(e, k)).toBe(0);
    // The model predicts as it did: the dry choices taught it nothing.
    expect(JSON.stringify(model.choose({ kind: 'young', rootWork: 10, markWords: 1000, copyWords: 1000, sweepWords: 0, uploadWords: {} }, ['serial', 'gpu-dfs']))).toBe(before);
    auto.dispose();
  });

  it("sizes its first young collection's copy by a bounded trace from the roots where the guess would not choose serial", async () => {
    /** The features of each choice auto asked its model for before a first young
     *  collection of an eden of `garbage` dead nodes and `reached` rooted ones. */
    const firstChoice = async (reached: number, garbage: number, kind: 'young' | 'full' = 'young') => {
      const heap = createHeap({ heapBytes: 256 * 2 ** 20 });
      const roots = new RootArray();
      heap.setRoots(roots);
      const node = heap.defineClass('Node', ['ref', 'int']);
      let head = 0;
      for (let i = 0; i < reached; i++) {
        const n = heap.allocInstance(node);
        heap.writeRef(n, node.offsets[0]!, node.edgeIndex[0]!, head);
        head = n;
      }
      for (let i = 0; i < garbage; i++) heap.allocInstance(node);
      roots.push(head);
      const seen: Features[] = [];
      class Seeing extends PauseModel {
        override choose(...args: Parameters<PauseModel['choose']>) {
          seen.push(args[0]);
          return super.choose(...args);
        }
      }
      const auto = new AutoMarker(heap, { threads: 8, model: new Seeing(8) });
      await auto.begin(kind);
      const engine = auto.name;
      auto.dispose();
      return { seen, engine, nodeWords: heap.types.objectWords(heap.words, head), youngWords: heap.youngUsedWords() };
    };
    // A large eden, which the guess (half survives) gives to the threads: the probe
    // finds ten nodes, and serial takes them.
    const few = await firstChoice(10, 400_000);
    expect(few.seen.map((f) => f.copyWords)).toEqual([few.youngWords / 2, 10 * few.nodeWords]);
    expect(few.engine).toBe('auto(serial)');
    // Past the probe's budget the guess stands.
    const many = await firstChoice(PROBE_OBJECTS + 1, 400_000);
    expect(many.seen.map((f) => f.copyWords)).toEqual([many.youngWords / 2]);
    expect(many.engine).toBe('auto(parallel)');
    // A small eden goes to serial on the guess: no probe.
    const small = await firstChoice(10, 100);
    expect(small.seen.map((f) => f.copyWords)).toEqual([small.youngWords / 2]);
    expect(small.engine).toBe('auto(serial)');
    // The first full collection: the guess has half of the heap live; the probe
    // follows every object from the roots.
    const full = await firstChoice(10, 400_000, 'full');
    expect(full.seen.map((f) => f.markWords)).toEqual([full.seen[0]!.markWords, 10 * full.nodeWords]);
    expect(full.seen[0]!.markWords).toBeGreaterThan(100 * full.nodeWords);
    expect(full.engine).toBe('auto(serial)');
  });

  it('never probes the GPU for small collections; marks like the serial marker', async () => {
    const { heap, request } = heapWith(0);
    const { calls, make } = fakeGpu(heap);
    const auto = new AutoMarker(heap, { threads: 8, probeGpu: async () => (calls.probes++, true), gpuMarker: make });
    for (const kind of ['young', 'full'] as const) {
      await auto.begin(kind);
      expect(auto.name).toBe('auto(serial)');
      const r = await auto.mark(request(kind));
      const expected = new SerialMarker(heap).mark(request(kind));
      expect(r.bitmap.every((x, i) => x === expected.bitmap[i])).toBe(true);
      const rec = record(kind, 1);
      auto.observe(rec);
      expect(rec.collector).toBe('auto(serial)');
      expect(rec.auto?.engine).toBe('serial');
      expect(rec.auto?.predictedMs).toBeGreaterThan(0);
    }
    expect(auto.counts).toEqual({ serial: 2, parallel: 0, 'gpu-dfs': 0, 'gpu-bfs': 0 });
    expect(calls.probes).toBe(0);
    auto.dispose();
  });

  it('probes once, then uses the GPU engine the model finds fastest', async () => {
    const { heap, request } = heapWith(1 << 20);
    const { calls, make } = fakeGpu(heap);
    const auto = new AutoMarker(heap, {
      threads: 2, probeGpu: async () => (calls.probes++, true), gpuMarker: make, model: taught(2, 'gpu-bfs'),
    });
    for (let i = 0; i < 2; i++) {
      await auto.begin('full');
      await auto.mark(request('full'));
      auto.observe(record('full', 0.01));
    }
    expect(auto.lastEngine).toBe('gpu-bfs');
    expect(calls).toEqual({ probes: 1, made: ['gpu-bfs'], marks: 2 });
    auto.dispose();
  });

  it('runs only the GPU engines it is given (--gpu-opt settings one engine rejects)', async () => {
    const { heap, request } = heapWith(1 << 20);
    const { calls, make } = fakeGpu(heap);
    const auto = new AutoMarker(heap, {
      threads: 2, probeGpu: async () => (calls.probes++, true), gpuMarker: make, model: taught(2, 'gpu-bfs'), gpuEngines: ['gpu-dfs'],
    });
    for (let i = 0; i < 3; i++) {
      await auto.begin('full');
      await auto.mark(request('full'));
      auto.observe(record('full', 1));
    }
    expect(calls.made).not.toContain('gpu-bfs');
    expect(auto.counts['gpu-bfs']).toBe(0);
    auto.dispose();
  });

  it('a GPU engine whose marker cannot be prepared is dropped, and the collection runs on another', async () => {
    const { heap, request } = heapWith(1 << 20);
    const { calls, make } = fakeGpu(heap);
    const failing = (engine: 'gpu-dfs' | 'gpu-bfs'): Marker =>
      engine === 'gpu-bfs'
        ? { ...make(engine), prepare: async () => { throw new Error('adapter limit'); } } as Marker
        : make(engine);
    const auto = new AutoMarker(heap, { threads: 2, probeGpu: async () => true, gpuMarker: failing, model: taught(2, 'gpu-bfs') });
    for (let i = 0; i < 2; i++) {
      await auto.begin('full');
      expect(auto.name).not.toBe('auto(gpu-bfs)');
      await auto.mark(request('full'));
      auto.observe(record('full', 1));
    }
    expect(calls.made.filter((e) => e === 'gpu-bfs')).toHaveLength(1);
    expect(auto.counts['gpu-bfs']).toBe(0);
    auto.dispose();
  });

  it('a software (or no) adapter: the GPU engines are dropped after one probe', async () => {
    const { heap, request } = heapWith(1 << 20);
    const { calls, make } = fakeGpu(heap);
    const auto = new AutoMarker(heap, {
      threads: 2, probeGpu: async () => (calls.probes++, false), gpuMarker: make, model: taught(2, 'gpu-dfs'),
    });
    for (let i = 0; i < 3; i++) {
      await auto.begin('full');
      expect(auto.name).toBe('auto(serial)');
      await auto.mark(request('full'));
      auto.observe(record('full', 1));
    }
    expect(calls).toEqual({ probes: 1, made: [], marks: 0 });
    expect(auto.model.adapterKind).toBe('software');
    auto.dispose();
  });

  it('while parallel is chosen, the plan sees --gc parallel\'s marker (copying, sweeping, solo below the threshold); otherwise a heap reader', async () => {
    const { heap } = heapWith(0);
    // A solo threshold under the young words in use, so that the model chooses.
    expect(heap.youngUsedWords()).toBeGreaterThan(123);
    const auto = new AutoMarker(heap, { threads: PARALLEL_MIN_THREADS, soloWords: 123, model: taught(PARALLEL_MIN_THREADS, 'parallel', { kind: 'young' }) });
    await auto.begin('young');
    expect(auto.name).toBe('auto(parallel)');
    expect(auto.constraints).toEqual(auto.parallelEngine!.constraints);
    expect(auto.constraints.copiesYoung).toBe(true);
    expect(auto.constraints.sweepsTenured).toBe(true);
    expect(auto.copier).toBe(auto.parallelEngine!.copier);
    expect(auto.sweeper).toBe(auto.parallelEngine!.sweeper);
    expect(auto.parallelEngine!.gc.soloWords).toBe(123);
    auto.observe(record('young', 0.01));
    const serialOnly = new AutoMarker(heap, { threads: PARALLEL_MIN_THREADS - 1 });
    await serialOnly.begin('young');
    expect(serialOnly.constraints.copiesYoung).toBe(false);
    expect(serialOnly.constraints.sweepsTenured).toBeFalsy();
    expect(serialOnly.parallelEngine).toBeNull();
    auto.dispose();
    serialOnly.dispose();
  });

  it('takes serial under the solo threshold without asking the model, and lets the model choose above it', async () => {
    const { heap } = heapWith(0);
    const young = heap.youngUsedWords();
    const parallelFastest = () => taught(PARALLEL_MIN_THREADS, 'parallel', { kind: 'young' });
    // Under the threshold: serial, even where the model finds parallel fastest; its prediction is serial's.
    const below = new AutoMarker(heap, { threads: PARALLEL_MIN_THREADS, soloWords: young + 1, model: parallelFastest() });
    await below.begin('young');
    expect(below.name).toBe('auto(serial)');
    const r = record('young', 0.01);
    below.observe(r);
    expect(r.auto).toMatchObject({ engine: 'serial' });
    // Serial's line from the taught model (500 ms a mark, parallel's 0.01): its prediction, not parallel's.
    expect(r.auto!.predictedMs).toBeGreaterThan(100);
    // At the threshold and above, the model's choice.
    const above = new AutoMarker(heap, { threads: PARALLEL_MIN_THREADS, soloWords: young, model: parallelFastest() });
    await above.begin('young');
    expect(above.name).toBe('auto(parallel)');
    above.observe(record('young', 0.01));
    const serialFastest = new AutoMarker(heap, { threads: PARALLEL_MIN_THREADS, soloWords: 1, model: taught(PARALLEL_MIN_THREADS, 'serial', { kind: 'young' }) });
    await serialFastest.begin('young');
    expect(serialFastest.name).toBe('auto(serial)');
    serialFastest.observe(record('young', 0.01));
    below.dispose();
    above.dispose();
    serialFastest.dispose();
  });

  it('the warm-up takes a first choice\'s probe path past the floor, where the model would not take serial', async () => {
    const { heap } = heapWith(0);
    const auto = new AutoMarker(heap, { threads: PARALLEL_MIN_THREADS, soloWords: 1 << 30, model: taught(PARALLEL_MIN_THREADS, 'parallel', { kind: 'young' }) });
    const probes: string[] = [];
    const probe = auto.survivalProbe;
    const young = probe.youngLiveWords.bind(probe);
    const full = probe.heapLiveWords.bind(probe);
    probe.youngLiveWords = (h) => (probes.push('young'), young(h));
    probe.heapLiveWords = (h) => (probes.push('full'), full(h));
    auto.warmUp();
    // The model was taught that parallel is fastest for young collections at every size,
    // so every young dry choice that asks it probes: half of the empty heap's 128 (the
    // others take the floor), and all 128 of the made-up sizes past the floor.
    expect(probes.filter((k) => k === 'young').length).toBe(64 + 128);
    expect(auto.model.samples('parallel', 'young')).toBe(6);
    auto.dispose();
  });

  it('the warm-up runs the choice\'s code on a scratch model and leaves the run\'s model untouched', async () => {
    const { heap } = heapWith(0);
    const auto = new AutoMarker(heap, { threads: PARALLEL_MIN_THREADS });
    auto.warmUp();
    for (const e of ['serial', 'parallel', 'gpu-dfs', 'gpu-bfs'] as const) {
      expect(auto.model.samples(e, 'young') + auto.model.samples(e, 'full')).toBe(0);
    }
    expect(auto.model.error().count).toBe(0);
    auto.dispose();
  });

  it('the log line names the engine with its predicted and actual pause', () => {
    const r = { ...record('young', 9.43), collector: 'auto(gpu-dfs)', auto: { engine: 'gpu-dfs', predictedMs: 8.123, samples: 3 } };
    expect(formatGcRecord(r)).toMatch(/^\[gc 1\] young \(test\) auto\(gpu-dfs\) predicted 8\.1ms actual 9\.4ms 4M->1M\(256M\) 9\.43ms /);
  });
});

describe('auto: runs', () => {
  it('full collections under auto(parallel) are swept by the parallel engine\'s threads', async () => {
    let marker: Marker | undefined;
    const model = new Alternating(PARALLEL_MIN_THREADS);
    const run = await runWithHooks('programs/cycles.mini', { gc: 'auto', threads: PARALLEL_MIN_THREADS, gcSoloBytes: 0, heapBytes: 8 * 2 ** 20, verifyGc: true }, {
      autoModel: model,
      wrapMarker: (engine) => (marker = engine),
    });
    expect(run.exitCode).toBe(0);
    const auto = marker as AutoMarker;
    expect(auto).toBeInstanceOf(AutoMarker);
    const fullParallel = run.stats!.collections.filter((r) => r.kind === 'full' && r.collector === 'auto(parallel)').length;
    expect(fullParallel).toBeGreaterThan(0);
    expect(auto.parallelEngine!.sweeper.sweeps).toBe(fullParallel);
  });

  it('with one GC thread it runs serial; the log line shows the prediction, --stats the error', async () => {
    const run = await runCaptured('programs/binary_trees.mini', { gc: 'auto', heapBytes: 8 * 2 ** 20, logGc: true, verifyGc: true, stats: true, threads: 1 });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('long lived tree of depth 10 check: 2047');
    expect(run.stderr).toMatch(/^\[\d+\.\d{3}s\]\[gc 1\] young \(eden full\) auto\(serial\) predicted \d+\.\dms actual \d+\.\dms \d/m);
    expect(formatStats(run.stats!)).toMatch(/^auto: serial \d+; prediction error median \d+\.\d%, worst \d+\.\d% over \d+ collections(; with 2\+ samples median \d+\.\d% over \d+)?; choosing \d+\.\d\d ms in all$/m);
    expect(run.stats?.auto?.choices.serial).toBeGreaterThan(0);
  });

  it('every sample program prints what it should while the engine changes every collection', async () => {
    const files = samplePrograms().filter((f) => readExpectations(readFileSync(f, 'utf8')).compileErrors.length === 0);
    expect(files.length).toBeGreaterThanOrEqual(15);
    for (const [layout, gcStress] of [['sable', 251], ['refgraph', 997]] as const) {
      for (const file of files) {
        const exp = readExpectations(readFileSync(file, 'utf8'));
        const model = new Alternating(PARALLEL_MIN_THREADS);
        const run = await runWithHooks(file, {
          // No solo threshold: under it auto would take serial without asking the model.
          gc: 'auto', layout, heapBytes: 8 * 2 ** 20, gcStress, verifyGc: true, threads: PARALLEL_MIN_THREADS, gcSoloBytes: 0, stats: true,
        }, { autoModel: model });
        const got = run.stdout.split('\n');
        if (got[got.length - 1] === '') got.pop();
        expect(got, `${file} [${layout}]: ${run.stderr}`).toEqual(exp.stdout);
        if (exp.runtimeError === undefined) expect(run.exitCode, `${file} [${layout}]: ${run.stderr}`).toBe(0);
        else expect(run.exitCode).toBe(70);
        const choices = run.stats?.auto?.choices;
        if (choices && choices.serial + choices.parallel > 2) expect(choices.parallel).toBeGreaterThan(0);
      }
    }
  }, 600_000);
});

describe('auto: compare', () => {
  it('shows auto beside the fixed collectors with its choices counted', () => {
    const r = minivm(['compare', 'programs/binary_trees.mini', '--gc', 'serial,auto', '--layout', 'sable', '--heap', '8m', '--threads', '1', '--in-process']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^serial +sable /m);
    expect(r.stdout).toMatch(/^auto +sable /m);
    expect(r.stdout).toMatch(/^auto\/sable: serial \d+; median prediction error \d+\.\d%$/m);
    const json = JSON.parse(
      minivm(['compare', 'programs/binary_trees.mini', '--gc', 'serial,auto', '--layout', 'sable', '--heap', '8m', '--threads', '1', '--in-process', '--json']).stdout,
    ) as { runs: Array<{ collector: string; youngCollections: number; auto?: { choices: Record<string, number>; medianError: number } }> };
    const auto = json.runs.find((run) => run.collector === 'auto')!;
    expect(auto.auto!.choices['serial']).toBe(auto.youngCollections);
    expect(json.runs.find((run) => run.collector === 'serial')!.auto).toBeUndefined();
  });
});

describe('auto: --pause-goal', () => {
  it('takes a positive number of milliseconds; anything else is a usage error (64) with no stack trace', () => {
    for (const bad of ['abc', '0', '-1', '1e3', '5ms', '']) {
      const r = minivm(['run', 'programs/arrays.mini', '--gc', 'auto', '--pause-goal', bad]);
      expect(r.status, bad).toBe(64);
      expect(r.stderr).toMatch(/^minivm: --pause-goal needs a positive number of milliseconds/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    const ok = minivm(['run', 'programs/binary_trees.mini', '--gc', 'auto', '--heap', '8m', '--threads', '1', '--pause-goal', '2.5', '--log-gc']);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stderr).toMatch(/auto\(serial\) predicted/);
  });
});
