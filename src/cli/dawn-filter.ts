/**
 * Dawn writes its own log lines ("Warning: maxDynamicUniformBuffersPerPipelineLayout
 * artificially reduced ...", Vulkan error frames) straight to file descriptor 2 from
 * native code, where JavaScript cannot catch them. A command that may open the GPU
 * therefore runs as a child process whose stderr passes through this filter, which
 * drops Dawn's lines and forwards the rest; stdout is the child's own. MINIVM_DEBUG
 * turns the filter off.
 */

import { availableParallelism, constants } from 'node:os';
import type { Command } from './args.js';
import { childProcess } from './child-process.js';
import { isTerminal } from './output.js';

const CHILD_MARK = 'MINIVM_STDERR_FILTERED';

/** Lines Dawn logs: its WarningLog/ErrorLog prefixes. minivm's own lines start with
 *  `minivm:`, `runtime error:`, `[gc`, or a file name, never these. */
export function isDawnLine(line: string): boolean {
  return /^(Warning|Error|Info): /.test(line) || /^\s*- While /.test(line) || /^\s*at (Vulkan|vk)\w*/.test(line);
}

const GPU = new Set(['gpu-dfs', 'gpu-bfs', 'auto']);

/** Whether this command may open the GPU and is not itself the filtered child. */
export function wantsFilter(cmd: Command): boolean {
  if (process.env[CHILD_MARK] === '1' || process.env['MINIVM_DEBUG']) return false;
  if (cmd.command === 'compare') return cmd.compare.gcs.length === 0 || cmd.compare.gcs.some((g) => GPU.has(g));
  if (cmd.command === 'run' || cmd.command === 'heapshape') return GPU.has(cmd.run.gc);
  if (cmd.command === 'test') return cmd.compare.gcs.some((g) => GPU.has(g));
  return false;
}

/** Whether stderr is a terminal, as the user's process saw it (the child's is a pipe). */
export function stderrIsTty(): boolean {
  return process.env[CHILD_MARK] === '1' ? process.env['MINIVM_STDERR_TTY'] === '1' : isTerminal(2);
}

/**
 * Node's options for the child: this process's, and V8's pool of background
 * threads sized to the cores. Node's default of four is shared by every isolate,
 * and the threads of a GC worker pool (auto's parallel engine), each compiling its
 * copy of the collector, keep it busy long enough that the main thread's own
 * collector code waits to be optimized and runs its first collections slower
 * (docs/decisions/s63-02-v8-pool-sized-to-the-cores.md). A size given stays.
 */
export function childNodeArgs(execArgv: readonly string[], cores: number): string[] {
  if (execArgv.some((a) => a.startsWith('--v8-pool-size'))) return [...execArgv];
  return [...execArgv, `--v8-pool-size=${Math.max(DEFAULT_V8_POOL, cores)}`];
}

/** Node's own `--v8-pool-size` default. */
const DEFAULT_V8_POOL = 4;

/** Runs this same command line as a child with stderr filtered; resolves to its exit status. */
export function runFiltered(argv: readonly string[]): Promise<number> {
  const child = childProcess().spawn(process.execPath, [...childNodeArgs(process.execArgv, availableParallelism()), process.argv[1]!, ...argv], {
    stdio: ['inherit', 'inherit', 'pipe'],
    env: { ...process.env, [CHILD_MARK]: '1', MINIVM_STDERR_TTY: isTerminal(2) ? '1' : '0' },
  });
  let pending = '';
  const forward = (text: string): void => {
    const kept = text.split('\n').filter((l) => !isDawnLine(l));
    if (kept.length > 0) process.stderr.write(kept.join('\n'));
  };
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    pending += chunk;
    const cut = pending.lastIndexOf('\n');
    if (cut < 0) return;
    forward(pending.slice(0, cut + 1));
    pending = pending.slice(cut + 1);
  });
  // The child's own handler (output.ts) prints the line, cleans up and picks the exit
  // status that this process returns. A terminal's Ctrl-C reaches the child twice
  // (from the terminal and from here), which ends it at once as a second Ctrl-C does.
  const pass = (signal: NodeJS.Signals): void => void child.kill(signal);
  for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(s, pass);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      if (pending !== '') forward(pending);
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 1));
    });
  });
}
