/**
 * The run pipeline, shared by the CLI, `compare` and the tests: source -> checked AST
 * -> bytecode -> linked into a fresh heap with the chosen collector -> interpreted.
 * Faults of the program become exit statuses and one-line diagnostics here; nothing
 * below this file prints or exits.
 */

import { readFileSync } from 'node:fs';
import type { BytecodeProgram } from '../bytecode/program.js';
import { link } from '../vm/link.js';
import { Vm } from '../vm/driver.js';
import { MiniRuntimeError } from '../vm/format.js';
import { generate, layoutOf } from '../vm/tier/codegen.js';
import { DEFAULT_TIER, type TierCode, type TierCodeStore, type TierOptions, type TierStats } from '../vm/tier/tier.js';
import { UsageError, type RunOptions } from './options.js';
import type { GcRecord } from '../heap/index.js';
import { createMemory, isNoGpuError, MemorySetupError, type Memory, type MemoryHooks, type RunStats } from '../collectors/index.js';
import { usageMessage } from './help.js';
import { OutputStream } from './output-file.js';
import { interruption, onInterrupt } from './output.js';
import { cliCompileCache } from './compile-cache.js';
import { frontEnd } from './front-end.js';
import { statMs } from '../heap/stat-units.js';
import { GcLog, type TimedGcRecord } from './gc-log.js';
import { now } from '../heap/clock.js';

export type { TimedGcRecord };

export const EXIT = { ok: 0, usage: 64, compile: 65, noGpu: 69, runtime: 70 } as const;

export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** A run's statistics with every collection's start and end time (docs/cli.md). */
export interface TimedRunStats extends Omit<RunStats, 'collections'> {
  collections: TimedGcRecord[];
}

export interface RunOutcome {
  exitCode: number;
  stats: TimedRunStats | undefined;
  /** The compiled tier's counters (`--stats`). */
  tier?: TierStats;
  /** When the heap, collector and devices were ready and the program began: ms since the run started. */
  readyMs?: number;
}

/** The tier options a run's flags ask for. */
export function tierOptions(o: RunOptions): TierOptions {
  const mode = o.tier ?? DEFAULT_TIER.mode;
  const threshold = o.tierThreshold ?? (mode === 'compiled' ? 0 : DEFAULT_TIER.threshold);
  return { mode, threshold, dispatch: o.dispatch, timing: o.stats || o.jsonStats !== undefined };
}

/** Where a run's bytecode came from (`--stats`' `program:` line, `compile` in `--json-stats`). */
export interface CompileInfo {
  /** From the compile cache (true) or the front end. */
  readonly cached: boolean;
  /** Reading the entry, or parsing, checking and compiling. */
  readonly ms: number;
}

/** The compiled tier's code kept with a program's entry in the compile cache, and the
 *  way to keep what a run adds to it. */
export interface ProgramCode {
  readonly store: TierCodeStore | undefined;
  keep(code: Map<string, TierCode>): void;
}

/**
 * A program's bytecode: from the compile cache (compile-cache.ts) when this build
 * compiled the same source before, else from the front end (front-end.ts, loaded
 * only then, with chevrotain); on errors writes the diagnostics and returns
 * undefined. `code` is the compiled tier's part of the cache entry, where there is a cache.
 */
export async function loadProgram(
  file: string,
  source: string,
  io: Io,
): Promise<{ program: BytecodeProgram; compile: CompileInfo; code?: ProgramCode } | undefined> {
  const t0 = now();
  const cache = cliCompileCache();
  const cached = cache?.get(file, source);
  const code = (program: BytecodeProgram, store: TierCodeStore | undefined): ProgramCode | undefined =>
    cache ? { store, keep: (tier) => void cache.put(file, source, program, tier) } : undefined;
  if (cached !== undefined) {
    return { program: cached.program, compile: { cached: true, ms: now() - t0 }, code: code(cached.program, cached.tier) };
  }
  const { compileSource } = await frontEnd();
  const program = compileSource(file, source, io);
  if (program === undefined) return undefined;
  const ms = now() - t0;
  cache?.put(file, source, program);
  return { program, compile: { cached: false, ms }, code: code(program, undefined) };
}

/** `--stats`' line for where the bytecode came from. */
export function formatCompileInfo(c: CompileInfo): string {
  return c.cached ? `program: bytecode from the compile cache in ${statMs(c.ms)}` : `program: compiled in ${statMs(c.ms)}`;
}

export function readSource(file: string): string {
  // A byte-order mark some editors write is not part of the program.
  const text = readFileSync(file, 'utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Runs a program's source under `options`; returns the exit status and statistics. */
export async function runSource(file: string, source: string, options: RunOptions, io: Io): Promise<RunOutcome> {
  const loaded = await loadProgram(file, source, io);
  if (!loaded) return { exitCode: EXIT.compile, stats: undefined };
  return runProgram(loaded.program, options, io, {}, loaded.code);
}

/** `minivm disasm --js`: the JavaScript the compiled tier generates for every function, for the
 *  run's layout, with the form for each loop head after the body of a function with loops. */
export async function disassembleJs(program: BytecodeProgram, options: RunOptions, io: Io): Promise<string> {
  const memory = await createMemory({ ...options, gc: 'none' }, io);
  try {
    const linked = link(program, memory.heap);
    const layout = layoutOf(memory.heap);
    return program.functions.map((f, fn) => {
      const g = generate(linked, layout, fn, options.dispatch);
      const heads = g.analysis.osrBlocks.map((b) =>
        `// fun #${fn} ${f.name}, entered at loop head ${b}\n${generate(linked, layout, fn, options.dispatch, 'osr', b).source}\n`);
      return [`// fun #${fn} ${f.name}\n${g.source}\n`, ...heads].join('');
    }).join('\n');
  } finally {
    await memory.dispose();
  }
}

/** Runs a compiled program; `hooks` let `heapshape` look at every collection; `code` is
 *  the compiled tier's code kept from earlier runs, and takes what this run adds. */
export async function runProgram(
  program: BytecodeProgram,
  options: RunOptions,
  io: Io,
  hooks: MemoryHooks = {},
  code?: ProgramCode,
): Promise<RunOutcome> {
  let memory: Memory | undefined;
  let vm: Vm | undefined;
  let stopOnInterrupt = (): void => {};
  // The GC log goes to stderr, or into --log-gc=FILE (written as the run goes, renamed at the end).
  const file = options.logGc && options.logGcFile !== undefined ? new OutputStream(options.logGcFile) : undefined;
  const log = options.logGc ? new GcLog(options.logFormat ?? 'text', file ? (t) => file.write(t) : io.stderr) : undefined;
  const t0 = now();
  let readyMs: number | undefined;
  // Each collection is timed as it ends; its start is its end less the pause and any --verify-gc check.
  const timed: TimedGcRecord[] = [];
  const memoryIo = {
    stdout: io.stdout,
    stderr: io.stderr,
    collected: (record: GcRecord): void => {
      const endMs = now() - t0;
      const r = { ...record, startMs: Math.max(0, endMs - record.pauseMs - record.phases.verify), endMs };
      timed.push(r);
      log?.collection(r);
    },
    warn: (t: string) => io.stderr(t),
  };
  const finish = async (m: Memory): Promise<TimedRunStats> => {
    await m.settle();
    const stats = m.finish(now() - t0);
    const collections = stats.collections.map((c, i) => {
      const endMs = timed[i]?.endMs ?? stats.wallMs;
      return { ...c, startMs: timed[i]?.startMs ?? Math.max(0, endMs - c.pauseMs - c.phases.verify), endMs };
    });
    return { ...stats, collections };
  };
  const tierStats = (): TierStats | undefined => vm && { ...vm.tier.stats, icSites: vm.tier.siteCensus() };
  /** Keeps the compiled code of a run that ended (well or with the program's fault). */
  const keepCode = (): void => {
    const keep = code && vm ? vm.tier.codeToKeep() : null;
    if (keep) code?.keep(keep);
  };
  try {
    log?.start(options);
    memory = await createMemory({ ...options, logGc: false }, memoryIo, hooks);
    readyMs = now() - t0;
    const m = memory;
    stopOnInterrupt = onInterrupt(() => m.dispose());
    vm = new Vm(link(program, memory.heap), memory.heap, { write: io.stdout }, tierOptions(options), { args: options.args, tierCode: code?.store });
    await vm.run(interruption.signal);
    const outcome = { exitCode: EXIT.ok, stats: await finish(memory), tier: tierStats(), readyMs };
    keepCode();
    return outcome;
  } catch (e) {
    if (e instanceof MiniRuntimeError) {
      io.stderr(e.format(program.file) + '\n');
      const outcome = { exitCode: EXIT.runtime, stats: memory && (await finish(memory)), tier: tierStats(), readyMs };
      keepCode();
      return outcome;
    }
    if (e instanceof UsageError || e instanceof MemorySetupError) {
      io.stderr(usageMessage(e.message, 'run'));
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
    file?.close();
  }
}
