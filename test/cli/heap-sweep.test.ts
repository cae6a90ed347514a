// `compare --heap LIST`, `--min-heap` and `--heap Nx`: the minimum found for a
// program whose live set is known from the object model and the space plan, the
// JSON of a sweep and of multiples, and the usage errors. In process and CPU
// collectors only, with small upper bounds, so the searches stay short.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from '../../src/cli/args.js';
import { compareCommand, formatComparison, type CompareResult } from '../../src/cli/compare.js';
import { HEAP_QUANTUM, multipleOf, probeOutcome, resolutionAt, searchMinHeap, SEARCH_FLOOR, type MinHeap } from '../../src/cli/heap-sweep.js';
import { planSpaces } from '../../src/heap/options.js';
import { HEADER_WORDS } from '../../src/heap/object-model.js';
import { minivm } from '../minivm.js';

const PROGRAM = 'test/cli/programs/live-set.mini';
const N = 5000;

async function compare(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const cmd = parseArgs(['compare', ...argv]);
  let stdout = '';
  let stderr = '';
  const code = await compareCommand(cmd, readFileSync(cmd.file, 'utf8'), { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

/**
 * What live-set.mini keeps to its end: N cells of one reference field and no scalars
 * (a header and one word in both layouts) and the reference array holding them.
 */
const LIVE_BYTES = 4 * (HEADER_WORDS + N + N * (HEADER_WORDS + 1));

/**
 * The smallest heap that can hold the live set after a young collection: by then every
 * cell has left eden (the program makes garbage after the last one), so the cells and
 * the array lie in tenured and one survivor space. A heap with less room cannot complete.
 */
function smallestHolding(liveBytes: number): number {
  for (let h = liveBytes; ; h += 4) {
    const p = planSpaces({ heapBytes: h });
    if ((p.tenuredEnd - p.tenuredStart + p.survivorWords) * 4 >= liveBytes) return h;
  }
}

describe('searchMinHeap', () => {
  const oom = { exitCode: 70, stdout: '', stderr: 'runtime error: out of memory: heap of 4 KiB exhausted (raise it with --heap)\n', stats: undefined };
  const done = { exitCode: 0, stdout: 'ok\n', stderr: '', stats: undefined };
  /** A program that completes in `need` bytes or more. */
  const needs = (need: number) => async (bytes: number) => (bytes >= need ? done : oom);

  it('brackets the threshold to within its resolution from any upper bound, in few probes', async () => {
    for (const need of [SEARCH_FLOOR + 1, 100_000, 342_928, 3_000_001, 200 * 2 ** 20]) {
      const s = await searchMinHeap('serial', 'sable', 256 * 2 ** 20, needs(need));
      if (s.kind !== 'done') throw new Error('unavailable');
      const m = s.result;
      expect(m.status).toBe('found');
      expect(m.minHeapBytes!).toBeGreaterThanOrEqual(need);
      expect(m.failedBelowBytes!).toBeLessThan(need);
      expect(m.minHeapBytes! - m.failedBelowBytes!).toBeLessThanOrEqual(resolutionAt(m.failedBelowBytes!));
      expect(m.minHeapBytes! % HEAP_QUANTUM).toBe(0);
      expect(m.probes.length).toBeLessThanOrEqual(14);
      expect(s.run).toBe(done);
    }
  });

  it('stops at the floor, at the upper bound, and at a failure that is not a heap too small', async () => {
    const tiny = await searchMinHeap('serial', 'sable', 2 ** 20, needs(0));
    expect(tiny.kind === 'done' && tiny.result).toMatchObject({ status: 'found', minHeapBytes: SEARCH_FLOOR, failedBelowBytes: null });
    const big = await searchMinHeap('serial', 'sable', 2 ** 20, needs(2 ** 21));
    expect(big.kind === 'done' && big.result).toMatchObject({ status: 'above upper bound', minHeapBytes: null, failedBelowBytes: 2 ** 20 });
    const crash = { exitCode: 70, stdout: '', stderr: 'runtime error: division by zero\n  at main (x.mini:3)\n', stats: undefined };
    const mid = await searchMinHeap('serial', 'sable', 2 ** 20, async (b) => (b === 2 ** 20 ? done : b === SEARCH_FLOOR ? oom : crash));
    expect(mid.kind === 'done' && mid.result).toMatchObject({ status: 'failed', minHeapBytes: null, exitCode: 70, reason: 'runtime error: division by zero' });
    const gpu = { exitCode: 69, stdout: '', stderr: 'minivm: no WebGPU adapter found\n', stats: undefined };
    expect((await searchMinHeap('gpu-dfs', 'sable', 2 ** 20, async () => gpu)).kind).toBe('unavailable');
  });

  it('tells a heap too small from other failures', () => {
    const r = (exitCode: number, stderr: string) => probeOutcome({ exitCode, stderr, stdout: '', stats: undefined });
    expect(r(0, '')).toBe('ok');
    expect(r(70, 'runtime error: out of memory: heap of 8 KiB exhausted')).toBe('too small');
    expect(r(64, 'minivm: cannot set up the heap: heap too small: 1024 bytes')).toBe('too small');
    expect(r(64, 'minivm: --young must be smaller than --heap')).toBe('too small');
    expect(r(70, 'runtime error: null dereference')).toBe('failed');
    expect(r(134, '')).toBe('failed');
    expect(r(64, "minivm: --gpu-opt: unknown 'x'")).toBe('unavailable');
    expect(r(69, 'minivm: no WebGPU adapter found')).toBe('unavailable');
  });
});

describe('compare --min-heap', () => {
  const bound = smallestHolding(LIVE_BYTES);

  it('finds, per configuration, a minimum within a step of the heap the live set needs, failing one step below', async () => {
    const r = await compare([PROGRAM, '--gc', 'serial,parallel', '--layout', 'sable', '--threads', '2', '--min-heap', '--heap', '512k', '--in-process', '--json', '--', String(N)]);
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout) as CompareResult;
    expect(json.runs).toEqual([]);
    expect(json.minHeaps!.map((m) => `${m.collector}/${m.layout}`)).toEqual(['serial/sable', 'parallel/sable']);
    // The outputs of the completing runs at the minima are checked against each other.
    expect(json.comparedRuns).toBe(2);
    for (const m of json.minHeaps!) {
      expect(m.status).toBe('found');
      const min = m.minHeapBytes!;
      expect(min).toBeGreaterThanOrEqual(LIVE_BYTES);
      expect(min).toBeGreaterThanOrEqual(bound);
      expect(m.resolutionBytes).toBe(resolutionAt(m.failedBelowBytes!));
      expect(min - m.failedBelowBytes!).toBeLessThanOrEqual(m.resolutionBytes);
      expect(m.upperBytes).toBe(512 * 1024);
      expect(m.probes[0]).toEqual({ heapBytes: 512 * 1024, outcome: 'ok' });
      for (const p of m.probes) expect(p.outcome === 'ok' ? p.heapBytes >= min : p.heapBytes <= m.failedBelowBytes!).toBe(true);
    }
    // serial promotes object by object, so nothing but the search's step separates it
    // from the bound; parallel copies into a 1024-word to-space LAB per thread, whose
    // unused tails (2 threads) can cost up to that much survivor room, and survivor and
    // tenured room grow by about 2/3 of the heap's growth.
    const [serial, parallel] = json.minHeaps! as [MinHeap, MinHeap];
    expect(serial.minHeapBytes! - bound).toBeLessThan(serial.resolutionBytes);
    expect(parallel.minHeapBytes! - bound).toBeLessThan(parallel.resolutionBytes + (2 * 1024 * 4 * 3) / 2);
    // A fresh `run` agrees: out of memory at the largest heap found too small, complete
    // at the minimum. Serial only: parallel's LAB tails depend on how the threads share
    // the copying, so its boundary may move by a step from run to run.
    const at = (bytes: number) => minivm(['run', PROGRAM, '--gc', 'serial', '--heap', `${bytes / 1024}k`, '--', String(N)]);
    const below = at(serial.failedBelowBytes!);
    expect(below.status, below.stderr).toBe(70);
    expect(below.stderr).toMatch(/^runtime error: out of memory/);
    const ok = at(serial.minHeapBytes!);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toBe(`${N}\n${8 * N / 2}\n`);
    expect(formatComparison(json)).toMatch(new RegExp(`^serial\\s+sable\\s+${serial.minHeapBytes! / 1024}K\\s+${serial.failedBelowBytes! / 1024}K\\s+${serial.probes.length}$`, 'm'));
  });

  it('reports a program that runs out of memory even at the upper bound, and a failure that is not a heap too small', async () => {
    const r = await compare([PROGRAM, '--gc', 'serial', '--layout', 'sable', '--min-heap', '--heap', '64k', '--in-process', '--json', '--', String(N)]);
    expect(r.code, r.stderr).toBe(0);
    const [m] = (JSON.parse(r.stdout) as CompareResult).minHeaps!;
    expect(m).toMatchObject({ status: 'above upper bound', minHeapBytes: null, failedBelowBytes: 64 * 1024, probes: [{ heapBytes: 64 * 1024, outcome: 'too small' }] });
    // No argument: parseInt(null) is a runtime error at every heap, not a heap too small.
    const bad = await compare([PROGRAM, '--gc', 'serial', '--layout', 'sable', '--min-heap', '--heap', '1m', '--in-process', '--json']);
    const [f] = (JSON.parse(bad.stdout) as CompareResult).minHeaps!;
    expect(f).toMatchObject({ status: 'failed', minHeapBytes: null, exitCode: 70, probes: [{ heapBytes: 2 ** 20, outcome: 'failed' }] });
    expect(f!.reason).toMatch(/^runtime error: /);
    expect(f!.reason).not.toMatch(/out of memory/);
    // With multiples, a configuration without a minimum has no rows, and a note says why.
    const none = { ...(JSON.parse(bad.stdout) as CompareResult), heaps: { kind: 'multiples' as const, factors: [2] } };
    expect(formatComparison(none)).toContain('note: serial/sable has no minimum heap (failed), so it has no runs at multiples of it');
  });
});

describe('compare --heap LIST', () => {
  it('runs every configuration at every size, the heap a field of each row', async () => {
    const r = await compare([PROGRAM, '--gc', 'serial', '--layout', 'sable,refgraph', '--heap', '64k,1m', '--in-process', '--json', '--', String(N)]);
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout) as CompareResult;
    expect(json.heaps).toEqual({ kind: 'sizes', bytes: [64 * 1024, 2 ** 20] });
    expect(json.minHeaps).toBeNull();
    expect(json.runs.map((x) => [x.layout, x.heapBytes, x.heapMultiple, x.status])).toEqual([
      ['sable', 64 * 1024, null, 'out of memory'], ['sable', 2 ** 20, null, 'ok'],
      ['refgraph', 64 * 1024, null, 'out of memory'], ['refgraph', 2 ** 20, null, 'ok'],
    ]);
    // 64k is below the live set: running out of memory there is the sweep's expected limit.
    expect(json.outputIdentical).toBe(true);
    expect(json.comparedRuns).toBe(2);
    const docs = readFileSync('docs/cli.md', 'utf8');
    const minFields = ['status', 'minHeapBytes', 'failedBelowBytes', 'upperBytes', 'resolutionBytes', 'probes', 'exitCode', 'reason'];
    for (const f of ['heaps', 'minHeaps', 'heapBytes', 'heapMultiple', ...minFields]) expect(docs, `docs/cli.md lacks ${f}`).toContain(`\`${f}\``);
    const text = formatComparison(json);
    expect(text).toMatch(/^collector\s+layout\s+heap\s+wall ms/m);
    expect(text).toMatch(/^serial\s+sable\s+64K\s+out of memory/m);
    expect(text).toMatch(/^serial\s+sable\s+1M\s+\d+\.\d\d/m);
    expect(text).toContain('note: serial/sable at 64K ran out of memory (the heap is too small for it); excluded from the output check');
  });

  it('takes a size too small to lay out as too small, not as a collector that cannot run', async () => {
    const r = await compare([PROGRAM, '--gc', 'serial', '--layout', 'sable', '--heap', '1k,1m', '--in-process', '--json', '--', String(N)]);
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout) as CompareResult;
    expect(json.runs.map((x) => [x.heapBytes, x.status, x.exitCode])).toEqual([[1024, 'out of memory', 64], [2 ** 20, 'ok', 0]]);
    expect(json.skipped).toEqual([]);
  });

  it('--heap 2x,3x runs each configuration at multiples of its own minimum', async () => {
    const r = await compare([PROGRAM, '--gc', 'serial', '--layout', 'sable', '--heap', '2x,1.5x', '--in-process', '--json', '--', String(N)]);
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout) as CompareResult;
    expect(json.heaps).toEqual({ kind: 'multiples', factors: [2, 1.5] });
    const min = json.minHeaps![0]!.minHeapBytes!;
    expect(min).toBeGreaterThanOrEqual(LIVE_BYTES);
    expect(json.runs.map((x) => [x.heapMultiple, x.heapBytes, x.status])).toEqual([[2, 2 * min, 'ok'], [1.5, multipleOf(min, 1.5), 'ok']]);
    expect(multipleOf(min, 1.5) % HEAP_QUANTUM).toBe(0);
    expect(multipleOf(min, 1.5)).toBeGreaterThanOrEqual(1.5 * min);
    expect(json.comparedRuns).toBe(3);
  });
});

describe('--heap usage errors', () => {
  const usage = (argv: string[]): string => {
    try {
      parseArgs(argv);
    } catch (e) {
      if (e instanceof UsageError) return e.message;
      throw e;
    }
    throw new Error(`no usage error for ${argv.join(' ')}`);
  };

  it('rejects bad lists with one line each', () => {
    const c = (heap: string, ...more: string[]) => usage(['compare', PROGRAM, '--heap', heap, ...more]);
    expect(c('2m,3x')).toBe("--heap: '2m,3x' mixes sizes and multiples; give sizes (2m,4m) or multiples of the minimum heap (2x,3x), not both");
    expect(c('0x')).toBe("--heap: '0x' is below 1x; a multiple of the minimum heap must be at least 1x");
    expect(c('0.5x,2x')).toBe("--heap: '0.5x' is below 1x; a multiple of the minimum heap must be at least 1x");
    expect(c('x,2x')).toBe("--heap: 'x' is not a multiple (examples: 2x, 1.5x)");
    expect(c('2m,,4m')).toBe("--heap: empty element in '2m,,4m'");
    expect(c('2m,lots')).toBe("--heap: 'lots' is not a size (examples: 64m, 1g, 512k)");
    expect(c('0,4m')).toBe("--heap: '0' is an empty heap");
    expect(c('2m,4m', '--min-heap')).toMatch(/^--min-heap searches for the heap: give it one --heap SIZE/);
    expect(c('2m,4m', '--young', '3m')).toBe('--young must be smaller than --heap (every size of the list)');
    expect(usage(['heapshape', PROGRAM, '--heap', '2x'])).toBe("--heap takes a size here ('2x' is a multiple of the minimum heap, which compare takes)");
    // One size is the plain option: no sweep, and --min-heap's upper bound.
    const one = parseArgs(['compare', PROGRAM, '--heap', '8m', '--min-heap']);
    expect([one.run.heapBytes, one.compare.heaps, one.compare.minHeap]).toEqual([8 * 2 ** 20, undefined, true]);
  });

  it('run --heap LIST is a usage error at the command line: exit 64, one line and the help pointer', () => {
    const r = minivm(['run', PROGRAM, '--heap', '2m,4m']);
    expect(r.status).toBe(64);
    expect(r.stderr).toBe("minivm: --heap takes one size here, not a list ('2m,4m'); compare takes a list\nsee 'minivm run --help'\n");
    const c = minivm(['compare', PROGRAM, '--heap', '2m,0x']);
    expect(c.status).toBe(64);
    expect(c.stderr.split('\n')).toHaveLength(3);
    expect(c.stdout).toBe('');
  });
});
