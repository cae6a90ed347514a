/**
 * The run pipeline, shared by the CLI, `compare` and the tests: source -> checked AST
 * -> bytecode -> linked into a fresh heap with the chosen collector -> interpreted.
 * Faults of the program become exit statuses and one-line diagnostics here; nothing
 * below this file prints or exits.
 */

import { readFileSync } from 'node:fs';
import { compile } from '../bytecode/compiler.js';
import type { BytecodeProgram } from '../bytecode/program.js';
import { formatDiagnostics, parseAndCheck } from '../lang/index.js';
import { link } from '../vm/link.js';
import { Vm } from '../vm/driver.js';
import { MiniRuntimeError } from '../vm/format.js';
import { generate } from '../vm/tier/codegen.js';
import { DEFAULT_TIER, type TierOptions, type TierStats } from '../vm/tier/tier.js';
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

export const EXIT = { ok: 0, usage: 64, compile: 65, noGpu: 69, runtime: 70 } as const;

export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
}

export interface RunOutcome {
  exitCode: number;
  stats: RunStats | undefined;
  /** The compiled tier's counters (`--stats`). */
  tier?: TierStats;
}

/** The tier options a run's flags ask for. */
export function tierOptions(o: RunOptions): TierOptions {
  const threshold = o.tierThreshold ?? (o.tier === 'compiled' ? 0 : DEFAULT_TIER.threshold);
  return { mode: o.tier, threshold, dispatch: o.dispatch, timing: o.stats || o.jsonStats !== undefined };
}

/** Compiles a source text; on errors writes the diagnostics and returns undefined. */
export function compileSource(file: string, source: string, io: Io): BytecodeProgram | undefined {
  let checked: ReturnType<typeof parseAndCheck>;
  try {
    checked = parseAndCheck(file, source);
  } catch (e) {
    // The parser and checker recurse over the program's nesting; thousands of nested
    // parentheses or blocks exhaust JavaScript's stack before any limit of ours.
    if (!(e instanceof RangeError)) throw e;
    io.stderr(`${file}: error: the program is nested too deeply to compile (${e.message})\n`);
    return undefined;
  }
  if ('errors' in checked) {
    io.stderr(formatDiagnostics(checked.errors, source) + '\n');
    return undefined;
  }
  return compile(checked.program, checked.mainLocals);
}

export function readSource(file: string): string {
  return readFileSync(file, 'utf8');
}

/** Runs a program's source under `options`; returns the exit status and statistics. */
export async function runSource(file: string, source: string, options: RunOptions, io: Io): Promise<RunOutcome> {
  const program = compileSource(file, source, io);
  if (!program) return { exitCode: EXIT.compile, stats: undefined };
  return runProgram(program, options, io);
}

/** `minivm disasm --js`: the JavaScript the compiled tier generates for every function, for the run's layout. */
export async function disassembleJs(program: BytecodeProgram, options: RunOptions, io: Io): Promise<string> {
  const memory = await createMemory({ ...options, gc: 'none' }, io);
  try {
    const h = memory.heap;
    const linked = link(program, h);
    const layout = { typeOff: h.typeWordOffset, lenOff: h.lengthWordOffset, dataOff: h.arrayDataOffset };
    return program.functions.map((f, fn) => `// fun #${fn} ${f.name}\n${generate(linked, layout, fn, options.dispatch).source}\n`).join('\n');
  } finally {
    await memory.dispose();
  }
}

/** Runs a compiled program; `hooks` let `heapshape` look at every collection. */
export async function runProgram(program: BytecodeProgram, options: RunOptions, io: Io, hooks: MemoryHooks = {}): Promise<RunOutcome> {
  let memory: Memory | undefined;
  let vm: Vm | undefined;
  const t0 = performance.now();
  const tierStats = (): TierStats | undefined => vm && { ...vm.tier.stats, icSites: vm.tier.siteCensus() };
  try {
    memory = await createMemory(options, io, hooks);
    vm = new Vm(link(program, memory.heap), memory.heap, { write: io.stdout }, tierOptions(options));
    await vm.run();
    const stats = memory.finish(performance.now() - t0);
    return { exitCode: EXIT.ok, stats, tier: tierStats() };
  } catch (e) {
    if (e instanceof MiniRuntimeError) {
      io.stderr(e.format(program.file) + '\n');
      return { exitCode: EXIT.runtime, stats: memory?.finish(performance.now() - t0), tier: tierStats() };
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
    await memory?.dispose();
  }
}
