// `minivm test`: the `// expect:` runner, as a user sees it (the real binary), and
// the shared check of a run against a file's expectations (src/cli/expectations.ts).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkRun, readExpectations } from '../../src/cli/expectations.js';
import { minivm, scratch } from '../minivm.js';

const GOOD = 'print(1 + 1); // expect: 2\nprint("x"); // expect: x\n';
const WRONG = 'print(1 + 1); // expect: 2\nprint("x"); // expect: y\n';

describe('minivm test', () => {
  it('passes a file whose output matches its expectations (exit 0)', () => {
    const s = scratch('minivm-test-');
    const file = s.program('good.mini', GOOD);
    const r = minivm(['test', file]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('ok: 1 passed, 0 failed (1 file x 1 configuration: serial/sable)\n');
    expect(r.status).toBe(0);
  });

  it('fails a file with a wrong expectation: one line with the difference, exit 1', () => {
    const s = scratch('minivm-test-');
    const file = s.program('wrong.mini', WRONG);
    const r = minivm(['test', file]);
    expect(r.stdout).toBe(
      `FAIL ${file} [serial/sable]: output line 2: expected "y", got "x"\n` +
        'FAILED: 0 passed, 1 failed (1 file x 1 configuration: serial/sable)\n',
    );
    expect(r.status).toBe(1);
  });

  it('searches a folder recursively and runs each file under every collector and layout of the lists', () => {
    const s = scratch('minivm-test-');
    mkdirSync(join(s.dir, 'deeper', 'still'), { recursive: true });
    s.program('a.mini', GOOD);
    s.program('deeper/b.mini', GOOD);
    const wrong = s.program('deeper/still/c.mini', WRONG);
    s.program('deeper/notes.txt', 'not a program');
    const r = minivm(['test', s.dir, '--gc', 'none,serial', '--layout', 'sable,refgraph', '--heap', '8m']);
    const fails = r.stdout.split('\n').filter((l) => l.startsWith('FAIL '));
    expect(fails).toEqual(['none/sable', 'none/refgraph', 'serial/sable', 'serial/refgraph'].map(
      (c) => `FAIL ${wrong} [${c}]: output line 2: expected "y", got "x"`,
    ));
    expect(r.stdout).toContain('FAILED: 8 passed, 4 failed (3 files x 4 configurations: none/sable, none/refgraph, serial/sable, serial/refgraph)\n');
    expect(r.status).toBe(1);
  });

  it("checks runtime and compile errors, and applies a file's // flags: line", () => {
    const s = scratch('minivm-test-');
    s.program('runtime.mini', 'print(1); // expect: 1\nvar a = new int[2];\nprint(a[3]); // expect runtime error: index 3 out of bounds\n');
    s.program('compile.mini', 'var n: int = "text"; // error: cannot assign string to int\n');
    // About 10 MB stays reachable: only the 4m heap of its flags line runs out (the default is 256m).
    s.program('oom.mini', '// flags: --heap 4m\nvar head: Object[] = null;\nfor (var i = 0; i < 20000; i = i + 1) {\n  var c = new Object[128]; // expect runtime error: out of memory\n  c[0] = head;\n  head = c;\n}\n');
    const r = minivm(['test', s.dir]);
    expect(r.stdout).toBe('ok: 3 passed, 0 failed (3 files x 1 configuration: serial/sable)\n');
    expect(r.status).toBe(0);
  });

  it('reports usage errors with exit 64', () => {
    const s = scratch('minivm-test-');
    const file = s.program('good.mini', GOOD);
    mkdirSync(join(s.dir, 'empty'));
    const cases: Array<[string[], string]> = [
      [['test', join(s.dir, 'missing.mini')], `cannot read '${join(s.dir, 'missing.mini')}': no such file or folder`],
      [['test', join(s.dir, 'empty')], `no .mini files under '${join(s.dir, 'empty')}'`],
      [['test', file, '--gc', 'serial,nope'], "--gc must be one of none, serial, parallel, gpu-dfs, gpu-bfs, auto (got 'nope')"],
      [['test', file, '--report', 'x.html'], 'test does not take --report (it is an option of compare, heapshape)'],
      [['test', file, '--', 'arg'], 'test takes no program arguments (after --)'],
      [['test', file, '--heap'], '--heap needs a value (SIZE)'],
    ];
    for (const [argv, message] of cases) {
      const r = minivm(argv);
      expect(r.stderr, argv.join(' ')).toBe(`minivm: ${message}\nsee 'minivm test --help'\n`);
      expect(r.stdout, argv.join(' ')).toBe('');
      expect(r.status, argv.join(' ')).toBe(64);
    }
  });

  it('fails the runs of a GPU collector that cannot start, with the reason, and still runs the rest', () => {
    const s = scratch('minivm-test-');
    const file = s.program('good.mini', GOOD);
    const r = minivm(['test', file, '--gc', 'gpu-bfs,serial'], { env: { MINIVM_WEBGPU_MODULE: 'webgpu-that-is-not-installed' } });
    expect(r.stdout).toMatch(new RegExp(`^FAIL ${file.replace(/[.\\/]/g, '\\$&')} \\[gpu-bfs/sable\\]: the run could not start: exit 69: "minivm: the GPU collectors need the 'webgpu' package`, 'm'));
    expect(r.stdout).toMatch(/^FAILED: 1 passed, 1 failed \(1 file x 2 configurations: gpu-bfs\/sable, serial\/sable\)$/m);
    expect(r.status).toBe(1);
  });

  it('reports a bad // flags: line as the failure of that file', () => {
    const s = scratch('minivm-test-');
    const file = s.program('flags.mini', '// flags: --heap lots\nprint(1); // expect: 1\n');
    const r = minivm(['test', file]);
    expect(r.stdout).toContain(`FAIL ${file} [serial/sable]: bad '// flags:' line: --heap: 'lots' is not a size`);
    expect(r.status).toBe(1);
  });
});

describe('checkRun', () => {
  const ok = { exitCode: 0, stdout: '', stderr: '' };

  it('wants the compile error message on the line that states it, and no other error', () => {
    const exp = readExpectations('var a = 1;\nvar n: int = "t"; // error: cannot assign string to int\n');
    const report = (line: number, msg: string): string => `f.mini:${line}:5: error: ${msg}\n  source\n    ^\n`;
    expect(checkRun(exp, { exitCode: 65, stdout: '', stderr: report(2, 'cannot assign string to int') })).toBeUndefined();
    expect(checkRun(exp, { exitCode: 65, stdout: '', stderr: report(2, 'something else') })?.message)
      .toBe('line 2: expected error "cannot assign string to int", got "something else"');
    expect(checkRun(exp, { exitCode: 65, stdout: '', stderr: report(1, 'cannot assign string to int') })?.message)
      .toBe('line 2: expected error "cannot assign string to int", got none on that line');
    const extra = report(2, 'cannot assign string to int') + report(1, 'stray');
    expect(checkRun(exp, { exitCode: 65, stdout: '', stderr: extra })?.message).toBe('line 1: unexpected error "stray"');
    expect(checkRun(exp, ok)?.message).toBe('expected a compile error (exit 65), got exit 0');
  });

  it('wants the runtime error after the expected output, with a stack trace', () => {
    const exp = readExpectations('print(1); // expect: 1\nboom(); // expect runtime error: null dereference\n');
    const trace = 'runtime error: null dereference\n  at main (f.mini:2)\n';
    expect(checkRun(exp, { exitCode: 70, stdout: '1\n', stderr: trace })).toBeUndefined();
    expect(checkRun(exp, { exitCode: 70, stdout: '1\n', stderr: 'runtime error: null dereference\n' })?.message).toMatch(/no stack trace/);
    expect(checkRun(exp, { exitCode: 0, stdout: '1\n', stderr: '' })?.message)
      .toBe('expected runtime error "null dereference" (exit 70), got exit 0');
    expect(checkRun(exp, { exitCode: 70, stdout: '1\n', stderr: 'runtime error: stack overflow\n  at main (f.mini:2)\n' })?.message)
      .toBe('expected "runtime error: null dereference", got "runtime error: stack overflow"');
  });

  it('names missing, extra and unexpected-exit output in one line', () => {
    const exp = readExpectations('print(1); // expect: 1\nprint(2); // expect: 2\n');
    expect(checkRun(exp, { ...ok, stdout: '1\n' })?.message).toBe('output line 2: expected "2", got nothing (the output ended)');
    expect(checkRun(exp, { ...ok, stdout: '1\n2\n3\n' })?.message).toBe('output line 3: expected nothing more (2 lines), got "3"');
    expect(checkRun(exp, { exitCode: 70, stdout: '1\n', stderr: 'runtime error: x\n' })?.message)
      .toBe('output line 2: expected "2", got nothing (the output ended) (and exit 70: "runtime error: x")');
    expect(checkRun(exp, { exitCode: 70, stdout: '1\n2\n', stderr: 'runtime error: x\n' })?.message)
      .toBe('expected exit 0, got exit 70: "runtime error: x"');
  });
});
