// Every program in programs/ and test/programs/ prints its expected output under
// the parallel collector at 1, 2, 4 and 16 threads, with stress collections and
// --verify-gc: on this project's 2-core machines 16 threads are preempted in the
// middle of copies and steals, where races show.
import { readFileSync } from 'node:fs';
import { describe, it } from 'vitest';
import { expectRun, readExpectations, samplePrograms } from './expectations.js';
import type { RunOptions } from '../src/cli/args.js';

const files = samplePrograms();

// These heaps are small: with --gc-solo-below 0 every collection runs on every
// thread, one configuration keeps the default, where most run on one, and one
// wakes a thread per 16 KB.
const configs: { name: string; options: Partial<RunOptions> }[] = [
  ...[1, 2, 4, 16].map((threads) => ({
    name: `parallel/sable/${threads}`,
    options: { gc: 'parallel', layout: 'sable', threads, gcSoloBytes: 0, heapBytes: 8 * 2 ** 20, gcStress: 499, verifyGc: true } as Partial<RunOptions>,
  })),
  { name: 'parallel/refgraph/16', options: { gc: 'parallel', layout: 'refgraph', threads: 16, gcSoloBytes: 0, heapBytes: 8 * 2 ** 20, gcStress: 997, verifyGc: true } },
  { name: 'parallel/sable/4/solo-default', options: { gc: 'parallel', layout: 'sable', threads: 4, heapBytes: 8 * 2 ** 20, gcStress: 499, verifyGc: true } },
  // One thread per 16 KB in use: from one command to the next a different
  // number of the 16 threads takes part, and the rest sleep through it.
  { name: 'parallel/sable/16/per-16k', options: { gc: 'parallel', layout: 'sable', threads: 16, gcSoloBytes: 16 * 1024, heapBytes: 8 * 2 ** 20, gcStress: 499, verifyGc: true } },
];

describe('programs under the parallel collector', () => {
  for (const file of files) {
    const exp = readExpectations(readFileSync(file, 'utf8'));
    for (const c of configs) {
      it(`${file} [${c.name}]`, async () => {
        await expectRun(file, exp, c.options);
      });
    }
  }
});
