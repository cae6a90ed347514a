// A GPU collector whose kernels compile beside the program (`--gpu-opt start=beside`,
// a hardware adapter's default), as a user runs it, on lavapipe: the program starts
// once the device is open, the collections that come before the kernels are ready
// run on the CPU and say so, and once one has run on the device none goes back; the
// output is serial's, and --verify-gc checks the device's heap copy after each of
// its collections, so a mirror that missed the CPU's moves made while it started
// fails here. `--stats` counts the collections the start-up left to the CPU.
import { describe, expect, it } from 'vitest';
import { minivm } from '../minivm.js';

const STARTING = 'on-cpu (the device is still starting beside the program)';

describe('a GPU device starting beside the program', () => {
  for (const [gc, layout] of [
    ['gpu-dfs', 'sable'],
    ['gpu-bfs', 'refgraph'],
  ] as const) {
    it(`programs/gc_stress.mini [${gc}, ${layout}, --gpu-opt start=beside, --gc-stress 1000, --verify-gc]`, () => {
      const file = 'programs/gc_stress.mini';
      const serial = minivm(['run', file, '--gc', 'serial', '--heap', '4m']);
      const r = minivm(['run', file, '--gc', gc, '--layout', layout, '--heap', '4m', '--gpu-opt', 'start=beside', '--gc-stress', '1000', '--verify-gc', '--log-gc', '--stats']);
      expect(r.status, r.stderr).toBe(0);
      expect(serial.status).toBe(0);
      expect(r.stdout).toBe(serial.stdout);
      const lines = r.stderr.split('\n').filter((l) => /\[gc \d+\]/.test(l));
      // The program's first collection comes long before lavapipe has compiled the kernels.
      expect(lines[0]).toContain(`${gc}(cpu)`);
      expect(lines[0]).toContain(STARTING);
      const order = lines.map((l) => (l.includes(STARTING) ? 's' : 'd')).join('');
      expect(order).toMatch(/^s+d*$/);
      const starting = order.replace(/d/g, '').length;
      const stats = /start-up [\d.]+ ?ms waited for \(device [\d.]+ ?ms; beside the program (\d+) pipelines compiled and run once [\d.]+ ?ms, buffers [\d.]+ ?ms, (\d+) collections on the CPU meanwhile, the run's end waiting [\d.]+ ?ms\)/.exec(r.stderr);
      expect(stats, r.stderr).not.toBeNull();
      expect(Number(stats![1])).toBeGreaterThan(0);
      expect(Number(stats![2])).toBe(starting);
    }, 600_000);
  }
});
