// The command line as a user meets it: the real `minivm` binary (built by `npm test`)
// with bad flags, missing files, compile errors, runtime faults, out of memory and no
// GPU adapter. Each gets its documented exit status and a clear message, never a
// JavaScript stack trace.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { minivm, scratch } from '../minivm.js';

const { dir, program } = scratch('minivm-cli-');

function expectNoJsTrace(stderr: string): void {
  expect(stderr).not.toMatch(/\n\s+at .*\.(js|ts):\d+:\d+/);
  expect(stderr).not.toMatch(/TypeError|ReferenceError|RangeError/);
}

describe('exit statuses', () => {
  it('runs a program: exit 0, output on stdout', () => {
    const r = minivm(['run', program('ok.mini', 'print(1 + 2);\nprint("done");\n')]);
    expect(r).toMatchObject({ status: 0, stdout: '3\ndone\n' });
  });

  it('accepts the file without the run command', () => {
    expect(minivm([program('ok2.mini', 'print(true);\n')]).stdout).toBe('true\n');
  });

  it('missing file: 64 with a one-line message and where the help is', () => {
    const r = minivm(['run', join(dir, 'nope.mini')]);
    expect(r.status).toBe(64);
    expect(r.stderr).toMatch(/^minivm: cannot read '.*nope\.mini': no such file\nsee 'minivm run --help'\n$/);
  });

  it.each([
    [['run', 'x.mini', '--gc', 'bogus'], /--gc must be one of none, serial/],
    [['run', 'x.mini', '--frobnicate'], /unknown option '--frobnicate'/],
    [['run', 'x.mini', '--heap', 'lots'], /--heap: 'lots' is not a size/],
    [['run', 'x.mini', '--tenure-age'], /--tenure-age needs a value/],
    [['run'], /no program file given/],
    [['run', 'programs/arrays.mini', '--gc', 'gpu-dfs', '--gpu-opt', 'bogus'], /--gpu-opt: unknown optimization 'bogus'/],
    [['run', 'programs/arrays.mini', '--heap', '1k'], /cannot set up the heap: heap too small/],
    [['run', 'programs/arrays.mini', '--tenure-age', '40'], /cannot set up the heap: tenureAge must be at most 31/],
  ])('bad command line %j: 64', (args, message) => {
    const r = minivm(args);
    expect(r.status).toBe(64);
    expect(r.stderr).toMatch(message);
    // One line of error, one pointing at the help; never the whole usage.
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(2);
    expect(r.stderr).toContain("see 'minivm run --help'");
  });

  it('compile errors: 65, every error with position, source line and caret', () => {
    const file = program('bad.mini', 'var x: int = true;\nprint(y);\n');
    const r = minivm(['run', file]);
    expect(r.status).toBe(65);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${file}:1:14: error: `);
    expect(r.stderr).toContain(`${file}:2:7: error: `);
    expect(r.stderr).toContain('var x: int = true;\n             ^');
    expectNoJsTrace(r.stderr);
  });

  it('syntax errors: 65', () => {
    const r = minivm(['run', program('syntax.mini', 'print(1 +);\n')]);
    expect(r.status).toBe(65);
    expect(r.stderr).toMatch(/syntax\.mini:1:\d+: error: /);
  });

  it('absurdly deep nesting: 65, not a crash', () => {
    const r = minivm(['run', program('deep.mini', `print(${'('.repeat(20000)}1${')'.repeat(20000)});\n`)]);
    expect(r.status).toBe(65);
    expect(r.stderr).toMatch(/deep\.mini:1:\d+: error: nesting deeper than 1000 levels/);
  });

  it('runtime errors: 70 with the stack, one line per frame', () => {
    const file = program('npe.mini', [
      'class Node { var next: Node; fun last(): Node { return this.next.next; } }',
      'fun walk(n: Node): Node {',
      '  return n.last();',
      '}',
      'print("before");',
      'walk(new Node());',
    ].join('\n'));
    const r = minivm(['run', file]);
    expect(r.status).toBe(70);
    expect(r.stdout).toBe('before\n');
    expect(r.stderr).toBe([
      'runtime error: null dereference',
      `  at Node.last (${file}:1)`,
      `  at walk (${file}:3)`,
      `  at main (${file}:6)`,
      '',
    ].join('\n'));
  });

  it('stack overflow: 70', () => {
    const r = minivm(['run', program('deep.mini', 'fun f(n: int): int { return f(n + 1) + 1; }\nprint(f(0));\n')]);
    expect(r.status).toBe(70);
    expect(r.stderr).toMatch(/^runtime error: stack overflow\n  at f \(.*deep\.mini:1\)/);
    expect(r.stderr.split('\n').length).toBeLessThan(50);
  });

  it('out of memory: 70, naming the heap size and --heap', () => {
    const file = program('oom.mini', [
      'class Cell { var next: Cell; var pad: int[]; }',
      'var head: Cell = null;',
      'while (true) { var c = new Cell(); c.pad = new int[64]; c.next = head; head = c; }',
    ].join('\n'));
    for (const gc of ['serial', 'none']) {
      const r = minivm(['run', file, '--gc', gc, '--heap', '2m']);
      expect(r.status).toBe(70);
      expect(r.stderr).toMatch(/^runtime error: out of memory: heap of 2 MiB exhausted \(raise it with --heap\)\n  at main/);
    }
  });

  it('an array larger than the whole heap: 70, out of memory', () => {
    const r = minivm(['run', program('huge.mini', 'var a = new int[2000000000];\nprint(a.length);\n'), '--heap', '8m']);
    expect(r.status).toBe(70);
    expect(r.stderr).toMatch(/^runtime error: out of memory: heap of 8 MiB exhausted \(raise it with --heap\)\n  at main/);
  });

  // String constants are interned before main's first instruction; a literal the heap
  // cannot hold is the program's fault there too. 300k characters: more words than the
  // whole 1 MiB heap (the allocation fails); 200k: fewer, but the collection cannot make room.
  it.each([300_000, 200_000])('a %i-character string literal with --heap 1m: 70, out of memory', (n) => {
    const file = program(`big-${n}.mini`, `var s = "${'x'.repeat(n)}";\nprint(s.length);\n`);
    for (const gc of ['serial', 'none']) {
      const r = minivm(['run', file, '--gc', gc, '--heap', '1m']);
      expect(r.status).toBe(70);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^runtime error: out of memory: heap of 1 MiB exhausted \(raise it with --heap\)\n  at main/);
      expect(r.stderr).not.toContain('internal error');
    }
  });

  it('no GPU adapter: 69 with how to get one', () => {
    const env = { VK_DRIVER_FILES: '/nonexistent/icd.json', VK_ICD_FILENAMES: '/nonexistent/icd.json' };
    const r = minivm(['run', program('gc.mini', 'gc();\nprint(1);\n'), '--gc', 'gpu-dfs'], { env });
    expect(r.status).toBe(69);
    expect(r.stderr).toMatch(/minivm: no WebGPU adapter found: .*scripts\/setup-vulkan\.sh/);
    expectNoJsTrace(r.stderr);
  });

  it('disasm prints the bytecode', () => {
    const r = minivm(['disasm', program('d.mini', 'class A { fun f(): int { return 1; } }\nprint(new A().f());\n')]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('fun #0 main');
    expect(r.stdout).toMatch(/INVOKE\s+0 1 +; slot 0 \(A.f\)/);
    expect(r.stdout).toContain('vtable: 0=A.f');
  });

  it('disasm --js prints the compiled tier\'s JavaScript', () => {
    const r = minivm(['disasm', '--js', program('d.mini', 'class A { fun f(): int { return 1; } }\nprint(new A().f());\n')]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('// fun #0 main');
    expect(r.stdout).toContain('const body = function f1_A_f(fp, vb, rb, q0) {');
    // The generated source is valid JavaScript.
    for (const part of r.stdout.split(/^\/\/ fun #\d+ .*$/m).slice(1)) {
      expect(() => new Function('R', 'M', 'T', 'heap', 'IC', 'W2', 'F64', part)).not.toThrow();
    }
  });

  it('delivers all output when stdout is a pipe', () => {
    const r = minivm(['run', program('many.mini', 'for (var i = 0; i < 100000; i = i + 1) print(i);\n')]);
    expect(r.status).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines.length).toBe(100001);
    expect(lines[99999]).toBe('99999');
  });

  it('--log-gc and --stats write to stderr', () => {
    const r = minivm(['run', program('gcs.mini', 'gc();\nminorGc();\nprint(1);\n'), '--log-gc', '--stats']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('1\n');
    expect(r.stderr).toMatch(/\[gc 1\] full \(gc\(\) call\) serial /);
    expect(r.stderr).toMatch(/\[gc 2\] young \(minorGc\(\) call\) serial /);
    expect(r.stderr).toMatch(/gc: 1 young, 1 full collections/);
  });
});

// A broken GPU library stands in through MINIVM_WEBGPU_MODULE (src/gpu/device/device.ts):
// a module that is not installed, or one whose load fails as dawn.node's does on a
// system with an older C library.
describe('GPU library failures', () => {
  const broken = program('brokendawn.mjs', [
    "const e = new Error(\"/lib64/libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required by /x/node_modules/webgpu/dist/linux-x64/dawn.node)\");",
    "e.code = 'ERR_DLOPEN_FAILED';",
    'throw e;',
  ].join('\n'));
  const gcProgram = program('lib.mini', 'gc();\nprint(1);\n');

  it('dawn.node that cannot load: 69, one line naming what is missing and which systems have it', () => {
    const r = minivm(['run', gcProgram, '--gc', 'gpu-dfs'], { env: { MINIVM_WEBGPU_MODULE: broken } });
    expect(r.status).toBe(69);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^minivm: the GPU library \(Dawn's dawn\.node, from the 'webgpu' package\) cannot be loaded: it needs GLIBCXX_3\.4\.30, .*Debian 12, Ubuntu 22\.04.*\n$/);
    expectNoJsTrace(r.stderr);
  });

  it('the webgpu package missing: 69, saying to run npm install', () => {
    const r = minivm(['run', gcProgram, '--gc', 'gpu-bfs'], { env: { MINIVM_WEBGPU_MODULE: 'webgpu-that-is-not-installed' } });
    expect(r.status).toBe(69);
    expect(r.stderr).toMatch(/^minivm: the GPU collectors need the 'webgpu' package, which is not installed: run npm install/);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('compare with the default collector list skips the GPU collectors with the reason and runs the rest', () => {
    const r = minivm(['compare', gcProgram, '--layout', 'sable'], { env: { MINIVM_WEBGPU_MODULE: broken } });
    expect(r.status).toBe(0);
    for (const gc of ['none', 'serial', 'parallel', 'auto']) expect(r.stdout).toMatch(new RegExp(`^${gc} +sable `, 'm'));
    expect(r.stdout).toMatch(/note: skipped gpu-dfs \(not requested explicitly\): the GPU library .* cannot be loaded/);
    expect(r.stdout).toMatch(/note: skipped gpu-bfs /);
  });

  it('compare naming a GPU collector: 69', () => {
    const r = minivm(['compare', gcProgram, '--gc', 'serial,gpu-dfs'], { env: { MINIVM_WEBGPU_MODULE: broken } });
    expect(r.status).toBe(69);
    expect(r.stderr).toMatch(/cannot be loaded/);
  });
});

describe("Dawn's own log lines", () => {
  it('never reach the user: a GPU run on lavapipe prints its statistics and no Warning: lines', () => {
    const r = minivm(['run', program('dawn.mini', 'class N { var next: N; }\nvar a = new N();\na.next = new N();\ngc();\nprint(7);\n'), '--gc', 'gpu-dfs', '--stats']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('7\n');
    expect(r.stderr).toMatch(/^gpu: .* start-up /m);
    expect(r.stderr).not.toMatch(/^(Warning|Error): /m);
    expect(r.stderr).not.toMatch(/artificially reduced/);
  }, 600_000);

  it("run the filtered child with V8's background pool sized to the cores, unless a size was given", async () => {
    const { childNodeArgs } = await import('../../src/cli/dawn-filter.js');
    expect(childNodeArgs([], 16)).toEqual(['--v8-pool-size=16']);
    expect(childNodeArgs(['--max-old-space-size=4096'], 2)).toEqual(['--max-old-space-size=4096', '--v8-pool-size=4']);
    expect(childNodeArgs(['--v8-pool-size=2'], 16)).toEqual(['--v8-pool-size=2']);
  });

  it('are told from minivm lines by isDawnLine', async () => {
    const { isDawnLine } = await import('../../src/cli/dawn-filter.js');
    expect(isDawnLine('Warning: maxDynamicUniformBuffersPerPipelineLayout artificially reduced from 1000000 to 16 to fit dynamic offset allocation limit.')).toBe(true);
    expect(isDawnLine(' - While calling [Device].CreateBuffer([BufferDescriptor]).')).toBe(true);
    for (const own of ['minivm: no WebGPU adapter found: x', 'runtime error: null dereference', '[0.071s][gc 1] young (eden full) gpu-dfs 1K->1K(8M) 1.00ms',
      '[0.071s][info][gc] GC(0) Pause Young (Allocation Failure) 1K->1K(8192K) 1.000ms', '[0.071s][debug][gc,phases] GC(0) GPU kernel 0.500ms',
      '{"number":1,"kind":"young"}', 'gpu: llvmpipe', '']) {
      expect(isDawnLine(own)).toBe(false);
    }
  });
});
