/**
 * The run pipeline, shared by the CLI, `compare` and the tests: source -> checked AST
 * -> bytecode -> linked into a fresh heap with the chosen collector -> interpreted.
 * Faults of the program become exit statuses and one-line diagnostics here; nothing
 * below this file prints or exits.
 */

import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { compile } from '../bytecode/compiler.js';
import type { BytecodeProgram } from '../bytecode/program.js';
import { formatDiagnostics, parseAndCheck } from '../lang/index.js';
import { link } from '../vm/link.js';
import { Interpreter } from '../vm/interpreter.js';
import { MiniRuntimeError } from '../vm/format.js';
import type { RunOptions } from './args.js';
import {
  createMemory,
  isNoGpuError,
  MemorySetupError,
  type Memory,
  type MemoryHooks,
  type RunStats,
} from '../collectors/index.js';
import { USAGE, UsageError } from './args.js';
import { onInterrupt } from './output.js';
import { compileOnLargeStack } from './compile-deep.js';

export const EXIT = { ok: 0, usage: 64, compile: 65, noGpu: 69, runtime: 70 } as const;

export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
}

export interface RunOutcome {
  exitCode: number;
  stats: RunStats | undefined;
}

/** Compiles a source text; on errors writes the diagnostics and returns undefined. */
export function compileSource(file: string, source: string, io: Io): BytecodeProgram | undefined {
  try {
    const checked = parseAndCheck(file, source);
    if ('errors' in checked) {
      io.stderr(formatDiagnostics(checked.errors, source) + '\n');
      return undefined;
    }
    return compile(checked.program, checked.mainLocals);
  } catch (e) {
    // The parser, checker and compiler recurse over the program's nesting: past
    // what the default stack holds, the same on a large one (within MAX_NESTING).
    if (!(e instanceof RangeError)) throw e;
  }
  const deep = compileOnLargeStack(file, source);
  if ('program' in deep) return deep.program;
  if ('diagnostics' in deep) io.stderr(deep.diagnostics + '\n');
  else io.stderr(`${file}: error: the program is nested too deeply to compile (${deep.overflow})\n`);
  return undefined;
}

export function readSource(file: string): string {
  // A byte-order mark some editors write is not part of the program.
  const text = readFileSync(file, 'utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Runs a program's source under `options`; returns the exit status and statistics. */
export async function runSource(file: string, source: string, options: RunOptions, io: Io): Promise<RunOutcome> {
  const program = compileSource(file, source, io);
  if (!program) return { exitCode: EXIT.compile, stats: undefined };
  return runProgram(program, options, io);
}

/**
 * Throws a UsageError unless `path` can be written: an output file the run would
 * fail to write at its end is a mistake on the command line, found before the run.
 */
export function checkOutputPath(flag: string, path: string): void {
  const full = resolve(path);
  let isDir = false;
  try {
    isDir = statSync(full).isDirectory();
  } catch {
    // Not there yet: its directory must exist and be writable.
  }
  if (isDir) throw new UsageError(`${flag}: '${path}' is a directory`);
  try {
    accessSync(dirname(full), constants.W_OK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such directory' : code === 'EACCES' ? 'permission denied' : (e as Error).message;
    throw new UsageError(`${flag}: cannot write '${path}': ${reason}`);
  }
}

/** Runs a compiled program; `hooks` let `heapshape` look at every collection. */
export async function runProgram(program: BytecodeProgram, options: RunOptions, io: Io, hooks: MemoryHooks = {}): Promise<RunOutcome> {
  let memory: Memory | undefined;
  let stopOnInterrupt = (): void => {};
  const t0 = performance.now();
  try {
    if (options.jsonStats !== undefined) checkOutputPath('--json-stats', options.jsonStats);
    memory = await createMemory(options, io, hooks);
    const m = memory;
    stopOnInterrupt = onInterrupt(() => m.dispose());
    const vm = new Interpreter(link(program, memory.heap), memory.heap, { write: io.stdout });
    await vm.run();
    const stats = memory.finish(performance.now() - t0);
    return { exitCode: EXIT.ok, stats };
  } catch (e) {
    if (e instanceof MiniRuntimeError) {
      io.stderr(e.format(program.file) + '\n');
      return { exitCode: EXIT.runtime, stats: memory?.finish(performance.now() - t0) };
    }
    if (e instanceof UsageError || e instanceof MemorySetupError) {
      io.stderr(`minivm: ${e.message}\n${USAGE}\n`);
      return { exitCode: EXIT.usage, stats: undefined };
    }
    if (isNoGpuError(e)) {
      io.stderr(`minivm: ${(e as Error).message}\n`);
      return { exitCode: EXIT.noGpu, stats: undefined };
    }
    if (e instanceof Error && e.name === 'HeapVerificationError') {
      io.stderr(`minivm: --verify-gc: ${e.message}\n`);
      return { exitCode: EXIT.runtime, stats: undefined };
    }
    throw e;
  } finally {
    stopOnInterrupt();
    await memory?.dispose();
  }
}
