/**
 * How `compare` runs one configuration: in a fresh `minivm run` process (the default,
 * so that no run inherits another's JIT warm-up, heap or GPU device), or in this
 * process (`--in-process`, faster, for quick looks). Both give the program's output,
 * exit status and timed statistics.
 */

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BytecodeProgram } from '../bytecode/program.js';
import { childProcess } from './child-process.js';
import { defaultRunOptions, type RunOptions } from './options.js';
import { runProgram, type Io, type TimedRunStats } from './run.js';

export interface OneRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  stats: TimedRunStats | undefined;
}

/** The `run` flags that reproduce `o` (those that differ from the defaults), gc and layout included. */
export function runOptionArgs(o: RunOptions): string[] {
  const d = defaultRunOptions();
  const out = ['--gc', o.gc, '--layout', o.layout];
  if (o.heapBytes !== d.heapBytes) out.push('--heap', String(o.heapBytes));
  if (o.youngBytes !== undefined) out.push('--young', String(o.youngBytes));
  if (o.survivorRatio !== d.survivorRatio) out.push('--survivor-ratio', String(o.survivorRatio));
  if (o.tenureAge !== d.tenureAge) out.push('--tenure-age', String(o.tenureAge));
  if (o.gcStress !== d.gcStress) out.push('--gc-stress', String(o.gcStress));
  if (o.verifyGc) out.push('--verify-gc');
  if (o.gpuOpt !== d.gpuOpt) out.push('--gpu-opt', o.gpuOpt);
  if (o.gpuBenchmark) out.push('--gpu-benchmark');
  if (o.threads !== undefined) out.push('--threads', String(o.threads));
  if (o.gcSoloBytes !== undefined) out.push('--gc-solo-below', String(o.gcSoloBytes));
  if (o.pretouch) out.push('--pretouch');
  if (o.gcWarmUp !== undefined) out.push('--gc-warm-up', o.gcWarmUp ? 'on' : 'off');
  if (o.pauseGoalMs !== undefined) out.push('--pause-goal', String(o.pauseGoalMs));
  if (o.gpuMinLiveBytes !== undefined) out.push('--gpu-min-live', String(o.gpuMinLiveBytes));
  if (o.tier !== undefined) out.push('--tier', o.tier);
  if (o.tierThreshold !== undefined) out.push('--tier-threshold', String(o.tierThreshold));
  if (o.dispatch !== d.dispatch) out.push('--dispatch', o.dispatch);
  return out;
}

const BIN = fileURLToPath(new URL('../../bin/minivm.js', import.meta.url));

/** One run in a fresh `minivm run` process, its statistics through --json-stats. */
export async function runInChild(file: string, options: RunOptions): Promise<OneRun> {
  const dir = mkdtempSync(join(tmpdir(), 'minivm-compare-'));
  const json = join(dir, 'stats.json');
  const args = [BIN, 'run', file, ...runOptionArgs(options), '--json-stats', json];
  if (options.args.length > 0) args.push('--', ...options.args);
  try {
    const child = childProcess().spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
    child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
    const exitCode = await new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 70)));
    let stats: TimedRunStats | undefined;
    try {
      stats = JSON.parse(readFileSync(json, 'utf8')) as TimedRunStats;
    } catch {
      stats = undefined;
    }
    return { exitCode, stdout, stderr, stats };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One run in this process. */
export async function runInProcess(program: BytecodeProgram, options: RunOptions): Promise<OneRun> {
  let stdout = '';
  let stderr = '';
  const io: Io = { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) };
  const outcome = await runProgram(program, { ...options, logGc: false }, io);
  return { exitCode: outcome.exitCode, stdout, stderr, stats: outcome.stats };
}
