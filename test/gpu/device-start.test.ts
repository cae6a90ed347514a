// A GPU collector whose kernels compile beside the program (`--gpu-opt start=beside`,
// a hardware adapter's default), as a user runs it, on lavapipe: the program starts
// once the device is open; the first collection for the device waits for the
// kernels before its pause and says so (`start-wait=`), the ones under
// `--gpu-min-live` run on the CPU meanwhile, and eden's uploads ahead start only
// once the kernels are ready. The output is serial's, and --verify-gc checks the
// device's heap copy after each of its collections, so a mirror that missed what
// the program and the CPU wrote while the device started fails here.
import { describe, expect, it } from 'vitest';
import { minivm } from '../minivm.js';

const FILE = 'programs/gc_stress.mini';

describe('a GPU device starting beside the program', () => {
  const serial = minivm(['run', FILE, '--gc', 'serial', '--heap', '4m']);
  for (const [gc, layout, minLive] of [
    ['gpu-dfs', 'sable', '0'],
    ['gpu-bfs', 'refgraph', '0'],
    ['gpu-dfs', 'sable', '100k'],
  ] as const) {
    it(`${FILE} [${gc}, ${layout}, --gpu-opt start=beside, --gpu-min-live ${minLive}, --gc-stress 1000, --verify-gc]`, () => {
      const r = minivm([
        'run', FILE, '--gc', gc, '--layout', layout, '--heap', '4m', '--gpu-opt', 'start=beside', '--gpu-min-live', minLive,
        '--gc-stress', '1000', '--verify-gc', '--log-gc', '--stats',
      ]);
      expect(r.status, r.stderr).toBe(0);
      expect(serial.status).toBe(0);
      expect(r.stdout).toBe(serial.stdout);
      const lines = r.stderr.split('\n').filter((l) => /\[gc \d+\]/.test(l));
      const waits = lines.map((l, i) => [i, / start-wait=([\d.]+)ms/.exec(l)?.[1]] as const).filter(([, w]) => w !== undefined);
      const firstOnDevice = lines.findIndex((l) => !l.includes(`${gc}(cpu)`));
      expect(firstOnDevice).toBeGreaterThanOrEqual(0);
      // Only the first collection for the device can have waited.
      expect(waits.every(([i]) => i === firstOnDevice)).toBe(true);
      if (minLive === '0') {
        // The program's first collection comes long before lavapipe has compiled the kernels.
        expect(firstOnDevice).toBe(0);
        expect(waits.length).toBe(1);
      } else {
        expect(lines.slice(0, firstOnDevice).every((l) => l.includes('under --gpu-min-live'))).toBe(true);
      }
      const stats = /start-up [\d.]+ ?ms waited for \(device [\d.]+ ?ms; beside the program (\d+) pipelines compiled and run once [\d.]+ ?ms, buffers [\d.]+ ?ms; waited for at the first collection for the device ([\d.]+) ?ms, at the run's end [\d.]+ ?ms\)/.exec(r.stderr);
      expect(stats, r.stderr).not.toBeNull();
      expect(Number(stats![1])).toBeGreaterThan(0);
      expect(Number(stats![2])).toBeCloseTo(Number(waits[0]?.[1] ?? 0), 1);
    }, 600_000);
  }
});
