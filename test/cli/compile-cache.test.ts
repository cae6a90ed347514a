// The compile cache (src/cli/compile-cache.ts): a program's bytecode kept between
// runs of the bundled `minivm`. An entry is used only for the same build, file
// name and source; anything else (an edit, a corrupt or foreign file, a directory
// that cannot be written) costs a compile, never a wrong program or a crash.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultRunOptions } from '../../src/cli/options.js';
import { compileSource } from '../../src/cli/compile-source.js';
import { CompileCache, cacheDir, cliCompileCache } from '../../src/cli/compile-cache.js';
import { decodeEntry, encodeEntry } from '../../src/cli/entry-codec.js';
import { runSource } from '../../src/cli/run.js';
import { minivm, scratch } from '../minivm.js';

const { dir, program } = scratch('minivm-compile-cache-');

const quiet = { stdout: (): void => {}, stderr: (): void => {} };
const SOURCE = 'class P { var x: int; init(x: int) { this.x = x; } fun twice(): int { return 2 * this.x; } }\nprint(new P(21).twice());\n';

function compiled(source: string, file = 'p.mini'): NonNullable<ReturnType<typeof compileSource>> {
  const p = compileSource(file, source, quiet);
  if (p === undefined) throw new Error('the test program does not compile');
  return p;
}

describe('CompileCache', () => {
  it('gives back what it kept, for the same build, file name and source only', () => {
    const cache = new CompileCache(join(dir, 'unit'), 'build-1');
    const p = compiled(SOURCE);
    expect(cache.get('p.mini', SOURCE)).toBeUndefined();
    expect(cache.put('p.mini', SOURCE, p)).toBe(true);
    expect(cache.get('p.mini', SOURCE)).toEqual({ program: p, tier: undefined });
    expect(cache.get('p.mini', SOURCE.replace('21', '22'))).toBeUndefined();
    expect(cache.get('./p.mini', SOURCE)).toBeUndefined();
    expect(new CompileCache(join(dir, 'unit'), 'build-2').get('p.mini', SOURCE)).toBeUndefined();
  });

  it('keeps the compiled tier\'s code with the program', () => {
    const cache = new CompileCache(join(dir, 'tier'), 'b');
    const p = compiled(SOURCE);
    const tier = new Map([['k', { source: 'return 1;', icSites: 2, heads: [4, 1], data: Uint8Array.of(1, 2, 3) }]]);
    expect(cache.put('p.mini', SOURCE, p, tier)).toBe(true);
    const got = cache.get('p.mini', SOURCE)!;
    expect(got.program).toEqual(p);
    expect(got.tier).toEqual(tier);
  });

  it('keeps one entry per file, replaced when the source changes', () => {
    const cache = new CompileCache(join(dir, 'one'), 'b');
    const edited = SOURCE.replace('21', '5');
    cache.put('p.mini', SOURCE, compiled(SOURCE));
    cache.put('p.mini', edited, compiled(edited));
    expect(readdirSync(join(dir, 'one'))).toHaveLength(1);
    expect(cache.get('p.mini', SOURCE)).toBeUndefined();
    expect(cache.get('p.mini', edited)?.program.floatConstants).toEqual(compiled(edited).floatConstants);
  });

  it('treats a corrupt or foreign entry as a miss', () => {
    const cache = new CompileCache(join(dir, 'corrupt'), 'b');
    cache.put('p.mini', SOURCE, compiled(SOURCE));
    const entry = cache.entryPath('p.mini');
    writeFileSync(entry, readFileSync(entry).subarray(0, 40));
    expect(cache.get('p.mini', SOURCE)).toBeUndefined();
    writeFileSync(entry, 'not an entry');
    expect(cache.get('p.mini', SOURCE)).toBeUndefined();
  });

  it('reports a directory it cannot write, and leaves nothing behind', () => {
    const blocked = join(dir, 'blocked');
    writeFileSync(blocked, 'a file where the directory would be');
    const cache = new CompileCache(join(blocked, 'cache'), 'b');
    expect(cache.put('p.mini', SOURCE, compiled(SOURCE))).toBe(false);
    expect(cache.get('p.mini', SOURCE)).toBeUndefined();
  });

  it('lives where the environment says, else in the user cache directory', () => {
    expect(cacheDir({ MINIVM_CACHE_DIR: '/x/y' })).toBe('/x/y');
    expect(cacheDir({ XDG_CACHE_HOME: '/c' })).toBe('/c/minivm');
    expect(cacheDir({ HOME: '/h' })).toMatch(/\.cache[/\\]minivm$/);
  });

  it('is used by the bundled CLI only: runs in this process compile every time', async () => {
    expect(cliCompileCache({})).toBeNull();
    const cacheHome = join(dir, 'in-process');
    const saved = process.env['MINIVM_CACHE_DIR'];
    process.env['MINIVM_CACHE_DIR'] = cacheHome;
    try {
      let out = '';
      const r = await runSource('p.mini', SOURCE, defaultRunOptions(), { stdout: (t) => void (out += t), stderr: () => {} });
      expect({ code: r.exitCode, out }).toEqual({ code: 0, out: '42\n' });
    } finally {
      if (saved === undefined) delete process.env['MINIVM_CACHE_DIR'];
      else process.env['MINIVM_CACHE_DIR'] = saved;
    }
    expect(existsSync(cacheHome)).toBe(false);
  });
});

describe('the minivm command with its compile cache', () => {
  const entries = (d: string): string[] => (existsSync(d) ? readdirSync(d) : []);

  it('keeps a compiled program and runs it again from the cache, seeing every edit', () => {
    const cache = join(dir, 'cli');
    const env = { MINIVM_CACHE_DIR: cache };
    const file = program('cached.mini', SOURCE);
    expect(minivm(['run', file], { env })).toMatchObject({ status: 0, stdout: '42\n' });
    expect(entries(cache)).toHaveLength(1);
    const entry = join(cache, entries(cache)[0]!);
    const written = readFileSync(entry);
    expect(minivm(['run', file], { env })).toMatchObject({ status: 0, stdout: '42\n' });
    // A hit reads the entry and does not write it again.
    expect(readFileSync(entry).equals(written)).toBe(true);
    writeFileSync(file, SOURCE.replace('21', '50'));
    expect(minivm(['run', file], { env })).toMatchObject({ status: 0, stdout: '100\n' });
    expect(entries(cache)).toHaveLength(1);
  });

  it('keeps the compiled tier\'s code, and a run whose kept code V8 refuses compiles it again', () => {
    const cache = join(dir, 'tier-code');
    const env = { MINIVM_CACHE_DIR: cache };
    const loops = 'class B { var next: B; var v: int; }\nfun sum(n: int): int {\n  var b = new B();\n  for (var i = 0; i < n; i = i + 1) { b.v = b.v + i; b.next = b; }\n  return b.v;\n}\nprint(sum(10000));\n';
    const file = program('tier-code.mini', loops);
    expect(minivm(['run', file], { env })).toMatchObject({ status: 0, stdout: '49995000\n' });
    const path = join(cache, entries(cache)[0]!);
    const entry = decodeEntry(readFileSync(path)) as { tier?: Map<string, { source: string; data?: Uint8Array }> };
    // main and sum, each with its source and V8's code cache.
    expect([...entry.tier!.keys()].filter((k) => k.endsWith(':body:0'))).toHaveLength(2);
    for (const code of entry.tier!.values()) {
      expect(code.source).toContain('return');
      expect(code.data!.length).toBeGreaterThan(0);
    }
    // V8 refuses a code cache that is not its own; the run compiles the source instead and keeps fresh data.
    for (const code of entry.tier!.values()) code.data = Uint8Array.from({ length: 64 }, (_, k) => k);
    writeFileSync(path, encodeEntry(entry));
    const stats = minivm(['run', file, '--stats'], { env });
    expect(stats).toMatchObject({ status: 0, stdout: '49995000\n' });
    expect(stats.stderr).toMatch(/^program: bytecode from the compile cache/m);
    const rewritten = decodeEntry(readFileSync(path)) as typeof entry;
    for (const code of rewritten.tier!.values()) expect(code.data!.length).toBeGreaterThan(64);
    // Another layout links other field offsets: its code is kept beside, under other keys.
    expect(minivm(['run', file, '--layout', 'refgraph'], { env })).toMatchObject({ status: 0, stdout: '49995000\n' });
    const both = decodeEntry(readFileSync(path)) as typeof entry;
    expect(both.tier!.size).toBeGreaterThan(rewritten.tier!.size);
  });

  it('says where the bytecode came from in --stats and --json-stats', () => {
    const env = { MINIVM_CACHE_DIR: join(dir, 'stats') };
    const file = program('stats.mini', SOURCE);
    const json = join(dir, 'stats.json');
    const first = minivm(['run', file, '--stats', '--json-stats', json], { env });
    expect(first.stderr).toMatch(/^program: compiled in \d+\.\d\d ms$/m);
    expect(JSON.parse(readFileSync(json, 'utf8')).compile).toMatchObject({ cached: false });
    const second = minivm(['run', file, '--stats', '--json-stats', json], { env });
    expect(second.stderr).toMatch(/^program: bytecode from the compile cache in \d+\.\d\d ms$/m);
    expect(JSON.parse(readFileSync(json, 'utf8')).compile).toMatchObject({ cached: true });
  });

  it('gives a runtime error the same message and frames from the cache', () => {
    const env = { MINIVM_CACHE_DIR: join(dir, 'frames') };
    const file = program('fault.mini', 'fun f(a: int[]): int {\n  return a[3];\n}\nprint(f(new int[2]));\n');
    const first = minivm(['run', file], { env });
    expect(first.status).toBe(70);
    expect(first.stderr).toMatch(/at f \(.*fault\.mini:2\)/);
    expect(minivm(['run', file], { env })).toEqual(first);
  });

  it('never keeps a program that does not compile', () => {
    const cache = join(dir, 'errors');
    const file = program('bad.mini', 'print(1 +);\n');
    const first = minivm(['run', file], { env: { MINIVM_CACHE_DIR: cache } });
    expect(first.status).toBe(65);
    expect(entries(cache)).toHaveLength(0);
    expect(minivm(['run', file], { env: { MINIVM_CACHE_DIR: cache } })).toEqual(first);
  });

  it('is off with MINIVM_COMPILE_CACHE=off, and a cache it cannot write costs only the compile', () => {
    const off = join(dir, 'off');
    const file = program('off.mini', 'print(7);\n');
    expect(minivm(['run', file], { env: { MINIVM_CACHE_DIR: off, MINIVM_COMPILE_CACHE: 'off' } })).toMatchObject({ status: 0, stdout: '7\n' });
    expect(existsSync(off)).toBe(false);
    const locked = join(dir, 'locked');
    writeFileSync(locked, '');
    expect(minivm(['run', file], { env: { MINIVM_CACHE_DIR: join(locked, 'c') } })).toEqual({ status: 0, stdout: '7\n', stderr: '' });
  });
});
