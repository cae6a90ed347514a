/**
 * SIGINT and SIGTERM sent to a real `minivm` child: one line on stderr, exit 130 or
 * 143 from the process itself (not a death by signal), every line printed before
 * the signal on stdout, no half-written output file, and the parallel pool and the
 * GPU worker (lavapipe) shut down so that the process ends.
 */

import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scratch } from '../minivm.js';

const { dir, program } = scratch('minivm-signals-');

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Milliseconds from the signal to the exit. */
  afterSignalMs: number;
}

/** Starts minivm, waits until stdout holds `lines` lines, sends `signal`, waits for the end. */
function interrupt(args: string[], lines: number, signal: NodeJS.Signals): Promise<Ended> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/minivm.js', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let sentAt = 0;
    const guard = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no end: ${stdout.split('\n').length - 1} lines, stderr ${JSON.stringify(stderr)}`));
    }, 90_000);
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      if (sentAt === 0 && stdout.split('\n').length - 1 >= lines) {
        sentAt = performance.now();
        child.kill(signal);
      }
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, sig) => {
      clearTimeout(guard);
      resolve({ code, signal: sig, stdout, stderr, afterSignalMs: performance.now() - sentAt });
    });
  });
}

/** Prints 0..99, then computes forever without printing. */
const BUSY = program('busy.mini', [
  'var i = 0;',
  'while (i < 100) { print(i); i = i + 1; }',
  'var x = 0;',
  'while (true) { x = (x * 31 + 7) % 1000003; }',
].join('\n'));

/** Allocates forever (collections all along), printing every 2000 objects. */
const ALLOC = program('alloc.mini', [
  'class N { var next: N; var v: int; }',
  'var i = 0;',
  'var head: N = null;',
  'while (true) { var n = new N(); n.next = head; head = n; i = i + 1; if (i % 2000 == 0) { head = null; print(i); } }',
].join('\n'));

const numbers = (n: number): string => Array.from({ length: n }, (_, i) => `${i}\n`).join('');

describe('signals', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s ends a busy run with one line and %i, keeping every printed line', async (signal, status) => {
    // The 100 lines arrive while the program still runs: output is not held to the end.
    const r = await interrupt(['run', BUSY], 100, signal);
    expect(r.signal).toBe(null);
    expect(r.code).toBe(status);
    expect(r.stderr).toBe(`minivm: interrupted by ${signal}\n`);
    expect(r.stdout).toBe(numbers(100));
  });

  it.each(['interp', 'compiled'] as const)('SIGINT ends a busy loop under --tier %s (compiled loops count their back-edges too)', async (tier) => {
    const r = await interrupt(['run', BUSY, '--tier', tier], 100, 'SIGINT');
    expect(r.code).toBe(130);
    expect(r.stderr).toBe('minivm: interrupted by SIGINT\n');
    expect(r.stdout).toBe(numbers(100));
  });

  it('a run writing --json-stats leaves no file, whole or half', async () => {
    const out = join(dir, 'stats.json');
    const r = await interrupt(['run', ALLOC, '--heap', '2m', '--json-stats', out], 3, 'SIGTERM');
    expect(r.code).toBe(143);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('the parallel pool shuts down: SIGINT mid-run ends the process', async () => {
    const r = await interrupt(['run', ALLOC, '--gc', 'parallel', '--threads', '2', '--heap', '2m', '--log-gc'], 5, 'SIGINT');
    expect(r.code).toBe(130);
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe('minivm: interrupted by SIGINT');
    expect(r.stdout).toMatch(/^(\d+\n)+$/);
  });

  it('SIGTERM at the first line under gpu-dfs, while the device may still be opening: 143 every time, no internal error', async () => {
    // Before the program stopped at the signal, it went on collecting on a marker
    // the shutdown had disposed (exit 70), or the process ended while the GPU
    // worker was inside Dawn (exit 134), in about half of such runs.
    for (let i = 0; i < 4; i++) {
      const r = await interrupt(['run', ALLOC, '--gc', 'gpu-dfs', '--heap', '2m'], 1, 'SIGTERM');
      expect(r.code, r.stderr).toBe(143);
      expect(r.stderr.trimEnd().split('\n').at(-1)).toBe('minivm: interrupted by SIGTERM');
    }
  });

  it('the GPU worker shuts down: SIGTERM mid-run under gpu-dfs (lavapipe) ends the process', async () => {
    const r = await interrupt(['run', ALLOC, '--gc', 'gpu-dfs', '--heap', '2m'], 3, 'SIGTERM');
    expect(r.code).toBe(143);
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe('minivm: interrupted by SIGTERM');
    expect(r.stdout).toMatch(/^(\d+\n)+$/);
  });
});

describe('output while a program runs', () => {
  it('a line printed before a long silent computation reaches a pipe at once', async () => {
    const file = program('one-line.mini', 'print("started");\nvar x = 0;\nwhile (true) { x = (x + 1) % 7; }\n');
    const r = await interrupt(['run', file], 1, 'SIGTERM');
    expect(r.stdout).toBe('started\n');
    expect(r.code).toBe(143);
  });
});
