/**
 * The command line's one source of truth: the commands, each command's options, their
 * value syntax, defaults and help lines. The parser (args.ts), the help text (help.ts)
 * and the docs test read this table; nothing else lists an option.
 */

import { COLLECTOR_NAMES, type CollectorName } from '../collectors/names.js';
import { LAYOUT_NAMES, type LayoutName } from '../heap/layout.js';

export class UsageError extends Error {}

export { COLLECTOR_NAMES, LAYOUT_NAMES, type CollectorName, type LayoutName };
export const TIER_NAMES = ['interp', 'compiled', 'auto'] as const;
export type TierName = (typeof TIER_NAMES)[number];
export const DISPATCH_NAMES = ['ic', 'vtable', 'devirt'] as const;
export type DispatchName = (typeof DISPATCH_NAMES)[number];
export const LOG_FORMAT_NAMES = ['text', 'hotspot', 'jsonl'] as const;
export type LogFormatName = (typeof LOG_FORMAT_NAMES)[number];

export interface RunOptions {
  gc: CollectorName;
  layout: LayoutName;
  heapBytes: number;
  youngBytes: number | undefined;
  survivorRatio: number;
  tenureAge: number;
  gcStress: number;
  verifyGc: boolean;
  /** One line per collection: on stderr, or into `logGcFile` when one is named. */
  logGc: boolean;
  logGcFile: string | undefined;
  /** `--log-format`: the GC log's format; undefined when not given (text). */
  logFormat: LogFormatName | undefined;
  /** `--trace FILE`: a Chrome trace-event timeline of the run. */
  trace: string | undefined;
  stats: boolean;
  jsonStats: string | undefined;
  gpuOpt: string;
  gpuBenchmark: boolean;
  threads: number | undefined;
  /** `--gc-solo-below SIZE` (parallel); undefined for the default. */
  gcSoloBytes: number | undefined;
  /** `--pretouch`: every page of the heap written before the program runs (HotSpot's AlwaysPreTouch). */
  pretouch: boolean;
  /** `--gc-warm-up on|off`: the collectors' warm-up before the program runs (collectors/memory.ts). */
  gcWarmUp: boolean | undefined;
  /** `--pause-goal` (auto): the pause, in milliseconds, to meet at least CPU time. */
  pauseGoalMs: number | undefined;
  /** `--gpu-min-live SIZE` (gpu-dfs, gpu-bfs); undefined for the adapter's default. */
  gpuMinLiveBytes: number | undefined;
  /** Execution tier; undefined leaves the interpreter's own default. */
  tier: TierName | undefined;
  tierThreshold: number | undefined;
  /** How compiled code makes virtual calls. */
  dispatch: DispatchName;
  /** `disasm --js`: the compiled tier's JavaScript instead of the bytecode. */
  js: boolean;
  /** The program's arguments (after `--`), read by the `args()` built-in. */
  args: string[];
}

export interface CompareOptions {
  gcs: CollectorName[];
  layouts: LayoutName[];
  repeat: number;
  /** Runs of each configuration before the measured ones, thrown away. */
  warmup: number;
  /** Run every configuration in this process instead of a fresh one each. */
  inProcess: boolean;
  json: boolean;
  report: string | undefined;
  /** `--heap` given as a list or as multiples (heap-sweep.ts); a single size stays in RunOptions.heapBytes. */
  heaps: HeapList | undefined;
  /** `--min-heap`: find each configuration's smallest heap. */
  minHeap: boolean;
}

export function defaultRunOptions(): RunOptions {
  return {
    gc: 'serial', layout: 'sable', heapBytes: 256 * 1024 ** 2, youngBytes: undefined, survivorRatio: 8,
    tenureAge: 15, gcStress: 0, verifyGc: false, logGc: false, logGcFile: undefined, logFormat: undefined, trace: undefined, stats: false,
    jsonStats: undefined, gpuOpt: 'all', gpuBenchmark: false, threads: undefined, gcSoloBytes: undefined, pretouch: false, gcWarmUp: undefined, pauseGoalMs: undefined, gpuMinLiveBytes: undefined, tier: undefined,
    tierThreshold: undefined, dispatch: 'devirt', js: false, args: [],
  };
}

export function defaultCompareOptions(): CompareOptions {
  return { gcs: [], layouts: [], repeat: 1, warmup: 0, inProcess: false, json: false, report: undefined, heaps: undefined, minHeap: false };
}

export const COMMAND_NAMES = ['run', 'disasm', 'compare', 'heapshape', 'test'] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];

export interface CommandSpec {
  name: CommandName;
  synopsis: string;
  summary: string;
  /** Whether `-- ARGS...` passes arguments to the program. */
  programArgs: boolean;
  /** Takes any number of files and folders (none too), not exactly one file. */
  manyFiles?: boolean;
}

export const COMMANDS: readonly CommandSpec[] = [
  { name: 'run', synopsis: 'run FILE [options] [-- ARGS...]', summary: 'run a program (also: minivm FILE)', programArgs: true },
  { name: 'disasm', synopsis: 'disasm FILE [--js]', summary: "print the bytecode (--js: the compiled tier's JavaScript)", programArgs: false },
  {
    name: 'compare', synopsis: 'compare FILE [options] [-- ARGS...]',
    summary: 'run under several collectors and layouts, compare', programArgs: true,
  },
  {
    name: 'heapshape', synopsis: 'heapshape FILE [options] [-- ARGS...]',
    summary: "the heap's shape at each collection (Maas et al. section 3)", programArgs: true,
  },
  {
    name: 'test', synopsis: 'test [FILES|DIRS] [options]', manyFiles: true, programArgs: false,
    summary: "check programs' // expect: comments (default: the .mini files under .; exit 1 if any fails)",
  },
];

export interface Parsed {
  run: RunOptions;
  compare: CompareOptions;
}

export interface OptionSpec {
  /** The long name, without `--`. */
  name: string;
  /** The value's name in the help; absent for a flag. */
  arg?: string;
  /** The value is optional and only given inline: `--log-gc=FILE`. */
  optionalArg?: boolean;
  help: string;
  commands: readonly CommandName[];
  /** Stores the value; throws UsageError on a bad one. `flag` is the text as typed. */
  apply(p: Parsed, value: string | undefined, flag: string): void;
}

/** Parses `64m`, `1g`, `512k`, `1048576` into bytes. */
export function parseSize(text: string, flag: string): number {
  const m = /^(\d+)([kmg]?)b?$/i.exec(text);
  if (!m) throw new UsageError(`${flag}: '${text}' is not a size (examples: 64m, 1g, 512k)`);
  const unit = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[2]!.toLowerCase() as '' | 'k' | 'm' | 'g'];
  return Number(m[1]) * unit;
}

/** What compare's `--heap` asked for: absolute sizes, or multiples of each configuration's minimum heap. */
export type HeapList = { kind: 'sizes'; bytes: number[] } | { kind: 'multiples'; factors: number[] };

/** Heap sizes the minimum-heap search tries are whole multiples of this, so each is a size `run --heap` takes (`NNNk`). */
export const HEAP_QUANTUM = 4096;

/** Parses compare's `--heap`: `64m`, `2m,4m,8m` or `1.5x,2x,3x` (one kind in one list). */
export function parseHeapList(text: string | undefined, flag: string): HeapList {
  if (text === undefined || text === '') throw new UsageError(`${flag} needs a size or a comma-separated list (2m,4m or 2x,3x)`);
  const items = text.split(',').map((s) => s.trim());
  if (items.some((s) => s === '')) throw new UsageError(`${flag}: empty element in '${text}'`);
  const multiple = items.map((s) => /x$/i.test(s));
  if (multiple.some((m) => m) && !multiple.every((m) => m)) {
    throw new UsageError(`${flag}: '${text}' mixes sizes and multiples; give sizes (2m,4m) or multiples of the minimum heap (2x,3x), not both`);
  }
  if (multiple[0]) {
    const factors = items.map((s) => {
      const m = /^(\d+(?:\.\d+)?)x$/i.exec(s);
      if (!m) throw new UsageError(`${flag}: '${s}' is not a multiple (examples: 2x, 1.5x)`);
      if (!(Number(m[1]) >= 1)) throw new UsageError(`${flag}: '${s}' is below 1x; a multiple of the minimum heap must be at least 1x`);
      return Number(m[1]);
    });
    return { kind: 'multiples', factors: [...new Set(factors)] };
  }
  const bytes = items.map((s) => {
    const b = parseSize(s, flag);
    if (b === 0) throw new UsageError(`${flag}: '${s}' is an empty heap`);
    return b;
  });
  return { kind: 'sizes', bytes: [...new Set(bytes)] };
}

function integer(text: string | undefined, flag: string, min: number): number {
  if (text === undefined || !/^\d+$/.test(text) || Number(text) < min) {
    throw new UsageError(`${flag} needs an integer of at least ${min}${text === undefined ? '' : ` (got '${text}')`}`);
  }
  return Number(text);
}

/** A duration in milliseconds: a positive decimal number, such as 5 or 2.5. */
function milliseconds(text: string | undefined, flag: string): number {
  if (text === undefined || !/^\d+(\.\d+)?$/.test(text) || !(Number(text) > 0) || !Number.isFinite(Number(text))) {
    throw new UsageError(`${flag} needs a positive number of milliseconds, such as 5 or 2.5${text === undefined ? '' : ` (got '${text}')`}`);
  }
  return Number(text);
}

function oneOf<T extends string>(text: string | undefined, flag: string, names: readonly T[], listHint = ''): T {
  if (text !== undefined && text.includes(',') && text.split(',').every((s) => names.includes(s.trim() as T))) {
    throw new UsageError(`${flag} takes one name here, not a list ('${text}')${listHint}`);
  }
  if (text === undefined || !names.includes(text as T)) {
    throw new UsageError(`${flag} must be one of ${names.join(', ')}${text === undefined ? '' : ` (got '${text}')`}`);
  }
  return text as T;
}

function listOf<T extends string>(text: string | undefined, flag: string, names: readonly T[]): T[] {
  if (text === undefined || text === '') throw new UsageError(`${flag} needs a comma-separated list of ${names.join(', ')}`);
  return [...new Set(text.split(',').map((s) => oneOf(s.trim(), flag, names)))];
}

function fileName(text: string | undefined, flag: string): string {
  if (!text) throw new UsageError(`${flag} needs a file name`);
  return text;
}

const RUNS: readonly CommandName[] = ['run', 'compare', 'heapshape', 'test'];
const LIST_HINT = '; compare takes a list';

export const OPTIONS: readonly OptionSpec[] = [
  {
    name: 'gc', arg: 'NAME', commands: ['run', 'heapshape'],
    help: `collector: ${COLLECTOR_NAMES.join(' | ')} (default serial)`,
    apply: (p, v, f) => void (p.run.gc = oneOf(v, f, COLLECTOR_NAMES, LIST_HINT)),
  },
  {
    name: 'gc', arg: 'LIST', commands: ['compare', 'test'],
    help: 'collectors, comma-separated (default: compare all of them, test serial)',
    apply: (p, v, f) => void (p.compare.gcs = listOf(v, f, COLLECTOR_NAMES)),
  },
  {
    name: 'layout', arg: 'NAME', commands: ['run', 'heapshape', 'disasm'],
    help: `object layout: ${LAYOUT_NAMES.join(' | ')} (default sable)`,
    apply: (p, v, f) => void (p.run.layout = oneOf(v, f, LAYOUT_NAMES, LIST_HINT)),
  },
  {
    name: 'layout', arg: 'LIST', commands: ['compare', 'test'],
    help: 'layouts, comma-separated (default: compare both, test sable)',
    apply: (p, v, f) => void (p.compare.layouts = listOf(v, f, LAYOUT_NAMES)),
  },
  {
    name: 'heap', arg: 'SIZE', commands: ['run', 'heapshape', 'test'], help: 'heap size, e.g. 64m, 1g (default 256m)',
    apply: (p, v, f) => {
      if (v?.includes(',')) throw new UsageError(`${f} takes one size here, not a list ('${v}'); compare takes a list`);
      if (v !== undefined && /^[\d.]+x$/i.test(v)) throw new UsageError(`${f} takes a size here ('${v}' is a multiple of the minimum heap, which compare takes)`);
      p.run.heapBytes = parseSize(v ?? '', f);
    },
  },
  {
    name: 'heap', arg: 'LIST', commands: ['compare'],
    help: 'heap size (default 256m), a list to sweep (2m,4m,8m), or multiples of each minimum heap (2x,3x)',
    apply: (p, v, f) => {
      const list = parseHeapList(v, f);
      // One size is the plain run option (and --min-heap's upper bound); a list or multiples sweep.
      if (list.kind === 'sizes' && list.bytes.length === 1) [p.run.heapBytes, p.compare.heaps] = [list.bytes[0]!, undefined];
      else p.compare.heaps = list;
    },
  },
  {
    name: 'young', arg: 'SIZE', commands: RUNS, help: 'young generation size (default a third of the heap)',
    apply: (p, v, f) => void (p.run.youngBytes = parseSize(v ?? '', f)),
  },
  {
    name: 'survivor-ratio', arg: 'N', commands: RUNS, help: 'eden / one survivor space (default 8)',
    apply: (p, v, f) => void (p.run.survivorRatio = integer(v, f, 1)),
  },
  {
    name: 'tenure-age', arg: 'N', commands: RUNS, help: 'collections survived before promotion (default 15)',
    apply: (p, v, f) => void (p.run.tenureAge = integer(v, f, 0)),
  },
  {
    name: 'gc-stress', arg: 'N', commands: RUNS, help: 'collect every N allocations (every 4th such collection full)',
    apply: (p, v, f) => void (p.run.gcStress = integer(v, f, 1)),
  },
  {
    name: 'verify-gc', commands: RUNS, help: 'check the heap (and GPU mark sets) after every collection',
    apply: (p) => void (p.run.verifyGc = true),
  },
  {
    name: 'gpu-opt', arg: 'LIST', commands: RUNS, help: 'GPU marking optimizations: all (default), none, or a list',
    apply: (p, v, f) => {
      if (!v) throw new UsageError(`${f} needs a list (all, none, or names)`);
      p.run.gpuOpt = v;
    },
  },
  {
    name: 'gpu-benchmark', commands: RUNS, help: 'open the GPU with validation and robustness checks off',
    apply: (p) => void (p.run.gpuBenchmark = true),
  },
  {
    name: 'threads', arg: 'N', commands: RUNS, help: 'GC threads of the parallel collector and auto (default: the cores up to 8, then 5 of every 8 more)',
    apply: (p, v, f) => void (p.run.threads = integer(v, f, 1)),
  },
  {
    name: 'gc-solo-below', arg: 'SIZE', commands: RUNS,
    help: 'parallel, and auto when it chooses parallel: a collection over less heap in use than SIZE runs on the main thread alone, the workers left asleep, and a larger one on one thread per SIZE of it (default 256k; 0: every collection on every thread)',
    apply: (p, v, f) => void (p.run.gcSoloBytes = parseSize(v ?? '', f)),
  },
  {
    name: 'gpu-min-live', arg: 'SIZE', commands: RUNS,
    help: 'gpu-dfs, gpu-bfs: a collection predicted to trace less than SIZE (what survives a young one, the live heap for a full one) runs on the CPU (default 2m on a hardware GPU, 0 on a software one; 0: every collection on the GPU)',
    apply: (p, v, f) => void (p.run.gpuMinLiveBytes = parseSize(v ?? '', f)),
  },
  {
    name: 'pretouch', commands: RUNS,
    help: "write every page of the heap before the program runs (HotSpot's AlwaysPreTouch): no first-touch cost in pauses",
    apply: (p) => void (p.run.pretouch = true),
  },
  {
    name: 'gc-warm-up', arg: 'on|off', commands: RUNS,
    help: "run the collector's code over a small scratch heap before the program, so its first collections run optimized code (default: on, off for serial)",
    apply: (p, v, f) => void (p.run.gcWarmUp = oneOf(v, f, ['on', 'off']) === 'on'),
  },
  {
    name: 'pause-goal', arg: 'MS', commands: RUNS,
    help: 'auto: the engine that meets this pause (ms) at least CPU time, else the fastest',
    apply: (p, v, f) => void (p.run.pauseGoalMs = milliseconds(v, f)),
  },
  {
    name: 'tier', arg: 'NAME', commands: RUNS, help: `execution tier: ${TIER_NAMES.join(' | ')} (default auto: compile each function when called, or after --tier-threshold)`,
    apply: (p, v, f) => void (p.run.tier = oneOf(v, f, TIER_NAMES)),
  },
  {
    name: 'tier-threshold', arg: 'N', commands: RUNS, help: 'calls or loop back-edges before a function is compiled (--tier auto; default 0: at its first call)',
    apply: (p, v, f) => void (p.run.tierThreshold = integer(v, f, 0)),
  },
  {
    name: 'dispatch', arg: 'NAME', commands: [...RUNS, 'disasm'], help: `compiled virtual calls: ${DISPATCH_NAMES.join(' | ')} (default devirt)`,
    apply: (p, v, f) => void (p.run.dispatch = oneOf(v, f, DISPATCH_NAMES)),
  },
  {
    name: 'js', commands: ['disasm'], help: "the compiled tier's JavaScript for every function, not the bytecode",
    apply: (p) => void (p.run.js = true),
  },
  {
    name: 'log-gc', arg: 'FILE', optionalArg: true, commands: ['run'],
    help: 'one line per collection, on stderr or (--log-gc=FILE) into FILE',
    apply: (p, v, f) => {
      p.run.logGc = true;
      if (v !== undefined) p.run.logGcFile = fileName(v, f);
    },
  },
  {
    name: 'log-format', arg: 'NAME', commands: ['run'],
    help: `--log-gc's format: ${LOG_FORMAT_NAMES.join(' | ')} (default text; hotspot: HotSpot's -Xlog:gc* lines)`,
    apply: (p, v, f) => void (p.run.logFormat = oneOf(v, f, LOG_FORMAT_NAMES)),
  },
  {
    name: 'trace', arg: 'FILE', commands: ['run'], help: 'a Chrome trace-event timeline of the run (Perfetto, chrome://tracing)',
    apply: (p, v, f) => void (p.run.trace = fileName(v, f)),
  },
  {
    name: 'stats', commands: ['run'], help: 'a summary on stderr at exit',
    apply: (p) => void (p.run.stats = true),
  },
  {
    name: 'json-stats', arg: 'FILE', commands: ['run'], help: "the run's statistics as JSON (docs/cli.md)",
    apply: (p, v, f) => void (p.run.jsonStats = fileName(v, f)),
  },
  {
    name: 'repeat', arg: 'N', commands: ['compare'], help: 'runs per configuration (default 1)',
    apply: (p, v, f) => void (p.compare.repeat = integer(v, f, 1)),
  },
  {
    name: 'warmup', arg: 'N', commands: ['compare'], help: 'runs of each configuration before the measured ones (default 0)',
    apply: (p, v, f) => void (p.compare.warmup = integer(v, f, 0)),
  },
  {
    name: 'min-heap', commands: ['compare'],
    help: "find each configuration's smallest heap (bisection to 1%; --heap SIZE is the upper bound)",
    apply: (p) => void (p.compare.minHeap = true),
  },
  {
    name: 'in-process', commands: ['compare'], help: 'every run in this process, not a fresh one each (faster, less fair)',
    apply: (p) => void (p.compare.inProcess = true),
  },
  {
    name: 'json', commands: ['compare', 'heapshape'], help: 'the result as JSON on stdout (docs/cli.md)',
    apply: (p) => void (p.compare.json = true),
  },
  {
    name: 'report', arg: 'FILE.html', commands: ['compare', 'heapshape'], help: 'a self-contained HTML report (compare also writes FILE.csv)',
    apply: (p, v, f) => void (p.compare.report = fileName(v, f)),
  },
];

/** The options of one command, in table order. */
export function optionsOf(command: CommandName): OptionSpec[] {
  return OPTIONS.filter((o) => o.commands.includes(command));
}
