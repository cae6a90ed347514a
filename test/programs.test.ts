// Every program in programs/ and test/programs/ prints its expected output under the
// CPU collectors and both layouts: `none` with a heap large enough to never collect,
// `serial` and `parallel` with a small heap, frequent stress collections and --verify-gc.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectRun, readExpectations, samplePrograms } from './expectations.js';
import type { RunOptions } from '../src/cli/args.js';

const files = samplePrograms();

const configs: { name: string; options: Partial<RunOptions> }[] = [
  { name: 'none/sable', options: { gc: 'none', layout: 'sable', heapBytes: 512 * 2 ** 20 } },
  { name: 'none/refgraph', options: { gc: 'none', layout: 'refgraph', heapBytes: 512 * 2 ** 20 } },
  { name: 'serial/sable', options: { gc: 'serial', layout: 'sable', heapBytes: 8 * 2 ** 20, gcStress: 251, verifyGc: true } },
  { name: 'serial/refgraph', options: { gc: 'serial', layout: 'refgraph', heapBytes: 8 * 2 ** 20, gcStress: 997, verifyGc: true } },
  { name: 'parallel/sable', options: { gc: 'parallel', layout: 'sable', heapBytes: 8 * 2 ** 20, gcStress: 997, verifyGc: true } },
  { name: 'parallel/refgraph', options: { gc: 'parallel', layout: 'refgraph', heapBytes: 8 * 2 ** 20, gcStress: 997, verifyGc: true } },
];

describe('programs', () => {
  it('finds the sample programs', () => {
    expect(files.length).toBeGreaterThanOrEqual(15);
  });
  for (const file of files) {
    const exp = readExpectations(readFileSync(file, 'utf8'));
    // Out-of-memory programs need a collector that can run out; `none` may too, faster.
    for (const c of configs) {
      it(`${file} [${c.name}]`, async () => {
        await expectRun(file, exp, c.options);
      });
    }
  }
});
