/**
 * The hostile-input corpus (test/bad/): every file is run by the real `minivm` and
 * must end with the exit status and first message line of its `.expected` sidecar,
 * in bounded time, never with a JavaScript stack trace. `NAME.mini` runs as
 * `minivm run NAME.mini --heap 1m`; `NAME.cli` holds the arguments, one a line
 * (`{ok}` a valid program, `{dir}` a directory). Huge sources are generated here
 * rather than committed.
 */

import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scratch } from './minivm.js';

const BAD = 'test/bad';
const { dir } = scratch('minivm-bad-');
writeFileSync(join(dir, 'ok.mini'), 'print(1);\n');
/** Every case's bound; ordinary ones end in a few seconds even on a loaded machine. */
const LIMIT_MS = 90_000;

interface Outcome {
  status: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

function minivm(args: string[]): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(process.execPath, ['bin/minivm.js', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const guard = setTimeout(() => child.kill('SIGKILL'), LIMIT_MS);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(guard);
      resolve({ status, stdout, stderr, ms: performance.now() - t });
    });
  });
}

function expectClean(r: Outcome): void {
  expect(r.ms).toBeLessThan(LIMIT_MS);
  expect(r.stderr).not.toMatch(/\n\s+at .*\.(js|ts|mjs):\d+/);
  expect(r.stderr).not.toMatch(/RangeError|TypeError|ReferenceError|Maximum call stack|internal error/);
}

const cases = readdirSync(BAD).filter((f) => f.endsWith('.mini') || f.endsWith('.cli')).sort();

describe('test/bad corpus', () => {
  it('holds at least 60 cases, each with its .expected', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
    const expected = new Set(readdirSync(BAD).filter((f) => f.endsWith('.expected')));
    for (const c of cases) expect(expected.has(c.replace(/\.(mini|cli)$/, '.expected'))).toBe(true);
  });

  it.concurrent.each(cases)('%s', async (name) => {
    const base = name.replace(/\.(mini|cli)$/, '');
    const want = readFileSync(join(BAD, `${base}.expected`), 'utf8');
    const exit = Number(/^exit: (\d+)$/m.exec(want)![1]);
    const args = name.endsWith('.cli')
      ? readFileSync(join(BAD, name), 'utf8').trim().split('\n').map((a) => a.replace('{ok}', join(dir, 'ok.mini')).replace('{dir}', dir))
      : ['run', join(BAD, name), '--heap', '1m'];
    const r = await minivm(args);
    expectClean(r);
    expect({ status: r.status }).toEqual({ status: exit });
    const err = /^stderr: (.*)$/m.exec(want);
    if (err) expect(r.stderr.split('\n')[0]).toBe(err[1]!.replaceAll('{dir}', dir));
    else expect(r.stdout).toBe(JSON.parse(/^stdout: (.*)$/m.exec(want)![1]!));
  });
});

/** Generated sources: [name, text, exit, first stderr line or stdout]. */
const huge: Array<[string, () => string, number, RegExp]> = [
  ['10,000 nested parentheses', () => `print(${'('.repeat(10_000)}1${')'.repeat(10_000)});\n`, 65, /^\S+:1:1006: error: nesting deeper than 1000 levels$/m],
  ['10,000 unary minuses', () => `print(${'- '.repeat(10_000)}1);\n`, 65, /^\S+:1:2005: error: nesting deeper than 1000 levels$/m],
  ['5,000 nested blocks', () => `${'{'.repeat(5000)}print(1);${'}'.repeat(5000)}\n`, 65, /^\S+:1:1001: error: nesting deeper than 1000 levels$/m],
  ['5,000 nested ifs', () => `var x = 1;\n${'if (x > 0) '.repeat(5000)}print(1);\n`, 65, /^\S+:2:\d+: error: nesting deeper than 1000 levels$/m],
  ['500 nested parentheses compile', () => `print(${'('.repeat(500)}7${')'.repeat(500)});\n`, 0, /^7\n$/],
  ['a 50,000-term sum on one line', () => `print(${Array(50_000).fill('1').join('+')});\n`, 0, /^50000\n$/],
  ['990 nested loops with breaks', () => `var x = 1;\nvar s = 0;\n${'while (x > 0) { s = s + 1; if (s > 5) break; '.repeat(990)}${'x = 0; }'.repeat(990)}\nprint(s);\n`, 0, /^6\n$/],
  ['a 20,000-term string concatenation', () => `print(${Array(20_000).fill('"a"').join(' + ')});\n`, 0, /^a{20000}\n$/],
  ['a 100,000-character line with an error at its end', () => `var s = "${'x'.repeat(100_000)}";\nprint(s.length)\n`, 65, /^\S+:2:16: error: expected ';'/m],
  ['an integer literal past the range', () => 'print(4294967296);\n', 65, /^\S+:1:7: error: integer literal 4294967296 does not fit in 32 bits$/m],
  ['a 10,000-field class', () => `class W {\n${Array.from({ length: 10_000 }, (_, i) => `  var f${i}: int;\n`).join('')}}\nvar w = new W();\nw.f9999 = 3;\nprint(w.f9999);\n`, 0, /^3\n$/],
  ['a 5,000-class chain declared subclass first', () => `${Array.from({ length: 4999 }, (_, i) => `class C${i} extends C${i + 1} { }\n`).join('')}class C4999 { var x: int; }\nvar c = new C0();\nc.x = 5;\nprint(c.x);\n`, 0, /^5\n$/],
  ['a 5 MB source', () => `var x = 0;\n${`// ${'-'.repeat(240)}\nx = x + 1;\n`.repeat(20_000)}print(x);\n`, 0, /^20000\n$/],
];

describe('generated hostile sources', () => {
  it.concurrent.each(huge)('%s', async (name, text, exit, want) => {
    const file = join(dir, `${name.replace(/\W+/g, '-')}.mini`);
    writeFileSync(file, text());
    const r = await minivm(['run', file, '--heap', '64m']);
    expectClean(r);
    expect({ status: r.status, stderr: exit === 0 ? r.stderr : '' }).toEqual({ status: exit, stderr: '' });
    expect(exit === 0 ? r.stdout : r.stderr).toMatch(want);
  });
});
