// The program's arguments: `args(): string[]` and `parseInt(s: string): int`, checked,
// compiled and run in-process under both layouts (the array and its strings survive
// collections, moved or not), and through the CLI's `--`.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { defaultRunOptions, type RunOptions } from '../../src/cli/args.js';
import { runSource } from '../../src/cli/run.js';

async function run(source: string, args: string[], extra: Partial<RunOptions> = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const outcome = await runSource('args.mini', source, { ...defaultRunOptions(), ...extra, args }, {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
  });
  return { code: outcome.exitCode, out, err };
}

const ECHO = `
var a = args();
print(a.length);
for (var i = 0; i < a.length; i = i + 1) print(a[i] + "|" + a[i].length);
`;

describe('args()', () => {
  it('returns the arguments in order, unicode and option-like text included', async () => {
    const r = await run(ECHO, ['7', 'héllo wörld', '--heap', '', '😀']);
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toBe('5\n7|1\nhéllo wörld|11\n--heap|6\n|0\n😀|1\n');
  });

  it('is empty without arguments', async () => {
    expect((await run('print(args().length);', [])).out).toBe('0\n');
  });

  it.each(['sable', 'refgraph'] as const)('keeps one array whose strings survive collections (%s)', async (layout) => {
    const src = `
class Junk { var next: Junk; var pad: int[]; }
var first = args();
var j: Junk = null;
for (var i = 0; i < 5000; i = i + 1) { var k = new Junk(); k.pad = new int[8]; k.next = j; if (i % 100 == 0) j = null; else j = k; }
gc();
minorGc();
var again = args();
print(first == again);
print(again[0] + again[1]);
print(parseInt(again[2]) * 2);
`;
    const r = await run(src, ['ab', 'cd', '21'], { layout, heapBytes: 2 * 2 ** 20, gcStress: 7, verifyGc: true });
    expect(r.err).toBe('');
    expect(r.out).toBe('true\nabcd\n42\n');
  });

  it.each(['interp', 'compiled'] as const)('reads the same arguments and reports the same parseInt fault under --tier %s', async (tier) => {
    const src = 'var a = args();\nvar s = 0;\nfor (var i = 0; i < a.length; i = i + 1) s = s + parseInt(a[i]);\nprint(s);\n';
    expect(await run(src, ['1', '2', '39'], { tier, gcStress: 1 })).toMatchObject({ code: 0, out: '42\n', err: '' });
    const bad = await run(src, ['1', 'x'], { tier });
    expect(bad.code).toBe(70);
    expect(bad.err).toBe("runtime error: parseInt: 'x' is not an int\n  at main (args.mini:3)\n");
  });
});

describe('parseInt()', () => {
  it.each([
    ['42', 42], ['-7', -7], ['+5', 5], [' 13 ', 13], ['007', 7], ['2147483647', 2147483647], ['-2147483648', -2147483648],
  ])('reads %j as %i', async (text, value) => {
    const r = await run(`print(parseInt(args()[0]));`, [text]);
    expect(r).toMatchObject({ code: 0, out: `${value}\n` });
  });

  it.each(['', 'abc', '1.5', '1e3', '0x10', '2147483648', '-2147483649', '4 2'])('rejects %j with a runtime error', async (text) => {
    const r = await run(`print(parseInt(args()[0]));`, [text]);
    expect(r.code).toBe(70);
    expect(r.err).toMatch(/^runtime error: parseInt: '.*' is not an int\n  at main \(args\.mini:1\)/);
  });

  it('of null is a runtime error', async () => {
    const r = await run('var s: string = null;\nprint(parseInt(s));', []);
    expect(r.code).toBe(70);
    expect(r.err).toMatch(/^runtime error: parseInt of null/);
  });
});

describe('the checker', () => {
  it.each([
    ['var a: int[] = args();', /cannot|type/i],
    ['print(args(1));', /argument/i],
    ['print(parseInt(3));', /string|type/i],
    ['var n: string = parseInt("1");', /cannot|type/i],
    ['fun args(): int { return 1; }', /built-in/],
  ])('rejects %j', async (source, message) => {
    const r = await run(source, []);
    expect(r.code).toBe(65);
    expect(r.err).toMatch(message);
  });
});

describe('minivm run FILE -- ARGS', () => {
  it('passes everything after -- to the program', () => {
    const r = spawnSync(process.execPath, ['bin/minivm.js', 'run', 'bench/programs/binary_trees.mini', '--heap', '64m', '--', '6'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('long lived tree of depth 6 check: 127');
  });
});
