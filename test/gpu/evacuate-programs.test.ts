// Every program prints what its expectations say under gpu-dfs and gpu-bfs, both
// layouts, evacuating young collections on the GPU (`--gpu-opt evacuate=gpu`), with
// --gc-stress forcing collections and --verify-gc comparing each GPU evacuation
// with the CPU's computation of it (gc/verify-evacuation.ts) besides the heap walk.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { expectRun, miniFiles, readExpectations, runCaptured } from '../expectations.js';
import { scratch } from '../minivm.js';
import { releaseGpu } from '../../src/collectors/index.js';

// A large array (tenured from its allocation) holding young nodes, some replaced
// between collections: every full collection's dirty cards name young objects,
// which its evacuation moves, so the remembered set it scans (on the GPU with
// remset=0) must redirect every one.
const FULL_REMSET = `
class Node {
  var v: int;
  var next: Node;
  init(v: int) { this.v = v; }
}
var slots = new Node[40000];
var sum = 0;
for (var round = 0; round < 4; round = round + 1) {
  for (var i = round; i < 40000; i = i + 3) {
    var n = new Node(i + round);
    n.next = new Node(i);
    slots[i] = n;
  }
  gc();
  minorGc();
  gc();
}
for (var i = 0; i < 40000; i = i + 1) {
  if (slots[i] != null) sum = sum + slots[i].v + slots[i].next.v;
}
print(sum);
`;
const fullRemset = scratch('minivm-full-remset-').program('full_remset.mini', FULL_REMSET);

const files = miniFiles('programs');

afterAll(() => releaseGpu());

describe('programs with evacuate=gpu', () => {
  // With `evacuate=cpu` the refgraph layout keeps no heap mirror, and the CPU evacuates.
  it('programs/linked_list.mini [gpu-dfs, refgraph, evacuate=cpu]', async () => {
    const run = await runCaptured('programs/linked_list.mini', {
      gc: 'gpu-dfs', layout: 'refgraph', gpuOpt: 'evacuate=cpu', heapBytes: 4 * 2 ** 20, gcStress: 400, verifyGc: true, logGc: true,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/\] young /);
    expect(run.stderr).not.toMatch(/evacuate=gpu/);
  });

  // The read-back written into the heap by writer threads beside the GPU worker.
  it('programs/gc_stress.mini [gpu-dfs, writers=2]', async () => {
    const run = await runCaptured('programs/gc_stress.mini', {
      gc: 'gpu-dfs', layout: 'sable', gpuOpt: 'evacuate=gpu,writers=2,remset=0', heapBytes: 4 * 2 ** 20, gcStress: 400, verifyGc: true, logGc: true,
    });
    const serial = await runCaptured('programs/gc_stress.mini', { gc: 'serial', heapBytes: 4 * 2 ** 20 });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toBe(serial.stdout);
    expect(run.stderr).toMatch(/evacuate=gpu .* writers=2/);
  }, 600_000);

  // Without --verify-gc the live list never leaves the device, and the device finds
  // the roots' referents in it for their new addresses: a wrong one would redirect
  // a root to another object, or leave it behind.
  for (const gc of ['gpu-dfs', 'gpu-bfs'] as const) {
    for (const file of ['programs/gc_stress.mini', 'programs/old_to_young.mini', 'programs/linked_list.mini']) {
      it(`${file} [${gc}, roots redirected from the device's search]`, async () => {
        const run = await runCaptured(file, { gc, layout: 'sable', gpuOpt: 'evacuate=gpu', heapBytes: 4 * 2 ** 20, gcStress: 400, logGc: true });
        const serial = await runCaptured(file, { gc: 'serial', heapBytes: 4 * 2 ** 20 });
        expect(run.exitCode, run.stderr).toBe(0);
        expect(run.stdout).toBe(serial.stdout);
        const onGpu = run.stderr.split('\n').filter((l) => / evacuate=gpu /.test(l));
        // The evacuation goes with the mark, and its finish with it when the promotions
        // fit the buffer carved ahead; gc_stress's others take a request of their own.
        expect(onGpu.some((l) => / requests=0/.test(l))).toBe(true);
        if (file === 'programs/gc_stress.mini') expect(onGpu.some((l) => / requests=1/.test(l))).toBe(true);
      }, 600_000);
    }
  }

  // A full collection scans the remembered set on the GPU too, after its mark;
  // under refgraph its runs' objects place the rebuilt graphs' edges.
  for (const [gc, layout] of [['gpu-dfs', 'sable'], ['gpu-bfs', 'sable'], ['gpu-dfs', 'refgraph']] as const) {
    it(`old-to-young slots through full collections [${gc}, ${layout}, remset=0]`, async () => {
      const run = await runCaptured(fullRemset, { gc, layout, gpuOpt: 'remset=0', heapBytes: 4 * 2 ** 20, verifyGc: true, logGc: true });
      const serial = await runCaptured(fullRemset, { gc: 'serial', heapBytes: 4 * 2 ** 20 });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(serial.stdout).toBe('1600039998\n');
      expect(run.stdout).toBe(serial.stdout);
      expect(run.stderr.match(/\] full /g)?.length).toBe(8);
    }, 600_000);
  }

  for (const file of files) {
    const exp = readExpectations(readFileSync(file, 'utf8'));
    if (exp.compileErrors.length > 0) continue;
    for (const [gc, layout] of [['gpu-dfs', 'sable'], ['gpu-bfs', 'sable'], ['gpu-dfs', 'refgraph'], ['gpu-bfs', 'refgraph']] as const) {
      it(`${file} [${gc}, ${layout}]`, async () => {
        // The log goes to stderr, where a runtime error's message must come first.
        const logGc = exp.runtimeError === undefined;
        const run = await expectRun(file, exp, { gc, layout, gpuOpt: 'evacuate=gpu', heapBytes: 4 * 2 ** 20, gcStress: 400, verifyGc: true, logGc, stats: true });
        const young = run.stats?.youngCollections ?? 0;
        const onGpu = run.stderr.match(/evacuate=gpu/g)?.length ?? 0;
        const reasons = [...run.stderr.matchAll(/evacuate=cpu \(([^)]*)\)/g)].map((m) => m[1]);
        // The CPU evacuates full collections and young ones whose promotions find no chunk: nothing else.
        for (const r of reasons) expect(r).toMatch(/^(full collection|no free chunk of \d+ bytes for the promotions)$/);
        if (young > 0 && logGc) expect(onGpu).toBeGreaterThan(0);
        // --gc-stress on lavapipe: hundreds of GPU collections for the larger programs.
      }, 600_000);
    }
  }
});
