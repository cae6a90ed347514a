// Every program prints the same output under the GPU collectors as its expectations
// say, for both engines and both layouts, with --verify-gc checking each GPU mark set
// against an independent CPU traversal. On CI this runs the WGSL kernels for real on
// lavapipe, so the heap is small (collections happen naturally) instead of stressed.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { expectRun, readExpectations, samplePrograms } from './expectations.js';
import { releaseGpu } from '../src/collectors/index.js';
import type { RunOptions } from '../src/cli/args.js';

const files = samplePrograms();

const configs: { name: string; options: Partial<RunOptions> }[] = [];
for (const gc of ['gpu-dfs', 'gpu-bfs'] as const) {
  for (const layout of ['sable', 'refgraph'] as const) {
    configs.push({ name: `${gc}/${layout}`, options: { gc, layout, heapBytes: 4 * 2 ** 20, verifyGc: true } });
  }
}
// The remembered set scanned on the GPU however small (remset=0; by default only
// large ones are), idle threads' areas over the occupied young spaces, each
// engine's live list in its own order (storage stack, frontier; the default is
// address order), and eden uploaded in the pause (by default ahead of it).
for (const [gc, gpuOpt] of [
  ['gpu-dfs', 'all,remset=0,areas=occupied,order=mark,upload=pause'],
  ['gpu-bfs', 'all,remset=0,order=mark'],
] as const) {
  configs.push({ name: `${gc}/sable ${gpuOpt}`, options: { gc, layout: 'sable', gpuOpt, heapBytes: 4 * 2 ** 20, verifyGc: true } });
}

// Without --verify-gc the GPU evacuation leaves out the old objects' forwarding
// headers, which the checks would read, and the roots are redirected by search.
configs.push({ name: 'gpu-dfs/sable without --verify-gc', options: { gc: 'gpu-dfs', layout: 'sable', heapBytes: 4 * 2 ** 20 } });

afterAll(() => releaseGpu());

describe('programs on the GPU collectors', () => {
  for (const file of files) {
    const exp = readExpectations(readFileSync(file, 'utf8'));
    if (exp.compileErrors.length > 0) continue; // nothing runs, nothing to collect
    for (const c of configs) {
      it(`${file} [${c.name}]`, async () => {
        const run = await expectRun(file, exp, c.options);
        // A program that allocates past the small heap has had GPU collections.
        if (run.exitCode === 0 && run.stats && run.stats.bytesAllocated > 4 * 2 ** 20) {
          expect(run.stats.youngCollections + run.stats.fullCollections).toBeGreaterThan(0);
          expect(run.stats.gpu?.adapter).toBeTruthy();
        }
      });
    }
  }
});
