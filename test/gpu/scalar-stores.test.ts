// The mutator's scalar stores reach a GPU mirror's change log in both tiers.
// test/programs/scalar_stores.mini writes int and float fields and elements of
// objects the mirror already holds (eden uploaded ahead, survivors, tenured);
// a GPU evacuation copies the scalars it finds in the mirror, so a store the
// log missed would come back as an old value (and --verify-gc would say so).
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { expectRun, readExpectations } from '../expectations.js';
import { releaseGpu } from '../../src/collectors/index.js';

const file = 'test/programs/scalar_stores.mini';
const exp = readExpectations(readFileSync(file, 'utf8'));

afterAll(() => releaseGpu());

describe('scalar stores into mirrored objects', () => {
  for (const gc of ['gpu-dfs', 'gpu-bfs'] as const) {
    for (const tier of ['interp', 'compiled'] as const) {
      it(`${gc}, ${tier} tier`, async () => {
        const run = await expectRun(file, exp, { gc, layout: 'sable', heapBytes: 4 * 2 ** 20, verifyGc: true, tier, tierThreshold: 0 });
        // The copies came from the mirror: every young collection evacuated on the GPU.
        const young = run.stats!.collections.filter((r) => r.kind === 'young');
        expect(young.length).toBeGreaterThanOrEqual(3);
        expect(young.map((r) => r.evacuation?.where)).toEqual(young.map(() => 'gpu'));
      });
    }
  }
});
