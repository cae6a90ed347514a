// `minivm heapshape` and gc/heap-shape.ts: the BFS widths and out-degree histogram on
// hand-built heaps of both layouts, then on the sample programs: linked_list.mini has
// a long narrow tail, parallel_lists.mini and complete_graph.mini have wide levels,
// and both layouts see the same shapes.
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { parseArgs } from '../../src/cli/args.js';
import { runSource } from '../../src/cli/run.js';
import { SerialMarker } from '../../src/gc/serial-marker.js';
import { formatHeapshape, gpuSizeThreshold, heapshapeCommand, runHeapshape, widthProfile, type HeapshapeResult } from '../../src/cli/heapshape.js';
import { analyzeHeapShape, NARROW_THRESHOLD, shapeVerdict, type GpuSizeThreshold, type HeapShape } from '../../src/gc/heap-shape.js';
import { defaultPriors } from '../../src/collectors/pause-model.js';
import { refgraphLayout, TypeTable } from '../../src/heap/layout.js';
import { HEADER_TAG, KIND_INSTANCE, KIND_REF_ARRAY } from '../../src/heap/object-model.js';

async function heapshape(argv: string[]): Promise<{ code: number; stdout: string; stderr: string; result?: HeapshapeResult }> {
  const cmd = parseArgs(['heapshape', ...argv]);
  let stdout = '';
  let stderr = '';
  const io = { stdout: (t: string) => (stdout += t), stderr: (t: string) => (stderr += t) };
  const source = readFileSync(cmd.file, 'utf8');
  const { exitCode, result } = await runHeapshape(cmd, source, io);
  return { code: exitCode, stdout, stderr, ...(result ? { result } : {}) };
}

describe('analyzeHeapShape', () => {
  it('walks a sable heap level by level, counting each object once', () => {
    const w = new Int32Array(64);
    // A(4) -> B(12), C(20); B -> D(28); C -> D; D -> null, A (a cycle back to the root).
    const obj = (a: number, refs: number[]): void => {
      w[a] = HEADER_TAG;
      w[a + 1] = 1;
      w[a + 2] = refs.length;
      refs.forEach((r, i) => (w[a + 4 + i] = r));
    };
    obj(4, [12, 20]);
    obj(12, [28]);
    obj(20, [28]);
    obj(28, [0, 4]);
    const before = w.slice();
    const types = new TypeTable();
    // Sable: the header, then the references (a+2 counts them).
    const s = analyzeHeapShape({ words: w, types, contiguousRefs: true, objectWords: (a) => 4 + w[a + 2]! }, [4, 0, 4]);
    expect(s.widths).toEqual([1, 2, 1]);
    expect(s.objects).toBe(4);
    expect(s.edges).toBe(5); // null references do not count
    expect(s.words).toBe(6 + 5 + 5 + 6);
    expect(s.outDegree).toEqual([0, 3, 1, 0, 0, 0, 0, 0, 0]);
    expect(s.maxWidth).toBe(2);
    expect(s.maxWidthDepth).toBe(1);
    expect(s.tailLevels).toBe(3); // every level is narrower than 20
    expect(w).toEqual(before); // pure: the heap is untouched
  });

  it('finds refgraph references through the type table, not a+2', () => {
    const types = new TypeTable();
    const node = types.add('Node', KIND_INSTANCE, refgraphLayout.placeFields(['int', 'ref', 'ref']));
    const arr = types.add('Node[]', KIND_REF_ARRAY);
    const w = new Int32Array(200);
    const inst = (a: number, left: number, right: number): void => {
      w[a] = HEADER_TAG;
      w[a + 1] = node;
      w[a + 2] = 12345; // a vertex id: must not be read as a reference count
      w[a + 4] = 7;
      w[a + 5] = left;
      w[a + 6] = right;
    };
    // An array of 70 slots (65+ bin) holding the same 3 leaves, plus a small tree.
    w[8] = HEADER_TAG; w[9] = arr; w[10] = 0; w[11] = 70;
    for (let i = 0; i < 70; i++) w[12 + i] = [100, 110, 120][i % 3]!;
    inst(100, 130, 0);
    inst(110, 0, 0);
    inst(120, 0, 0);
    inst(130, 0, 0);
    const s = analyzeHeapShape({ words: w, types, contiguousRefs: false, objectWords: (a) => types.objectWords(w, a) }, [8]);
    expect(s.widths).toEqual([1, 3, 1]);
    expect(s.edges).toBe(71);
    expect(s.words).toBe(4 + 70 + 4 * types.objectWords(w, 100));
    expect(s.outDegree[0]).toBe(3);
    expect(s.outDegree[1]).toBe(1);
    expect(s.outDegree[8]).toBe(1);
    expect(s.maxOutDegree).toBe(70);
  });

  const shape = (widths: number[], wordsPerObject = 8): HeapShape => {
    let run = 0;
    let longest = 0;
    for (const w of widths) { run = w < NARROW_THRESHOLD ? run + 1 : 0; longest = Math.max(longest, run); }
    const maxWidth = Math.max(...widths);
    const objects = widths.reduce((a, b) => a + b, 0);
    return {
      objects, words: objects * wordsPerObject, edges: 0, widths, depth: widths.length, maxWidth,
      maxWidthDepth: widths.indexOf(maxWidth), tailLevels: run, longestNarrowRun: longest,
      narrowThreshold: NARROW_THRESHOLD, outDegree: [0, 0, 0, 0, 0, 0, 0, 0, 0], maxOutDegree: 0,
    };
  };
  const NO_MINIMUM: GpuSizeThreshold = { words: 0, why: '', derivation: '' };

  it('gives verdicts after the paper: wide is good, a long narrow tail is poor', () => {
    expect(shapeVerdict(shape([10, 500, 5000, 3000, 40, 5]), NO_MINIMUM)).toMatchObject({ rating: 'good', shapeRating: 'good' });
    expect(shapeVerdict(shape([2, ...new Array<number>(5000).fill(1)]), NO_MINIMUM)).toMatchObject({ rating: 'poor' });
    expect(shapeVerdict(shape([1, ...new Array<number>(100).fill(256)]), NO_MINIMUM)).toMatchObject({ rating: 'moderate' });
    expect(shapeVerdict(shape([3, 5, 8, 4]), NO_MINIMUM)).toMatchObject({ rating: 'poor' });
    expect(shapeVerdict(shape([2, ...new Array<number>(5000).fill(1)]), NO_MINIMUM).text).toMatch(/tail of 5001 of 5001 levels.*3\.1.*5\.4/);
  });

  it('weighs the live size: under the threshold a well-shaped heap is poor, and the text says why', () => {
    const min: GpuSizeThreshold = { words: 100_000, why: 'where the fixed cost wins', derivation: '' };
    // The case: 2,000 objects, one wide level, well shaped.
    const small = shapeVerdict(shape([1, 1999], 8), { ...min, words: 16_001 });
    expect(small).toMatchObject({ rating: 'poor', shapeRating: 'good' });
    expect(small.text).toBe(
      'poor for GPU marking: too small, 16,000 live words (2,000 objects) under the 16,001 where the fixed cost wins; ' +
        'by shape alone good for GPU (BFS) marking: max width 1999 at depth 1 over 2 levels (3.1: thousands of objects per step saturate memory bandwidth)',
    );
    // At the threshold the shape decides again, on both sides of the shape verdict.
    expect(shapeVerdict(shape([1, 1999], 8), { ...min, words: 16_000 })).toMatchObject({ rating: 'good', shapeRating: 'good' });
    expect(shapeVerdict(shape([1, ...new Array<number>(100).fill(256)], 4), min)).toMatchObject({ rating: 'moderate' });
    expect(shapeVerdict(shape([1, ...new Array<number>(100).fill(256)], 3), min)).toMatchObject({ rating: 'poor', shapeRating: 'moderate' });
  });

  it("derives the size threshold from the pause model's default lines, where a GPU mark stops costing more than a serial one", () => {
    const t = gpuSizeThreshold();
    const mark = defaultPriors(1, 'hardware').mark;
    const cost = (line: { fixed: number; perUnit: number }, words: number): number => line.fixed + line.perUnit * words;
    const cheapestGpu = (words: number): number => Math.min(cost(mark['gpu-dfs'], words), cost(mark['gpu-bfs'], words));
    expect(cheapestGpu(t.words - 1)).toBeGreaterThan(cost(mark.serial, t.words - 1));
    expect(cheapestGpu(t.words)).toBeLessThanOrEqual(cost(mark.serial, t.words));
    expect(t.why).toMatch(/^where gpu-(dfs|bfs)'s fixed [\d.]+ ms per mark outweighs the serial CPU marking it saves$/);
    expect(t.derivation).toMatch(/ns\/word.*pause model's defaults for a hardware GPU/);
  });

  it('widthProfile run-length encodes the levels', () => {
    expect(widthProfile([1, 256, 256, 256, 3])).toBe('1 256x3 3');
    expect(widthProfile([1, 2, 3, 4], 2)).toBe('1 2 ... (2 more levels)');
  });
});

describe('heapshape command', () => {
  it('linked_list.mini: a long narrow tail, judged poor for GPU marking', async () => {
    const r = await heapshape(['programs/linked_list.mini']);
    expect(r.code, r.stderr).toBe(0);
    const snaps = r.result!.snapshots;
    expect(snaps.length).toBeGreaterThanOrEqual(3);
    expect(snaps.some((s) => s.kind === 'full' && s.cause === 'gc() call')).toBe(true);
    expect(snaps.some((s) => s.kind === 'young')).toBe(true);
    const deepest = snaps.reduce((a, b) => (b.depth > a.depth ? b : a));
    expect(deepest.tailLevels).toBeGreaterThanOrEqual(10000);
    expect(deepest.maxWidth).toBeLessThan(NARROW_THRESHOLD);
    for (const s of snaps) expect(s.verdict.rating).toBe('poor');
    const text = formatHeapshape(r.result!);
    expect(text).toMatch(/gc \d+: poor for GPU marking: too small, [\d,]+ live words .*; by shape alone poor for GPU marking: a long narrow tail of \d+ of \d+ levels/);
    expect(text).toContain('1x');
  });

  it('parallel_lists.mini: a wide level of one object per list, no tail', async () => {
    const r = await heapshape(['programs/parallel_lists.mini']);
    expect(r.code, r.stderr).toBe(0);
    const widest = r.result!.snapshots.reduce((a, b) => (b.maxWidth > a.maxWidth ? b : a));
    expect(widest.maxWidth).toBeGreaterThanOrEqual(128);
    expect(widest.tailLevels).toBeLessThanOrEqual(1);
    expect(widest.verdict.shapeRating).not.toBe('poor');
    // Well shaped, but a few thousand objects: too small for a GPU mark to pay.
    expect(widest.words).toBeLessThan(r.result!.gpuMinWords);
    expect(widest.verdict.rating).toBe('poor');
    expect(widest.verdict.text).toMatch(/^poor for GPU marking: too small, /);
  });

  it('complete_graph.mini: wide and shallow, with 65+ out-degrees; both layouts agree', async () => {
    const sable = await heapshape(['programs/complete_graph.mini', '--layout', 'sable']);
    const refgraph = await heapshape(['programs/complete_graph.mini', '--layout', 'refgraph']);
    expect(sable.code, sable.stderr).toBe(0);
    const snaps = sable.result!.snapshots;
    expect(snaps.length).toBeGreaterThan(0);
    for (const s of snaps) {
      expect(s.maxWidth).toBeGreaterThanOrEqual(190);
      expect(s.depth).toBeLessThanOrEqual(8);
      expect(s.outDegree[8]).toBeGreaterThanOrEqual(200);
    }
    const strip = (r: HeapshapeResult) => r.snapshots.map((s) => ({ c: s.collection, o: s.objects, w: s.widths, d: s.outDegree }));
    expect(strip(refgraph.result!)).toEqual(strip(sable.result!));
  });

  it('analyses every collection kind under stress, with --verify-gc checking the wrapped marker', async () => {
    const r = await heapshape(['programs/cycles.mini', '--gc-stress', '400', '--verify-gc', '--heap', '8m']);
    expect(r.code, r.stderr).toBe(0);
    const snaps = r.result!.snapshots;
    expect(snaps.some((s) => s.cause === 'gc stress' && s.kind === 'young')).toBe(true);
    expect(snaps.some((s) => s.kind === 'full')).toBe(true);
    const numbers = snaps.map((s) => s.collection);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(new Set(numbers).size).toBe(numbers.length);
  });

  it('reports a --verify-gc failure as run does: the message, exit 70, no table', async () => {
    // A marker that forgets every live object in full collections: the sweep frees them.
    const mark = SerialMarker.prototype.mark;
    const spy = vi.spyOn(SerialMarker.prototype, 'mark').mockImplementation(function (this: SerialMarker, request) {
      const r = mark.call(this, request);
      if (request.kind === 'full') r.bitmap.fill(0);
      return r;
    });
    try {
      const r = await heapshape(['programs/linked_list.mini', '--verify-gc']);
      expect(r.code, r.stderr).toBe(70);
      expect(r.stderr).toMatch(/^minivm: --verify-gc: /);
      expect(r.result).toBeUndefined();
      let stderr = '';
      const cmd = parseArgs(['run', 'programs/linked_list.mini', '--verify-gc']);
      const run = await runSource(cmd.file, readFileSync(cmd.file, 'utf8'), cmd.run, { stdout: () => {}, stderr: (t) => (stderr += t) });
      expect(run.exitCode).toBe(70);
      expect(r.stderr).toBe(stderr);
    } finally {
      spy.mockRestore();
    }
  });

  it('prints a table and verdicts, or JSON; refuses --gc none', async () => {
    for (const json of [false, true]) {
      const cmd = parseArgs(['heapshape', 'programs/complete_graph.mini', ...(json ? ['--json'] : [])]);
      let stdout = '';
      const code = await heapshapeCommand(cmd, readFileSync(cmd.file, 'utf8'), { stdout: (t) => (stdout += t), stderr: () => {} });
      expect(code).toBe(0);
      if (json) {
        const parsed = JSON.parse(stdout) as HeapshapeResult;
        expect(parsed.narrowThreshold).toBe(20);
        expect(parsed.outDegreeBins).toEqual(['0', '1', '2', '3', '4', '5-8', '9-16', '17-64', '65+']);
        const docs = readFileSync('docs/cli.md', 'utf8');
        for (const k of Object.keys(parsed.snapshots[0]!)) expect(docs, `docs/cli.md lacks ${k}`).toContain(`\`${k}\``);
      } else {
        expect(stdout).toMatch(/^gc\s+kind\s+cause\s+objects\s+words\s+edges\s+depth\s+max width/m);
        expect(stdout).toContain(`verdicts (Maas et al. section 3; under ${gpuSizeThreshold().words.toLocaleString('en-US')} live words a heap is too small: `);
        expect(stdout).toMatch(/gc \d+: poor for GPU marking: too small, .*; by shape alone moderate: max width 19\d/);
      }
    }
    const none = await heapshape(['programs/complete_graph.mini', '--gc', 'none']);
    expect(none.code).toBe(64);
    expect(none.stderr).toMatch(/needs a collector that collects/);
  });
});
