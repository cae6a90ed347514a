// `--gpu-min-live` on lavapipe: a GPU collector whose collections take turns
// between the device and the CPU (the small ones) prints serial's output, and
// --verify-gc checks the device's heap copy after each of its collections, so a
// mirror that missed the CPU's moves in between fails here. The threshold is set
// so that both kinds of collection occur (a software adapter's default is 0:
// every collection on the device).
import { afterAll, describe, expect, it } from 'vitest';
import { runCaptured } from '../expectations.js';
import { releaseGpu } from '../../src/collectors/index.js';

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
