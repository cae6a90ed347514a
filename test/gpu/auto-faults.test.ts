// `--gc auto` on a GPU engine whose device is lost just after a young mark
// (MINIVM_GPU_FAULT=lose-device-after@1, the mark being the worker's first counted
// request): the mark's live list, kept in the GPU worker while the device was to
// evacuate (decision s61-01), went with the device. The assignment finds the loss,
// auto stops offering the engine, the CPU evacuates, and serial marks the young
// generation again since the list is gone. The program's output is unchanged.
// The adapter here is lavapipe, which auto never chooses by itself: the run takes
// it as a hardware one (MemoryHooks.autoAnyAdapter).
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { releaseGpu } from '../../src/collectors/index.js';
import { PARALLEL_MIN_THREADS } from '../../src/collectors/auto-marker.js';
import { PauseModel, type ChoiceOptions, type Choice, type Engine, type Features } from '../../src/collectors/pause-model.js';
import { readExpectations } from '../expectations.js';
import { runWithHooks } from '../collectors/alternating.js';

// Read by the GPU worker when it starts, which this file's first GPU run does.
process.env['MINIVM_GPU_FAULT'] = 'lose-device-after@1';

afterAll(() => releaseGpu());

/** Chooses gpu-dfs while it is offered, then the first engine left. */
class GpuDfsFirst extends PauseModel {
  override choose(f: Features, candidates: readonly Engine[], o: ChoiceOptions = {}): Choice {
    const c = super.choose(f, candidates, o);
    const engine = candidates.includes('gpu-dfs') ? 'gpu-dfs' : candidates[0]!;
    return { ...c, engine, predictedMs: this.predict(engine, f).pauseMs };
  }
}

describe('auto on a GPU engine whose device is lost after its young mark', () => {
  it('evacuates on the CPU from a second mark, and prints what it should', async () => {
    const file = 'programs/linked_list.mini';
    const exp = readExpectations(readFileSync(file, 'utf8'));
    const run = await runWithHooks(
      file,
      { gc: 'auto', layout: 'sable', heapBytes: 4 * 2 ** 20, gcStress: 50, gcSoloBytes: 0, threads: PARALLEL_MIN_THREADS, logGc: true },
      { autoModel: new GpuDfsFirst(PARALLEL_MIN_THREADS), autoAnyAdapter: true },
    );
    const got = run.stdout.split('\n');
    if (got[got.length - 1] === '') got.pop();
    expect(got, run.stderr.slice(-2000)).toEqual(exp.stdout);
    expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
    expect(run.stderr).toMatch(/auto: the GPU device was lost: injected \(MINIVM_GPU_FAULT=lose-device-after@1\)/);
    // The first collection: chosen on gpu-dfs, evacuated on the CPU for the loss.
    expect(run.stderr).toMatch(/\[gc 1\] young .*auto\(gpu-dfs\).* evacuate=cpu \(the GPU failed: device-lost\)/);
    expect(run.stats?.auto?.choices['gpu-dfs']).toBe(1);
  }, 600_000);
});
