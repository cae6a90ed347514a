// `minivm compare`: the table, the JSON fields (checked against docs/cli.md), the
// output-equality check as a pure function, out-of-memory `none` runs, explicit
// unavailable collectors, medians and progress. CPU collectors only: GPU runs on
// lavapipe are slow and stay out of the default test run.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../src/cli/args.js';
import { compareCommand, compareOutputs, formatComparison, median, outliers, type CompareResult } from '../../src/cli/compare.js';
import { runOptionArgs } from '../../src/cli/compare-runs.js';
import { OPTIONS } from '../../src/cli/options.js';

const PROGRAM = 'programs/cycles.mini';

async function compare(argv: string[], progress = false): Promise<{ code: number; stdout: string; stderr: string }> {
  const cmd = parseArgs(['compare', ...argv]);
  let stdout = '';
  let stderr = '';
  const code = await compareCommand(cmd, readFileSync(cmd.file, 'utf8'), {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
  }, { progress });
  return { code, stdout, stderr };
}

const RUN_FIELDS = [
  'collector', 'layout', 'heapBytes', 'heapMultiple', 'status', 'exitCode', 'repeats', 'wallMs', 'mutatorMs', 'gcMs', 'youngCollections',
  'fullCollections', 'totalPauseMs', 'maxPauseMs', 'p95PauseMs', 'markMs', 'transferMs', 'bytesAllocated',
  'bytesPromoted', 'peakHeapBytes', 'collections', 'min', 'max', 'samples', 'outliers',
];
const TOP_FIELDS = ['file', 'repeat', 'warmup', 'provenance', 'heaps', 'minHeaps', 'runs', 'skipped', 'comparedRuns', 'outputIdentical', 'difference'];
const PROVENANCE_FIELDS = ['version', 'commit', 'node', 'os', 'cpu', 'cores', 'memoryBytes', 'argv', 'mode', 'warmup', 'heapBytes', 'adapter', 'date'];
const COLLECTION_FIELDS = ['number', 'kind', 'cause', 'startMs', 'endMs', 'pauseMs', 'usedBefore', 'usedAfter'];

describe('compare', () => {
  it('prints a table with one row per collector and layout, and the equality line', async () => {
    const r = await compare([PROGRAM, '--gc', 'none,serial', '--layout', 'sable,refgraph']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    const header = lines.find((l) => l.startsWith('collector'));
    expect(header).toMatch(/layout\s+heap\s+wall ms\s+mutator ms\s+young\s+full\s+pause ms\s+max ms\s+p95 ms\s+mark ms\s+transfer ms\s+promoted\s+peak heap/);
    const rows = lines.filter((l) => /^(none|serial)\s+(sable|refgraph)\s/.test(l));
    expect(rows).toHaveLength(4);
    expect(rows.map((l) => l.split(/\s+/).slice(0, 2).join('/'))).toEqual([
      'none/sable', 'none/refgraph', 'serial/sable', 'serial/refgraph',
    ]);
    expect(r.stdout).toContain('output identical across 4 runs');
    // The program's own output is compared, never shown.
    expect(r.stdout).not.toMatch(/^\d+$/m);
    expect(r.stderr).toBe('');
  });

  it('--json has the documented fields, and docs/cli.md documents every one', async () => {
    const r = await compare([PROGRAM, '--gc', 'none,serial', '--layout', 'sable,refgraph', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout) as CompareResult;
    expect(Object.keys(json).sort()).toEqual([...TOP_FIELDS].sort());
    expect(json.runs).toHaveLength(4);
    expect(json.outputIdentical).toBe(true);
    expect(json.difference).toBeNull();
    expect(json.comparedRuns).toBe(4);
    for (const run of json.runs) {
      expect(Object.keys(run).sort()).toEqual([...RUN_FIELDS].sort());
      expect(run.status).toBe('ok');
      expect(run.wallMs).toBeGreaterThan(0);
    }
    const serial = json.runs.filter((run) => run.collector === 'serial');
    for (const run of serial) {
      expect(run.youngCollections + run.fullCollections).toBeGreaterThan(0);
      expect(run.collections).toHaveLength(run.youngCollections + run.fullCollections);
      expect(run.maxPauseMs).toBeLessThanOrEqual(run.totalPauseMs);
      for (const c of run.collections) {
        expect(Object.keys(c).sort()).toEqual([...COLLECTION_FIELDS].sort());
        expect(c.endMs).toBeGreaterThanOrEqual(c.startMs);
        expect(c.endMs).toBeLessThanOrEqual(run.wallMs + 1);
      }
    }
    for (const run of json.runs.filter((x) => x.collector === 'none')) expect(run.collections).toEqual([]);
    const docs = readFileSync('docs/cli.md', 'utf8');
    expect(Object.keys(json.provenance).sort()).toEqual([...PROVENANCE_FIELDS].sort());
    expect(json.provenance).toMatchObject({ mode: 'fresh process', warmup: 0, heapBytes: 256 * 2 ** 20, adapter: null });
    expect(json.provenance.argv).toEqual(['compare', PROGRAM, '--gc', 'none,serial', '--layout', 'sable,refgraph', '--json']);
    expect(json.provenance.version).toBe((JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version);
    for (const f of [...TOP_FIELDS, ...RUN_FIELDS, ...COLLECTION_FIELDS, ...PROVENANCE_FIELDS]) expect(docs, `docs/cli.md lacks ${f}`).toContain(`\`${f}\``);
  });

  it('reports medians over --repeat and counts every repeat in the check', async () => {
    const r = await compare([PROGRAM, '--gc', 'serial', '--layout', 'sable', '--repeat', '3', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout) as CompareResult;
    expect(json.runs).toHaveLength(1);
    const run = json.runs[0]!;
    expect(run.repeats).toBe(3);
    expect(json.comparedRuns).toBe(3);
    // Every figure: the median, its range and the raw samples of the three runs.
    expect(run.samples['wallMs']).toHaveLength(3);
    expect(run.wallMs).toBe(median(run.samples['wallMs']!));
    expect(run.min['wallMs']).toBe(Math.min(...run.samples['wallMs']!));
    expect(run.max['wallMs']).toBe(Math.max(...run.samples['wallMs']!));
    expect(run.samples['youngCollections']).toHaveLength(3);
    expect(run.outliers).toEqual([]);
  });

  it('interleaves the configurations round by round, warm-up rounds first and thrown away', async () => {
    const r = await compare([PROGRAM, '--gc', 'serial', '--layout', 'sable,refgraph', '--repeat', '2', '--warmup', '1', '--in-process', '--json'], true);
    expect(r.code, r.stderr).toBe(0);
    const order = [...r.stderr.matchAll(/\r(\[\d\/\d\] [^\r\x1b]+)/g)].map((m) => m[1]);
    expect(order).toEqual([
      '[1/2] serial/sable warm-up 1/1', '[2/2] serial/refgraph warm-up 1/1',
      '[1/2] serial/sable run 1/2', '[2/2] serial/refgraph run 1/2',
      '[1/2] serial/sable run 2/2', '[2/2] serial/refgraph run 2/2',
    ]);
    const json = JSON.parse(r.stdout) as CompareResult;
    expect(json.warmup).toBe(1);
    expect(json.provenance.mode).toBe('in process');
    expect(json.runs.map((x) => x.repeats)).toEqual([2, 2]);
    expect(json.comparedRuns).toBe(4);
  });

  it('shows the range beside each median in the text table when repeated', async () => {
    const r = await compare([PROGRAM, '--gc', 'serial', '--layout', 'sable', '--repeat', '2', '--in-process']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/medians \(min-max\) of 2 runs each, all runs in one process, rounds interleaved/);
    expect(r.stdout).toMatch(/^serial\s+sable\s+256M\s+\d+\.\d\d \(\d+\.\d\d-\d+\.\d\d\)/m);
  });

  it('shows `none` running out of memory in its row and leaves it out of the check', async () => {
    const r = await compare(['programs/gc_stress.mini', '--gc', 'none,serial', '--layout', 'sable', '--heap', '8m']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^none\s+sable\s+8M\s+out of memory/m);
    expect(r.stdout).toMatch(/^serial\s+sable\s+8M\s+\d/m);
    expect(r.stdout).toContain('output identical across 1 runs');
    expect(r.stdout).toMatch(/note: none\/sable ran out of memory .*excluded from the output check/);
  });

  it('fails with exit 69 when a GPU collector is named explicitly and there is no adapter', () => {
    // Every collector is built; the one thing that can be missing is a GPU adapter.
    const env = { ...process.env, VK_DRIVER_FILES: '/nonexistent/icd.json', VK_ICD_FILENAMES: '/nonexistent/icd.json' };
    const r = spawnSync(process.execPath, ['bin/minivm.js', 'compare', PROGRAM, '--gc', 'serial,gpu-dfs', '--layout', 'sable'],
      { encoding: 'utf8', env });
    expect(r.status, r.stderr).toBe(69);
    expect(r.stderr).toMatch(/minivm: no WebGPU adapter found/);
    expect(r.stdout).toBe('');
  });

  it('shows progress only when asked (a terminal)', async () => {
    const quiet = await compare([PROGRAM, '--gc', 'serial', '--layout', 'sable,refgraph', '--repeat', '2', '--in-process']);
    expect(quiet.stderr).toBe('');
    const loud = await compare([PROGRAM, '--gc', 'serial', '--layout', 'sable,refgraph', '--repeat', '2', '--in-process'], true);
    expect(loud.stderr).toContain('\r[1/2] serial/sable run 1/2');
    expect(loud.stderr).toContain('\r[2/2] serial/refgraph run 2/2');
    expect(loud.stderr.endsWith('\r\x1b[K')).toBe(true);
  });

  it('is wired into the CLI and quiet on a non-terminal stderr', () => {
    // bin/minivm.js runs dist/: `npm test` builds it first.
    expect(existsSync('dist/cli/compare.js'), 'dist/ is not built: run `npx tsc -p tsconfig.json` (npm test does)').toBe(true);
    const r = spawnSync('node', ['bin/minivm.js', 'compare', PROGRAM, '--gc', 'none,serial', '--layout', 'sable', '--json'], {
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect((JSON.parse(r.stdout) as CompareResult).runs.map((x) => x.collector)).toEqual(['none', 'serial']);
  });
});

describe('formatComparison', () => {
  it('says when a collector never collected, and why its GC columns are zeros', async () => {
    const r = await compare([PROGRAM, '--gc', 'none,serial', '--layout', 'sable', '--in-process', '--json']);
    const json = JSON.parse(r.stdout) as CompareResult;
    const serial = json.runs.find((x) => x.collector === 'serial')!;
    expect(formatComparison(json)).not.toContain('never collected');
    const idle = { ...json, runs: json.runs.map((x) => (x === serial ? { ...x, youngCollections: 0, fullCollections: 0 } : x)) };
    expect(formatComparison(idle)).toMatch(/note: serial\/sable never collected at this heap \(256(\.0)?M\): the GC columns are zeros; use a smaller --heap or --gc-stress N/);
  });
});

describe('outliers', () => {
  it("flags values outside Tukey's fences, and none below four values", () => {
    expect(outliers([10, 11, 10, 12, 11, 40])).toEqual([6]);
    expect(outliers([10, 11, 10, 12])).toEqual([]);
    expect(outliers([1, 100, 1])).toEqual([]);
  });
});

describe('runOptionArgs', () => {
  it('gives back the run options it was made from, for every run option compare takes', () => {
    const cmd = parseArgs(['compare', PROGRAM, '--heap', '48m', '--young', '8m', '--survivor-ratio', '4', '--tenure-age', '3',
      '--gc-stress', '9', '--verify-gc', '--gpu-opt', 'none', '--gpu-benchmark', '--threads', '3', '--gc-solo-below', '1m', '--gpu-min-live', '3m', '--pretouch', '--gc-warm-up', 'off', '--pause-goal', '2.5', '--tier', 'interp', '--tier-threshold', '5', '--dispatch', 'vtable']);
    const back = parseArgs(['run', PROGRAM, ...runOptionArgs(cmd.run)]).run;
    expect(back).toEqual(cmd.run);
    // Every run option of compare is set above: a new one must be added to runOptionArgs.
    const runOnly = new Set(['gc', 'layout', 'repeat', 'warmup', 'in-process', 'json', 'report', 'min-heap']);
    const given = new Set(cmd.argv.filter((a) => a.startsWith('--')).map((a) => a.slice(2)));
    for (const o of OPTIONS.filter((x) => x.commands.includes('compare') && !runOnly.has(x.name))) expect(given, o.name).toContain(o.name);
  });
});

describe('compareOutputs', () => {
  const out = (label: string, stdout: string, exitCode = 0) => ({ label, stdout, exitCode });

  it('accepts identical outputs', () => {
    expect(compareOutputs([out('a', '1\n2\n'), out('b', '1\n2\n'), out('c', '1\n2\n')])).toEqual({ identical: true });
    expect(compareOutputs([])).toEqual({ identical: true });
  });

  it('shows the first differing lines as a diff', () => {
    const r = compareOutputs([out('none/sable', '1\n2\n3\n4\n'), out('serial/sable', '1\n2\n3\n4\n'), out('serial/refgraph', '1\n2\nX\nY\n')]);
    expect(r.identical).toBe(false);
    if (r.identical) return;
    expect(r.diff.split('\n')).toEqual([
      '--- none/sable', '+++ serial/refgraph', '@@ line 3 @@', ' 2', '-3', '-4', '+X', '+Y',
    ]);
  });

  it('notices a missing tail of output and a different exit status', () => {
    const short = compareOutputs([out('a', '1\n2\n'), out('b', '1\n', 70)]);
    expect(short.identical).toBe(false);
    if (!short.identical) expect(short.diff).toContain('+(end of output, exit 70)');
    const exit = compareOutputs([out('a', '1\n'), out('b', '1\n', 70)]);
    expect(exit.identical).toBe(false);
    if (!exit.identical) expect(exit.diff).toContain('-exit 0\n+exit 70');
  });

  it('median', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBe(0);
  });
});
