/**
 * The fuzzer in CI: a short fixed-seed differential run (CPU collectors, both
 * layouts, and one program each for gpu-dfs and gpu-bfs on lavapipe), the planted
 * bug found within a fixed seed range, every saved regression in
 * test/fuzz-regressions/ under every collector, and mutated programs through the
 * front end (diagnostics or a program, never a JavaScript exception).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileSource } from '../src/cli/compile-source.js';
import { releaseGpu } from '../src/collectors/index.js';
import { check, configsFor, flags, fuzz, type FuzzConfig } from '../src/fuzz/fuzz.js';
import { generate, render, rng } from '../src/fuzz/generate.js';
import { runSource } from '../src/cli/run.js';
import { defaultRunOptions, type CollectorName } from '../src/cli/args.js';

afterAll(() => releaseGpu());

describe('differential fuzzing', () => {
  it('fixed seeds under serial and parallel, both layouts: no failure', async () => {
    const r = await fuzz({ seconds: 600, seed: 1000, gcs: ['serial', 'parallel'], layouts: ['sable', 'refgraph'], maxPrograms: 6 });
    expect(r.programs).toBe(6);
    expect(r.runs).toBe(24);
    expect(r.failures.map((f) => `seed ${f.seed} ${f.config.gc}: ${f.reason}`)).toEqual([]);
  }, 600_000);

  it('a share on the GPU collectors (lavapipe): no failure', async () => {
    const r = await fuzz({ seconds: 600, seed: 2000, gcs: ['gpu-dfs', 'gpu-bfs'], layouts: ['sable'], maxPrograms: 1 });
    expect(r.runs).toBe(2);
    expect(r.failures.map((f) => `seed ${f.seed} ${f.config.gc}: ${f.reason}`)).toEqual([]);
  }, 600_000);

  it('finds the planted bug (a skipped write barrier) within seeds 1-10, shrunk', async () => {
    process.env['MINIVM_PLANT'] = 'skip-barrier';
    try {
      const r = await fuzz({ seconds: 600, seed: 1, gcs: ['serial'], layouts: ['sable'], maxPrograms: 10 });
      expect(r.failures.length).toBeGreaterThan(0);
      const f = r.failures[0]!;
      expect(f.reason).toMatch(/missed old-to-young card|output differs/);
      expect(f.stmts.length).toBeLessThan(generate(f.seed, 1000).stmts.length);
    } finally {
      delete process.env['MINIVM_PLANT'];
    }
  }, 600_000);
});

describe('long runs spread over jobs and configurations', () => {
  it('a share of the product per program covers every configuration evenly over consecutive seeds', () => {
    const gcs: CollectorName[] = ['serial', 'parallel', 'gpu-dfs', 'gpu-bfs', 'auto'];
    const count = new Map<string, number>();
    for (let seed = 100; seed < 130; seed++) {
      const configs = configsFor(seed, gcs, ['sable', 'refgraph'], 2);
      expect(configs.length).toBe(2);
      for (const c of configs) count.set(`${c.gc}/${c.layout}`, (count.get(`${c.gc}/${c.layout}`) ?? 0) + 1);
    }
    expect(count.size).toBe(10);
    expect([...count.values()].every((n) => n === 6)).toBe(true);
  });

  it('the GPU collectors and auto run both with and without --verify-gc; the CPU collectors always with it', () => {
    const gcs: CollectorName[] = ['serial', 'parallel', 'gpu-dfs', 'gpu-bfs', 'auto'];
    const seen = new Map<string, Set<boolean>>();
    for (let seed = 200; seed < 240; seed++) {
      for (const c of configsFor(seed, gcs, ['sable'])) {
        const v = c.verifyGc !== false;
        seen.set(c.gc, (seen.get(c.gc) ?? new Set()).add(v));
        expect(flags(c).includes('--verify-gc')).toBe(v);
      }
    }
    for (const gc of ['gpu-dfs', 'gpu-bfs', 'auto']) expect([...seen.get(gc)!].sort()).toEqual([false, true]);
    for (const gc of ['serial', 'parallel']) expect([...seen.get(gc)!]).toEqual([true]);
  });

  it('the GPU collectors run with their device starting both before the program and beside it', () => {
    const gcs: CollectorName[] = ['serial', 'gpu-dfs', 'gpu-bfs', 'auto'];
    const seen = new Map<string, Set<boolean>>();
    for (let seed = 200; seed < 240; seed++) {
      for (const c of configsFor(seed, gcs, ['sable'])) {
        const beside = c.startBeside === true;
        seen.set(c.gc, (seen.get(c.gc) ?? new Set()).add(beside));
        expect(flags(c).includes('--gpu-opt start=beside')).toBe(beside);
      }
    }
    for (const gc of ['gpu-dfs', 'gpu-bfs']) expect([...seen.get(gc)!].sort()).toEqual([false, true]);
    for (const gc of ['serial', 'auto']) expect([...seen.get(gc)!]).toEqual([false]);
  });

  it('--jobs splits the seeds over children and sums what they found', () => {
    const run = (extra: string[]) => spawnSync(process.execPath, ['dist/fuzz/fuzz.js', '--seconds', '300', '--seed', '40', '--programs', '5', '--gc', 'serial', '--layout', 'sable', ...extra], { encoding: 'utf8' });
    const split = run(['--jobs', '2']);
    expect({ status: split.status, stderr: split.stderr }).toEqual({ status: 0, stderr: '' });
    expect(split.stdout).toMatch(/fuzz: seeds from 40 in 2 jobs/);
    expect(split.stdout).toMatch(/^fuzz: 5 programs, 5 runs, 0 failures$/m);
    expect(split.stdout).toMatch(/^fuzz: runs by configuration: serial\/sable 5$/m);
    const bad = run(['--jobs', '0']);
    expect(bad.status).toBe(64);
    expect(bad.stderr).toMatch(/--jobs/);
  }, 300_000);
});

describe('test/fuzz-regressions', () => {
  const dir = 'test/fuzz-regressions';
  const files = readdirSync(dir).filter((f) => f.endsWith('.mini'));
  it('holds the saved reproducers', () => expect(files.length).toBeGreaterThan(0));
  it.each(files)('%s under every CPU collector and layout', async (name) => {
    const source = readFileSync(join(dir, name), 'utf8');
    const expected = readFileSync(join(dir, name.replace(/\.mini$/, '.expected')), 'utf8');
    const flags = /^\/\/ flags: (.*)$/m.exec(source)![1]!;
    const heap = Number(/--heap (\d+)k/.exec(flags)![1]) * 1024;
    const stress = Number(/--gc-stress (\d+)/.exec(flags)?.[1] ?? 0);
    for (const gc of ['serial', 'parallel'] as CollectorName[]) {
      for (const layout of ['sable', 'refgraph'] as const) {
        let out = '';
        let err = '';
        const options = { ...defaultRunOptions(), gc, layout, heapBytes: heap, gcStress: stress, verifyGc: true, threads: 2 };
        const r = await runSource(name, source, options, { stdout: (t) => void (out += t), stderr: (t) => void (err += t) });
        expect({ gc, layout, exit: r.exitCode, err }).toEqual({ gc, layout, exit: 0, err: '' });
        expect(out).toBe(expected);
      }
    }
  }, 300_000);
});

describe('front-end fuzzing', () => {
  /** Mutants of a generated program: tokens dropped, duplicated, swapped; random bytes. */
  function mutants(seed: number, count: number): string[] {
    const r = rng(seed);
    const tokens = render(generate(seed, 100)).match(/\s+|\w+|"[^"]*"|./g)!;
    const out: string[] = [];
    for (let k = 0; k < count; k++) {
      const t = [...tokens];
      for (let e = 0; e < 1 + Math.floor(r() * 4); e++) {
        const i = Math.floor(r() * t.length);
        const j = Math.floor(r() * t.length);
        switch (Math.floor(r() * 4)) {
          case 0: t.splice(i, 1); break;
          case 1: t.splice(i, 0, t[i]!); break;
          case 2: [t[i], t[j]] = [t[j]!, t[i]!]; break;
          default: t.splice(i, 0, String.fromCharCode(Math.floor(r() * 256))); break;
        }
      }
      out.push(t.join(''));
    }
    return out;
  }

  it('200 mutated programs end in diagnostics or a program, never a JavaScript exception', () => {
    let diagnosed = 0;
    let compiled = 0;
    for (const [k, source] of mutants(77, 200).entries()) {
      let err = '';
      const t = performance.now();
      const program = compileSource(`mutant-${k}.mini`, source, { stdout: () => {}, stderr: (s) => void (err += s) });
      expect(performance.now() - t).toBeLessThan(30_000);
      if (program) compiled++;
      else {
        diagnosed++;
        expect(err).toMatch(/^mutant-\d+\.mini:\d+:\d+: error: /);
      }
    }
    // Both outcomes occur: the mutations are neither all harmless nor all fatal.
    expect(diagnosed).toBeGreaterThan(100);
    expect(compiled).toBeGreaterThan(0);
  }, 600_000);

  it('a check of the oracle itself: an unmutated program runs to its expected output', async () => {
    const config: FuzzConfig = { gc: 'serial', layout: 'sable', heapBytes: 4 << 20, gcStress: 0 };
    expect(await check(generate(5, 1000).stmts, config)).toBe(null);
  });
});
