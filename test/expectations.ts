/**
 * Runs .mini test programs in-process for the suites, checked against the
 * expectations in their comments; the format and the check itself live in
 * src/cli/expectations.ts, shared with `minivm test`.
 */

import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { defaultRunOptions, type RunOptions } from '../src/cli/args.js';
import { runSource, type RunOutcome } from '../src/cli/run.js';
import { checkRun, miniFiles, withFlags, type Expectations } from '../src/cli/expectations.js';

export { miniFiles, readExpectations, type Expectations } from '../src/cli/expectations.js';

/** The sample programs the collector suites run: programs/ and test/programs/. */
export function samplePrograms(): string[] {
  return [...miniFiles('programs'), ...miniFiles('test/programs')];
}

export interface Captured extends RunOutcome {
  stdout: string;
  stderr: string;
}

/** Runs `file` in-process with the program's own `// flags:` applied over `base`. */
export async function runCaptured(file: string, base: Partial<RunOptions>, flags: string[] = []): Promise<Captured> {
  const source = readFileSync(file, 'utf8');
  const options = withFlags({ ...defaultRunOptions(), ...base }, flags, file);
  let stdout = '';
  let stderr = '';
  const outcome = await runSource(file, source, options, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
  });
  return { ...outcome, stdout, stderr };
}

/** Runs `file` in-process under `base` with its own flags; fails with the first way the run differs from `exp`. */
export async function expectRun(file: string, exp: Expectations, base: Partial<RunOptions>): Promise<Captured> {
  const run = await runCaptured(file, base, exp.flags);
  const problem = checkRun(exp, run);
  const detail = problem && `${problem.message}\nstderr:\n${problem.stderr}`;
  expect(detail, detail).toBeUndefined();
  return run;
}
