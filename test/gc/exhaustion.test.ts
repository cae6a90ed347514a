/**
 * Memory running out, through the real `minivm` binary: `--gc-stress 1` makes
 * progress, a young collection that cannot promote becomes a full one under every
 * CPU collector, "out of memory" comes only when a full collection cannot make room
 * (a fragmented tenured space is not enough), and the collection that finds the heap
 * exhausted is logged and counted. Run through the CLI so that a collector rebuilt
 * around its own evacuation is held to the same.
 */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { minivm as runMinivm, scratch } from '../minivm.js';

const { dir, program } = scratch('minivm-exhaustion-');
const CPU_COLLECTORS = ['serial', 'parallel'];
const minivm = (args: string[]) => runMinivm(args, { timeout: 60_000 });

const CHAIN = program('chain.mini', [
  'class Cell { var next: Cell; var pad: int[]; }',
  'var head: Cell = null;',
  'while (true) { var c = new Cell(); c.pad = new int[64]; c.next = head; head = c; }',
].join('\n'));

describe('--gc-stress 1', () => {
  it('collects at every allocation and the retry succeeds', () => {
    const file = program('stress1.mini', [
      'class A { var x: int; }',
      'var s = 0;',
      'for (var i = 0; i < 40; i = i + 1) { var a = new A(); a.x = i; s = s + a.x; }',
      'print(s);',
    ].join('\n'));
    for (const gc of CPU_COLLECTORS) {
      const r = minivm(['run', file, '--gc', gc, '--gc-stress', '1', '--heap', '1m', '--verify-gc', '--stats']);
      expect(r.stdout).toBe('780\n');
      expect(r.status).toBe(0);
      // 40 objects: 40 collections, every 4th one full.
      expect(r.stderr).toContain('gc: 30 young, 10 full collections');
    }
  });

  it('the reproducer prints 1', () => {
    const r = minivm(['run', program('r.mini', 'class A {}\nvar a = new A();\nprint(1);\n'), '--gc-stress', '1']);
    expect(r).toMatchObject({ status: 0, stdout: '1\n' });
  });

  it('an array that never fits still ends in out of memory', () => {
    const file = program('never.mini', 'var keep = new int[100000];\nvar b = new int[100000];\nprint(b.length);\n');
    for (const gc of CPU_COLLECTORS) {
      const r = minivm(['run', file, '--gc', gc, '--gc-stress', '1', '--heap', '600k']);
      expect(r.status).toBe(70);
      expect(r.stderr).toMatch(/^runtime error: out of memory: heap of 600 KiB exhausted/);
    }
  });
});

describe('out of memory only when a full collection cannot make room', () => {
  const src = 'test/gc/programs/parallel-oom-at-1m.mini';
  const expected = readFileSync('test/gc/programs/parallel-oom-at-1m.expected', 'utf8');

  // 1m is where parallel used to fail; 700k and 1200k bracket it.
  it.each(CPU_COLLECTORS)('%s runs the fragmentation reproducer at 700k, 1m and 1200k', (gc) => {
    for (const kb of [700, 1024, 1200]) {
      const r = minivm(['run', src, '--gc', gc, '--heap', `${kb}k`]);
      expect({ kb, status: r.status, stderr: r.stderr }).toEqual({ kb, status: 0, stderr: '' });
      expect(r.stdout).toBe(expected);
    }
  });

  it.each(CPU_COLLECTORS)('%s turns a young collection that cannot promote into a full one', (gc) => {
    const r = minivm(['run', src, '--gc', gc, '--heap', '1m', '--log-gc', '--verify-gc']);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/^\[\d+\.\d{3}s\]\[gc \d+\] full \(promotion failed\) /m);
  });
});

describe('the collection that finds the heap exhausted', () => {
  it.each(CPU_COLLECTORS)('%s logs and counts it', (gc) => {
    const r = minivm(['run', CHAIN, '--gc', gc, '--heap', '1m', '--log-gc', '--stats', '--verify-gc']);
    expect(r.status).toBe(70);
    const lines = r.stderr.split('\n');
    const gcLines = lines.filter((l) => /^\[\d+\.\d{3}s\]\[gc /.test(l));
    expect(gcLines.at(-1)).toMatch(/^\[\d+\.\d{3}s\]\[gc \d+\] full \(.*out of memory\) /);
    const young = gcLines.filter((l) => / young \(/.test(l)).length;
    const full = gcLines.length - young;
    expect(r.stderr).toContain(`gc: ${young} young, ${full} full collections`);
    expect(r.stderr).toContain('runtime error: out of memory: heap of 1 MiB exhausted (raise it with --heap)');
  });
});

describe('output paths', () => {
  it('--json-stats into a missing directory is exit 64 before the program runs', () => {
    const file = program('prints.mini', 'print(42);\n');
    const r = minivm(['run', file, '--json-stats', '/nonexistent/x.json']);
    expect(r.status).toBe(64);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^minivm: --json-stats: cannot write '\/nonexistent\/x\.json': folder '\/nonexistent' does not exist/);
  });

  it('--json-stats naming a directory is exit 64', () => {
    const r = minivm(['run', program('prints2.mini', 'print(1);\n'), '--json-stats', dir]);
    expect(r.status).toBe(64);
    expect(r.stdout).toBe('');
  });
});
