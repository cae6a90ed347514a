/**
 * The expectations a .mini test program states in its comments (docs/language.md,
 * "Tests written in the language"), and the one check of a run against them. Both
 * `minivm test` and the project's own test suites read programs through this file.
 *   // expect: text                 one line of standard output, in order
 *   // expect runtime error: msg    the run ends with `runtime error: msg`, exit 70
 *   // error: msg                   a compile error with this message on this line, exit 65
 *   // flags: --heap 4m             extra command-line options for this program
 */

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { defaultRunOptions, parseArgs, type RunOptions } from './args.js';
import { EXIT } from './run.js';

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
    if ((m = /\/\/ expect: ?(.*)$/.exec(text))) e.stdout.push(m[1]!.replace(/\r$/, ''));
    else if ((m = /\/\/ expect runtime error: ?(.*)$/.exec(text))) e.runtimeError = m[1]!.trim();
    else if ((m = /\/\/ error: ?(.*)$/.exec(text))) e.compileErrors.push({ line: i + 1, message: m[1]!.trim() });
    else if ((m = /^\s*\/\/ flags: (.*)$/.exec(text))) e.flags.push(...m[1]!.trim().split(/\s+/));
  });
  return e;
}

/**
 * `base` with a program's `// flags:` applied over it: only the options the flags
 * change, so a flag-less setting of the caller (its collector, say) stays. A bad
 * flag throws the parser's UsageError.
 */
export function withFlags(base: RunOptions, flags: readonly string[], file: string): RunOptions {
  if (flags.length === 0) return base;
  const parsed = parseArgs([...flags, file]).run as unknown as Record<string, unknown>;
  const defaults = defaultRunOptions() as unknown as Record<string, unknown>;
  const changed = Object.entries(parsed).filter(([k, v]) => k !== 'args' && defaults[k] !== v);
  return { ...base, ...(Object.fromEntries(changed) as Partial<RunOptions>) };
}

/** What a run showed: its exit status and both output streams. */
export interface Observed {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** How a run differs from its expectations: `message` is one line; `stderr` is the run's, for a longer report. */
export interface Mismatch {
  message: string;
  stderr: string;
}

/** A string as quoted in a mismatch: JSON-escaped and cut to `max` characters, so a message stays one short line. */
function quote(text: string, max = 60): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}...` : text);
}

/** The first line of stderr, quoted, or nothing when stderr is empty. */
function firstStderrLine(stderr: string): string {
  const first = stderr.split('\n').find((l) => l.trim() !== '');
  return first === undefined ? '' : `: ${quote(first, 100)}`;
}

/** The compile errors a run reported, as `line -> messages`, from `FILE:LINE:COL: error: MESSAGE` lines. */
function reportedCompileErrors(stderr: string): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const text of stderr.split('\n')) {
    const m = /:(\d+):\d+: error: (.*)$/.exec(text);
    if (!m) continue;
    const line = Number(m[1]);
    out.set(line, [...(out.get(line) ?? []), m[2]!.trim()]);
  }
  return out;
}

function compileMismatch(exp: Expectations, run: Observed): string | undefined {
  if (run.exitCode !== 65) return `expected a compile error (exit 65), got exit ${run.exitCode}${firstStderrLine(run.stderr)}`;
  const reported = reportedCompileErrors(run.stderr);
  for (const ce of exp.compileErrors) {
    const got = reported.get(ce.line);
    if (got === undefined) return `line ${ce.line}: expected error ${quote(ce.message)}, got none on that line`;
    if (ce.message !== '' && !got.includes(ce.message)) return `line ${ce.line}: expected error ${quote(ce.message)}, got ${quote(got[0]!)}`;
  }
  const expectedLines = new Set(exp.compileErrors.map((ce) => ce.line));
  for (const [line, messages] of reported) {
    if (!expectedLines.has(line)) return `line ${line}: unexpected error ${quote(messages[0]!)}`;
  }
  return undefined;
}

function outputMismatch(exp: Expectations, got: string[]): string | undefined {
  for (let i = 0; i < Math.max(exp.stdout.length, got.length); i++) {
    if (exp.stdout[i] === got[i]) continue;
    if (i >= exp.stdout.length) return `output line ${i + 1}: expected nothing more (${exp.stdout.length} lines), got ${quote(got[i]!)}`;
    if (i >= got.length) return `output line ${i + 1}: expected ${quote(exp.stdout[i]!)}, got nothing (the output ended)`;
    return `output line ${i + 1}: expected ${quote(exp.stdout[i]!)}, got ${quote(got[i]!)}`;
  }
  return undefined;
}

function runtimeErrorMismatch(expected: string, run: Observed): string | undefined {
  if (run.exitCode !== 70) return `expected runtime error ${quote(expected)} (exit 70), got exit ${run.exitCode}${firstStderrLine(run.stderr)}`;
  const first = run.stderr.split('\n')[0]!;
  if (!first.startsWith(`runtime error: ${expected}`)) return `expected ${quote(`runtime error: ${expected}`)}, got ${quote(first, 100)}`;
  if (!/\n {2}at .+ \(.+:\d+\)/.test(run.stderr)) return 'the runtime error has no stack trace (no "  at FUNCTION (FILE:LINE)" line)';
  return undefined;
}

/** Compares a run with the program's expectations: the first difference, or undefined when they agree. */
export function checkRun(exp: Expectations, run: Observed): Mismatch | undefined {
  const message = findMismatch(exp, run);
  return message === undefined ? undefined : { message, stderr: run.stderr };
}

function findMismatch(exp: Expectations, run: Observed): string | undefined {
  // No expectation can be met by a run that never started (a bad option, no GPU): say that, not what it did not print.
  if (run.exitCode === EXIT.usage || run.exitCode === EXIT.noGpu) return `the run could not start: exit ${run.exitCode}${firstStderrLine(run.stderr)}`;
  if (exp.compileErrors.length > 0) return compileMismatch(exp, run);
  const got = run.stdout.split('\n');
  if (got[got.length - 1] === '') got.pop();
  const output = outputMismatch(exp, got);
  // A run that also failed says how, so the one line tells the whole story.
  const unexpectedExit = exp.runtimeError === undefined && run.exitCode !== 0 ? ` (and exit ${run.exitCode}${firstStderrLine(run.stderr)})` : '';
  if (output !== undefined) return output + unexpectedExit;
  if (exp.runtimeError !== undefined) return runtimeErrorMismatch(exp.runtimeError, run);
  if (run.exitCode !== 0) return `expected exit 0, got exit ${run.exitCode}${firstStderrLine(run.stderr)}`;
  return undefined;
}

/** Folders `minivm test` does not descend into: packages and hidden folders (.git). */
function skippedFolder(name: string): boolean {
  return name === 'node_modules' || name.startsWith('.');
}

/** Every .mini file under `dir`, recursively, sorted. */
export function miniFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!skippedFolder(entry.name)) out.push(...miniFiles(path));
    } else if (entry.name.endsWith('.mini')) out.push(path);
  }
  return out.sort();
}
