// A GPU collector whose kernels compile beside the program (`--gpu-opt start=beside`,
// a hardware adapter's default), as a user runs it, on lavapipe: the program starts
// once the device is open; the first collection for the device waits for the
// kernels before its pause and says so (`start-wait=`), the ones under
// `--gpu-min-live` run on the CPU meanwhile, and eden's uploads ahead start only
// once the kernels are ready. The output is serial's, and --verify-gc checks the
// device's heap copy after each of its collections, so a mirror that missed what
// the program and the CPU wrote while the device started fails here. A program that
// ends first stops the compiling instead of waiting for it, and the next run in the
// same process compiles the kernels again.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { minivm, scratch } from '../minivm.js';

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

  it('stops at the run\'s end a start-up still under way, and a later run in the same process compiles the kernels again', () => {
    const { dir, program } = scratch('minivm-device-start-');
    const hello = program('hello.mini', 'print(6 * 7);\n// expect: 42\n');
    const json = join(dir, 'stats.json');
    for (const [gc, layout] of [['gpu-dfs', 'sable'], ['gpu-bfs', 'refgraph']] as const) {
      const r = minivm(['run', hello, '--gc', gc, '--layout', layout, '--gpu-opt', 'start=beside', '--stats', '--json-stats', json]);
      expect(r, r.stderr).toMatchObject({ status: 0, stdout: '42\n' });
      expect(r.stderr).toMatch(/start-up [\d.]+ ?ms waited for \(beside the program, the kernels' compiling stopped unfinished at the run's end, which waited [\d.]+ ?ms for it to stop\)/);
      expect(JSON.parse(readFileSync(json, 'utf8')).gpu).toMatchObject({ startup: null, beside: { collectionMs: 0, abandoned: true } });
    }
    // One process: hello.mini ends while the kernels compile; gc_stress.mini, after it, marks on the device.
    const both = minivm(['test', hello, FILE, '--gc', 'gpu-dfs', '--heap', '4m', '--gpu-opt', 'start=beside', '--gpu-min-live', '0', '--gc-stress', '1000', '--verify-gc']);
    expect(both.status, both.stdout + both.stderr).toBe(0);
    expect(both.stdout).toMatch(/ok: 2 passed, 0 failed/);
  }, 600_000);
});
