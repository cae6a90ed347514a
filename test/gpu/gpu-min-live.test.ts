// `--gpu-min-live` on lavapipe: a GPU collector whose collections take turns
// between the device and the CPU (the small ones) prints serial's output, and
// --verify-gc checks the device's heap copy after each of its collections, so a
// mirror that missed the CPU's moves in between fails here. The threshold is set
// so that both kinds of collection occur (a software adapter's default is 0:
// every collection on the device).
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runCaptured } from '../expectations.js';
import { releaseGpu } from '../../src/collectors/index.js';
import { parseArgs } from '../../src/cli/args.js';
import { compareCommand, type CompareResult } from '../../src/cli/compare.js';

afterAll(() => releaseGpu());

const HEAP = 32 * 2 ** 20;

describe('GPU collectors with --gpu-min-live', () => {
  for (const layout of ['sable', 'refgraph'] as const) {
    for (const gc of ['gpu-dfs', 'gpu-bfs'] as const) {
      for (const program of ['old_to_young', 'gc_stress']) {
        it(`programs/${program}.mini [${gc}, ${layout}, --gpu-min-live 100k]`, async () => {
          const file = `programs/${program}.mini`;
          const run = await runCaptured(file, { gc, layout, heapBytes: HEAP, gpuMinLiveBytes: 100 << 10, verifyGc: true, logGc: true, stats: true });
          const serial = await runCaptured(file, { gc: 'serial', heapBytes: HEAP });
          expect(run.exitCode, run.stderr).toBe(0);
          expect(run.stdout.startsWith(serial.stdout), run.stdout).toBe(true);
          const lines = run.stderr.split('\n').filter((l) => /\[gc \d+\]/.test(l));
          const onCpu = lines.filter((l) => l.includes(`${gc}(cpu)`));
          expect(onCpu.length).toBeGreaterThan(0);
          // A full collection's threshold is four times a young one's.
          expect(onCpu.every((l) => new RegExp(`on-cpu \\(predicted [^ ]+ live, under --gpu-min-live ${/\] full /.test(l) ? '400K' : '100K'}\\)`).test(l))).toBe(true);
          const onDevice = lines.filter((l) => !l.includes('(cpu)'));
          expect(onDevice.length).toBeGreaterThan(0);
          // A device collection after a CPU one: its mirror had to take the CPU's moves.
          const order = lines.map((l) => (l.includes('(cpu)') ? 'c' : 'G')).join('');
          expect(order).toMatch(/cG/);
          expect(run.stats?.gpu).toMatchObject({ minLiveBytes: 100 << 10, cpuCollections: onCpu.length });
        }, 600_000);
      }
    }
  }
});

describe('compare with --gpu-min-live', () => {
  it('counts a GPU collector\'s collections on the GPU and on the CPU', async () => {
    const argv = ['compare', 'programs/old_to_young.mini', '--gc', 'serial,gpu-bfs', '--layout', 'sable', '--heap', '32m', '--gpu-min-live', '100k'];
    const run = async (extra: string[]) => {
      const cmd = parseArgs([...argv, ...extra]);
      let stdout = '';
      const code = await compareCommand(cmd, readFileSync(cmd.file, 'utf8'), { stdout: (t) => (stdout += t), stderr: () => {} });
      expect(code).toBe(0);
      return stdout;
    };
    const json = JSON.parse(await run(['--json'])) as CompareResult;
    const gpu = json.runs.find((r) => r.collector === 'gpu-bfs')!;
    expect(gpu.gpu).toMatchObject({ collections: gpu.youngCollections + gpu.fullCollections, minLiveBytes: 100 << 10 });
    expect(gpu.gpu!.cpuCollections).toBeGreaterThan(0);
    expect(gpu.gpu!.cpuCollections).toBeLessThan(gpu.gpu!.collections);
    expect(json.runs.find((r) => r.collector === 'serial')!.gpu).toBeUndefined();
    const text = await run([]);
    expect(text).toMatch(/^gpu-bfs\/sable: \d+ of \d+ collections on the GPU, \d+ on the CPU \(predicted under --gpu-min-live 100K\)$/m);
  }, 600_000);
});
