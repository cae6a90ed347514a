// `--gc auto` on a GPU engine whose device is lost (MINIVM_GPU_FAULT): auto stops
// offering the engine, the CPU takes the collection, and the program's output is
// unchanged, whether the loss is found by a mark that was to evacuate with it
// (decision s62-04) or by an assignment of its own (under --verify-gc, whose check
// reads the list between them).
// The adapter here is lavapipe, which auto never chooses by itself: the run takes
// it as a hardware one (MemoryHooks.autoAnyAdapter).
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { releaseGpu } from '../../src/collectors/index.js';
import { PARALLEL_MIN_THREADS } from '../../src/collectors/auto-marker.js';
import { PauseModel, type ChoiceOptions, type Choice, type Engine, type Features } from '../../src/collectors/pause-model.js';
import { readExpectations } from '../expectations.js';
import { runWithHooks } from '../collectors/alternating.js';

afterAll(() => releaseGpu());

/** Chooses gpu-dfs while it is offered, then the first engine left. */
class GpuDfsFirst extends PauseModel {
  override choose(f: Features, candidates: readonly Engine[], o: ChoiceOptions = {}): Choice {
    const c = super.choose(f, candidates, o);
    const engine = candidates.includes('gpu-dfs') ? 'gpu-dfs' : candidates[0]!;
    return { ...c, engine, predictedMs: this.predict(engine, f).pauseMs };
  }
}

/** linked_list under auto with `fault` (read by the GPU worker as it starts: each run starts its own). */
async function faulted(fault: string, verifyGc: boolean): Promise<{ stderr: string; gpuDfs: number | undefined }> {
  process.env['MINIVM_GPU_FAULT'] = fault;
  try {
    const file = 'programs/linked_list.mini';
    const exp = readExpectations(readFileSync(file, 'utf8'));
    const run = await runWithHooks(
      file,
      { gc: 'auto', layout: 'sable', heapBytes: 4 * 2 ** 20, gcStress: 50, gcSoloBytes: 0, threads: PARALLEL_MIN_THREADS, logGc: true, verifyGc },
      { autoModel: new GpuDfsFirst(PARALLEL_MIN_THREADS), autoAnyAdapter: true },
    );
    const got = run.stdout.split('\n');
    if (got[got.length - 1] === '') got.pop();
    expect(got, run.stderr.slice(-2000)).toEqual(exp.stdout);
    expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
    return { stderr: run.stderr, gpuDfs: run.stats?.auto?.choices['gpu-dfs'] };
  } finally {
    delete process.env['MINIVM_GPU_FAULT'];
    await releaseGpu();
  }
}

describe('auto on a GPU engine whose device is lost', () => {
  it('found by the next mark, after a collection evacuated with its mark', async () => {
    const { stderr, gpuDfs } = await faulted('lose-device-after@1', false);
    expect(stderr).toMatch(/\[gc 1\] young .*auto\(gpu-dfs\).* evacuate=gpu .* requests=0/);
    expect(stderr).toMatch(/auto: the GPU device was lost: injected \(MINIVM_GPU_FAULT=lose-device-after@1\) \(gpu-dfs mark, collection 2\)/);
    expect(gpuDfs).toBe(2);
  }, 600_000);

  it('found by the assignment (--verify-gc): the CPU evacuates from the mark', async () => {
    // Requests: the mark, then the assignment (the check's copy of the list is not counted).
    const { stderr, gpuDfs } = await faulted('lose-device@2', true);
    expect(stderr).toMatch(/\[gc 1\] young .*auto\(gpu-dfs\).* evacuate=cpu \(the GPU failed: device-lost\)/);
    expect(stderr).toMatch(/auto: the GPU device was lost: injected \(MINIVM_GPU_FAULT=lose-device@2\)/);
    expect(gpuDfs).toBe(1);
  }, 600_000);
});
