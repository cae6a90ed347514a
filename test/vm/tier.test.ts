// The compiled tier against the interpreter: every program prints the same output,
// and fails with the same message and stack trace, under `--tier compiled` (every
// function compiled before it runs) and `--tier auto` with a threshold of 1 (frames
// move between the tiers mid-run), under the CPU collectors and both layouts with
// stress collections and --verify-gc. `--gc-stress 2` makes every allocation collect
// before it succeeds, so compiled code unwinds to the interpreter at each one; it runs
// on the programs that allocate little (verifying the heap thousands of times is slow).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { miniFiles, readExpectations } from '../expectations.js';
import { defaultRunOptions, parseArgs, type RunOptions } from '../../src/cli/args.js';
import { compileSource } from '../../src/cli/compile-source.js';
import { disassembleJs, runSource } from '../../src/cli/run.js';
import { TIER_YIELD_MS } from '../../src/vm/tier/tier.js';

/** Bench programs at small sizes: their upper-case size globals cut to at most 3. */
function shrink(source: string): string {
  return source.replace(/^var ([A-Z][A-Z0-9_]*) = (\d+);/gm, (_, name: string, n: string) => `var ${name} = ${Math.min(Number(n), 3)};`);
}

const files = [
  ...miniFiles('programs'),
  ...miniFiles('test/programs'),
  ...miniFiles('bench/programs'),
];

type Config = { name: string; options: Partial<RunOptions> };

/** The sample and test programs under every collector family and layout. */
const programConfigs: Config[] = [
  { name: 'compiled serial/sable stress 251', options: { tier: 'compiled', gc: 'serial', layout: 'sable', heapBytes: 8 << 20, gcStress: 251, verifyGc: true } },
  { name: 'compiled parallel/refgraph stress 997', options: { tier: 'compiled', gc: 'parallel', layout: 'refgraph', heapBytes: 8 << 20, gcStress: 997, verifyGc: true } },
  { name: 'compiled none/sable vtable', options: { tier: 'compiled', gc: 'none', layout: 'sable', heapBytes: 512 << 20, dispatch: 'vtable' } },
  { name: 'auto(1) serial/refgraph stress 509 devirt', options: { tier: 'auto', tierThreshold: 1, gc: 'serial', layout: 'refgraph', heapBytes: 8 << 20, gcStress: 509, verifyGc: true, dispatch: 'devirt' } },
];

/** Programs that allocate little enough to collect before every allocation (gc stress 2);
 *  matched by whole file name, so that large_arrays.mini is not taken for arrays.mini. */
const everyAllocation = /(^|\/)(arrays|control_flow|globals_functions|inheritance_fields|numbers|polymorphism|strings|errors\/(?!out_of_memory).*)\.mini$/;
const stressEvery: Config = {
  name: 'compiled serial/refgraph stress 2',
  options: { tier: 'compiled', gc: 'serial', layout: 'refgraph', heapBytes: 8 << 20, gcStress: 2, verifyGc: true },
};

/** The benchmark programs, shrunk, under fewer configurations (they are many). */
const benchConfigs: Config[] = [
  { name: 'compiled serial/refgraph stress 251', options: { tier: 'compiled', gc: 'serial', layout: 'refgraph', heapBytes: 8 << 20, gcStress: 251, verifyGc: true } },
  { name: 'auto(1) serial/sable stress 509', options: { tier: 'auto', tierThreshold: 1, gc: 'serial', layout: 'sable', heapBytes: 8 << 20, gcStress: 509, verifyGc: true } },
];

async function run(file: string, source: string, base: Partial<RunOptions>, flags: string[]) {
  const options: RunOptions = { ...defaultRunOptions(), ...base };
  // The program's own flags (a smaller heap, say) win over the configuration's.
  if (flags.length > 0) {
    const own = parseArgs([...flags, file]).run as unknown as Record<string, unknown>;
    const d = defaultRunOptions() as unknown as Record<string, unknown>;
    for (const [k, v] of Object.entries(own)) if (d[k] !== v) (options as unknown as Record<string, unknown>)[k] = v;
  }
  let stdout = '', stderr = '';
  const outcome = await runSource(file, source, options, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { exitCode: outcome.exitCode, stdout, stderr, tier: outcome.tier };
}

describe('compiled tier', () => {
  for (const file of files) {
    const raw = readFileSync(file, 'utf8');
    const source = file.startsWith('bench/') ? shrink(raw) : raw;
    const flags = readExpectations(raw).flags;
    let reference: ReturnType<typeof run> | undefined;
    const configs = file.startsWith('bench/') ? benchConfigs : programConfigs;
    for (const c of everyAllocation.test(file) ? [...configs, stressEvery] : configs) {
      it(`${file} [${c.name}]`, async () => {
        reference ??= run(file, source, { tier: 'interp', gc: 'serial', heapBytes: 8 << 20 }, flags);
        const want = await reference;
        const got = await run(file, source, c.options, flags);
        expect(got.stderr).toBe(want.stderr);
        expect(got.stdout).toBe(want.stdout);
        expect(got.exitCode).toBe(want.exitCode);
        if (c.options.tier === 'compiled' && want.exitCode !== 65) expect(got.tier!.compiledFunctions).toBeGreaterThan(0);
      }, 300_000);
    }
  }
});

describe('compiled tier: calls', () => {
  const icProgram = `
class Shape { fun area(): int { return 0; } }
class Square extends Shape { var s: int; fun area(): int { return this.s * this.s; } }
class Circle extends Shape { var r: int; fun area(): int { return 3 * this.r * this.r; } }
fun total(shapes: Shape[]): int {
  var sum = 0;
  for (var i = 0; i < shapes.length; i = i + 1) sum = sum + shapes[i].area();
  return sum;
}
var shapes = new Shape[10];
for (var i = 0; i < 10; i = i + 1) { var q = new Square(); q.s = i; shapes[i] = q; }
print(total(shapes));
var c = new Circle(); c.r = 2; shapes[3] = c;
print(total(shapes));
`;

  it('inlines a small method where class-hierarchy analysis finds one target, with the frames of a call', async () => {
    const inlining = `
class Vec {
  var items: int[];
  var first: int;
  init(n: int) { this.items = new int[n]; }
  fun at(i: int): int { return this.items[this.first + i]; }
  fun size(): int { return this.items.length - this.first; }
}
class Box { var v: Vec; }
fun vecOf(b: Box): Vec { return b.v; }
var v = new Vec(4);
var s = 0;
for (var i = 0; i < v.size(); i = i + 1) s = s + v.at(i) + i;
print(s);
var b = new Box();
b.v = v;
print(vecOf(b).size());
if (args().length > 0) print(v.at(parseInt(args()[0])));
else print(vecOf(null).size());
`;
    const io = { stdout: () => undefined, stderr: (t: string) => { throw new Error(t); } };
    const js = await disassembleJs(compileSource('inline.mini', inlining, io)!, defaultRunOptions(), io);
    const main = js.slice(js.indexOf('// fun #0 main\n'), js.indexOf('// fun #1'));
    // No call to at, size or vecOf is left in main: their loads and checks are in place.
    expect(main).not.toMatch(/T\[t\]|R\.icMiss/);
    expect(main).toContain('R.indexFault(');
    for (const args of [[], ['7']]) {
      const want = await run('inline.mini', inlining, { tier: 'interp', args }, []);
      const got = await run('inline.mini', inlining, { tier: 'compiled', args }, []);
      expect(want.stdout).toBe('6\n4\n');
      expect(want.stderr).toMatch(/^runtime error: (null dereference\n  at vecOf|index 7 out of bounds for length 4\n  at Vec\.at)/);
      expect(got).toMatchObject({ stdout: want.stdout, stderr: want.stderr, exitCode: want.exitCode });
    }
  });

  it('keeps an inline cache correct when its site meets a second class', async () => {
    for (const dispatch of ['ic', 'vtable', 'devirt'] as const) {
      const r = await run('ic.mini', icProgram, { tier: 'compiled', dispatch }, []);
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe('285\n288\n');
      if (dispatch === 'ic') expect(r.tier!.icSites.polymorphic).toBe(1);
    }
  });

  it('recurses deeper than one chain of compiled frames and reports overflow as the interpreter does', async () => {
    const deep = `
fun down(n: int): int { if (n == 0) return 0; return down(n - 1) + 1; }
print(down(15000));
fun forever(n: int): int { return forever(n + 1) + 1; }
print(forever(0));
`;
    const want = await run('deep.mini', deep, { tier: 'interp' }, []);
    for (const tier of ['compiled', 'auto'] as const) {
      const got = await run('deep.mini', deep, { tier, tierThreshold: tier === 'auto' ? 3 : undefined }, []);
      expect(got.stdout).toBe('15000\n');
      expect(got.stderr).toBe(want.stderr);
      expect(got.stderr).toMatch(/^runtime error: stack overflow\n  at forever \(deep.mini:4\)/);
    }
  });
});

describe('compiled tier: leaving for the event loop', () => {
  // Two loops in main, the first of 3 million back-edges: the interpreter's rhythm
  // (every 16384 back-edges) would leave compiled code 183 times.
  const loops = `
var x = 0;
for (var i = 0; i < 3000000; i = i + 1) { x = (x * 31 + i) % 1000003; }
var k = 0;
while (k < 1000) { x = x + 1; k = k + 1; }
print(x);
`;

  it('leaves a compiled loop only when the event loop is due', async () => {
    const want = await run('loops.mini', loops, { tier: 'interp' }, []);
    const t0 = performance.now();
    const got = await run('loops.mini', loops, { tier: 'compiled' }, []);
    const ms = performance.now() - t0;
    expect(got.stderr).toBe('');
    expect(got.stdout).toBe(want.stdout);
    // The first look at each back-edge only rehearses the leaving path (it runs, and the loop goes on).
    expect(got.tier!.unwinds).toBeLessThanOrEqual(1 + ms / TIER_YIELD_MS);
  });

  it('looks at the clock at each back-edge, and enters a loop head through a form of its own', async () => {
    const io = { stdout: () => undefined, stderr: (t: string) => { throw new Error(t); } };
    const nested = 'var s = 0;\nfor (var i = 0; i < 10; i = i + 1) { for (var j = 0; j < i; j = j + 1) { s = s + j; } }\nprint(s);\n';
    const js = await disassembleJs(compileSource('loops.mini', loops + nested, io)!, defaultRunOptions(), io);
    const forms = js.split(/^(?=\/\/ fun #0 main)/m).filter((x) => x !== '');
    const [body, ...heads] = forms;
    // The body is structured: each loop a JavaScript loop; each back-edge looks at the clock and
    // rehearses its own leaving path once, the first when the tick count runs out, the others when armed by it.
    expect(body).not.toContain('switch (b)');
    expect(body!.match(/continue L\d+;/g)).toHaveLength(4);
    expect(body).toContain('let arm = 0, done = 0;');
    for (const bit of [1, 2, 4, 8]) {
      expect(body).toContain(`if ((--R.ticks === 0 || (arm & ${bit}) !== 0) && R.yieldDue((done & ${bit}) === 0))`);
      expect(body).toContain(`=== 0) return 0; done |= ${bit}; arm = 15 & ~done; }`);
    }
    // A form per loop head: structured from a loop at the top level on; behind the dispatch,
    // with one look at the clock, for a loop inside another.
    expect(heads).toHaveLength(4);
    for (const h of heads) expect(h.split('\n')[0]).toMatch(/^\/\/ fun #0 main, entered at loop head \d+$/);
    const dispatched = heads.filter((h) => h.includes('switch (b)'));
    expect(dispatched).toHaveLength(1);
    expect(dispatched[0]!.match(/R\.yieldDue\(/g)).toHaveLength(1);
    for (const h of heads.filter((x) => !x.includes('switch (b)'))) expect(h).toMatch(/^L\d+: for \(;;\) \{$/m);
  });
});
