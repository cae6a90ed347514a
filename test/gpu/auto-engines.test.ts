// `--gc auto` with its GPU engines: every program prints what it should while
// auto changes engine every collection (serial, parallel, gpu-dfs, gpu-bfs in
// turn), with --verify-gc checking each mark set, each GPU copy of the heap and
// each evacuation on a device.
// The adapter here is lavapipe, which auto never chooses by itself: the run
// takes it as a hardware one (MemoryHooks.autoAnyAdapter).
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { releaseGpu } from '../../src/collectors/index.js';
import { PARALLEL_MIN_THREADS } from '../../src/collectors/auto-marker.js';
import { readExpectations, samplePrograms } from '../expectations.js';
import { Alternating, runWithHooks } from '../collectors/alternating.js';

afterAll(() => releaseGpu());

describe('auto switching among all its engines, GPU ones included', () => {
  const files = samplePrograms().filter((f) => readExpectations(readFileSync(f, 'utf8')).compileErrors.length === 0);
  for (const layout of ['sable', 'refgraph'] as const) {
    it(`every program [${layout}]`, async () => {
      const used = { serial: 0, parallel: 0, 'gpu-dfs': 0, 'gpu-bfs': 0 };
      let deviceEvacuations = 0;
      for (const file of files) {
        const exp = readExpectations(readFileSync(file, 'utf8'));
        const run = await runWithHooks(
          file,
          { gc: 'auto', layout, heapBytes: 4 * 2 ** 20, verifyGc: true, threads: PARALLEL_MIN_THREADS, logGc: true },
          { autoModel: new Alternating(PARALLEL_MIN_THREADS), autoAnyAdapter: true },
        );
        const got = run.stdout.split('\n');
        if (got[got.length - 1] === '') got.pop();
        expect(got, `${file}: ${run.stderr.slice(-2000)}`).toEqual(exp.stdout);
        expect(run.exitCode, `${file}: ${run.stderr.slice(-2000)}`).toBe(exp.runtimeError === undefined ? 0 : 70);
        for (const [e, n] of Object.entries(run.stats?.auto?.choices ?? {})) used[e as keyof typeof used] += n;
        deviceEvacuations += (run.stats?.collections ?? []).filter((r) => r.evacuation?.where === 'gpu').length;
      }
      // Every engine ran somewhere, each after every other.
      for (const n of Object.values(used)) expect(n).toBeGreaterThan(0);
      // The GPU engines evacuated young collections on the device (under refgraph
      // in a heap mirror beside the graphs, rebuilding them there), and the other
      // engine's mirror, told what the device wrote, passed --verify-gc's check of
      // every copy.
      expect(deviceEvacuations).toBeGreaterThan(0);
    }, 900_000);
  }
});
