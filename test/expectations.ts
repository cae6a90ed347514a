/**
 * Reads the expectations a .mini test program states in its comments (LANGUAGE.md,
 * "Tests written in the language") and runs programs in-process for the suites.
 *   // expect: text                 one line of standard output, in order
 *   // expect runtime error: msg    the run ends with `runtime error: msg`, exit 70
 *   // error: msg                   a compile error is reported on this line, exit 65
 *   // flags: --heap 4m             extra command-line options for this program
 */

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { defaultRunOptions, parseArgs, type RunOptions } from '../src/cli/args.js';
import { runSource, type RunOutcome } from '../src/cli/run.js';

export interface Expectations {
  stdout: string[];
  runtimeError: string | undefined;
  compileErrors: { line: number; message: string }[];
  flags: string[];
}

export function readExpectations(source: string): Expectations {
  const e: Expectations = { stdout: [], runtimeError: undefined, compileErrors: [], flags: [] };
  source.split('\n').forEach((text, i) => {
    let m: RegExpExecArray | null;
    if ((m = /\/\/ expect: ?(.*)$/.exec(text))) e.stdout.push(m[1]!);
    else if ((m = /\/\/ expect runtime error: ?(.*)$/.exec(text))) e.runtimeError = m[1]!.trim();
    else if ((m = /\/\/ error: ?(.*)$/.exec(text))) e.compileErrors.push({ line: i + 1, message: m[1]!.trim() });
    else if ((m = /^\s*\/\/ flags: (.*)$/.exec(text))) e.flags.push(...m[1]!.trim().split(/\s+/));
  });
  return e;
}

/** Every .mini file under `dir`, recursively, sorted. */
export function miniFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...miniFiles(path));
    else if (entry.name.endsWith('.mini')) out.push(path);
  }
  return out.sort();
}

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
  const options: RunOptions = { ...defaultRunOptions(), ...base };
  if (flags.length > 0) Object.assign(options, diffFromDefaults(parseArgs([...flags, file]).run));
  let stdout = '';
  let stderr = '';
  const outcome = await runSource(file, source, options, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
  });
  return { ...outcome, stdout, stderr };
}

function diffFromDefaults(o: RunOptions): Partial<RunOptions> {
  const d = defaultRunOptions() as unknown as Record<string, unknown>;
  return Object.fromEntries(Object.entries(o).filter(([k, v]) => d[k] !== v)) as Partial<RunOptions>;
}

/** Compares a run with the program's expectations; returns a readable mismatch or undefined. */
function mismatch(exp: Expectations, run: Captured): string | undefined {
  const got = run.stdout.split('\n');
  if (got[got.length - 1] === '') got.pop();
  if (exp.compileErrors.length > 0) {
    if (run.exitCode !== 65) return `expected a compile error (exit 65), got exit ${run.exitCode}\n${run.stderr}`;
    for (const ce of exp.compileErrors) {
      if (!new RegExp(`:${ce.line}:\\d+: error: `).test(run.stderr)) {
        return `expected a compile error on line ${ce.line} (${ce.message}); got:\n${run.stderr}`;
      }
    }
    return undefined;
  }
  for (let i = 0; i < Math.max(exp.stdout.length, got.length); i++) {
    if (exp.stdout[i] !== got[i]) {
      if (i >= exp.stdout.length) return `unexpected output line ${i + 1}: "${got[i]}"\nstderr: ${run.stderr}`;
      return `expected output "${exp.stdout[i]}" as line ${i + 1} and got "${got[i] ?? '<nothing>'}"\nstderr: ${run.stderr}`;
    }
  }
  if (exp.runtimeError !== undefined) {
    if (run.exitCode !== 70) return `expected runtime error "${exp.runtimeError}" (exit 70), got exit ${run.exitCode}\n${run.stderr}`;
    const first = run.stderr.split('\n')[0]!;
    if (!first.startsWith(`runtime error: ${exp.runtimeError}`)) {
      return `expected "runtime error: ${exp.runtimeError}", got "${first}"`;
    }
    if (!/\n  at .+ \(.+:\d+\)/.test(run.stderr)) return `runtime error without a stack trace:\n${run.stderr}`;
    return undefined;
  }
  if (run.exitCode !== 0) return `exit ${run.exitCode}:\n${run.stderr}`;
  return undefined;
}

/** Runs `file` in-process under `base` with its own flags; fails with the first way the run differs from `exp`. */
export async function expectRun(file: string, exp: Expectations, base: Partial<RunOptions>): Promise<Captured> {
  const run = await runCaptured(file, base, exp.flags);
  const problem = mismatch(exp, run);
  expect(problem, problem).toBeUndefined();
  return run;
}
