/**
 * Command-line parsing for `minivm`. Every mistake becomes a UsageError: one line of
 * message, then the usage, exit status 64.
 */

import { COLLECTOR_NAMES, type CollectorName } from '../collectors/names.js';

export const USAGE = `usage: minivm run FILE [options]      run a program (also: minivm FILE)
       minivm disasm FILE [--js]      print the bytecode (--js: the compiled tier's JavaScript)
       minivm compare FILE [options]  run under several collectors and layouts, compare
       minivm heapshape FILE [options]  heap shape at each collection (Maas et al. section 3)
options:
  --gc NAME              none | serial | parallel | gpu-dfs | gpu-bfs | auto (default serial)
  --layout NAME          sable | refgraph (default sable)
  --heap SIZE            heap size, e.g. 64m, 1g (default 256m)
  --young SIZE           young generation size (default a third of the heap)
  --survivor-ratio N     eden / one survivor space (default 8)
  --tenure-age N         collections survived before promotion (default 15)
  --gc-stress N          collect every N allocations (every 4th such collection full)
  --verify-gc            check the heap (and GPU mark sets) after every collection
  --log-gc               one line per collection on stderr
  --stats                a summary on stderr at exit
  --json-stats FILE      the run's statistics as JSON
  --gpu-opt LIST         GPU marking optimizations: all (default), none, or a list
  --gpu-benchmark        open the GPU with validation and robustness checks off
  --threads N            marking threads of the parallel collector
  --tier NAME            interp | compiled | auto (default auto: compile hot functions)
  --tier-threshold N     calls or loop back-edges before auto compiles a function (default 200)
  --dispatch NAME        compiled virtual calls: ic (default) | vtable | devirt
compare options: --gc LIST, --layout LIST, --repeat N, --json, --report FILE.html
heapshape options: --json, --report FILE.html (see docs/cli.md)`;

export class UsageError extends Error {}

export { COLLECTOR_NAMES, type CollectorName };
export const LAYOUT_NAMES = ['sable', 'refgraph'] as const;
export const TIER_NAMES = ['interp', 'compiled', 'auto'] as const;
export const DISPATCH_NAMES = ['ic', 'vtable', 'devirt'] as const;
export type LayoutName = (typeof LAYOUT_NAMES)[number];

export interface RunOptions {
  gc: CollectorName;
  layout: LayoutName;
  heapBytes: number;
  youngBytes: number | undefined;
  survivorRatio: number;
  tenureAge: number;
  gcStress: number;
  verifyGc: boolean;
  logGc: boolean;
  stats: boolean;
  jsonStats: string | undefined;
  gpuOpt: string;
  gpuBenchmark: boolean;
  threads: number | undefined;
  tier: (typeof TIER_NAMES)[number];
  /** undefined: the tier's default (0 under `--tier compiled`). */
  tierThreshold: number | undefined;
  dispatch: (typeof DISPATCH_NAMES)[number];
  /** `disasm --js`. */
  js: boolean;
}

export interface CompareOptions {
  gcs: CollectorName[];
  layouts: LayoutName[];
  repeat: number;
  json: boolean;
  report: string | undefined;
}

export interface Command {
  command: 'run' | 'disasm' | 'compare' | 'heapshape' | 'help';
  file: string;
  run: RunOptions;
  compare: CompareOptions;
}

/** Parses `64m`, `1g`, `512k`, `1048576` into bytes. */
export function parseSize(text: string, flag: string): number {
  const m = /^(\d+)([kmg]?)b?$/i.exec(text);
  if (!m) throw new UsageError(`${flag}: '${text}' is not a size (examples: 64m, 1g, 512k)`);
  const unit = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[2]!.toLowerCase() as '' | 'k' | 'm' | 'g'];
  return Number(m[1]) * unit;
}

function parseInt10(text: string | undefined, flag: string, min: number): number {
  if (text === undefined || !/^\d+$/.test(text) || Number(text) < min) {
    throw new UsageError(`${flag} needs an integer of at least ${min}`);
  }
  return Number(text);
}

function oneOf<T extends string>(text: string | undefined, flag: string, names: readonly T[]): T {
  if (text === undefined || !names.includes(text as T)) {
    throw new UsageError(`${flag} must be one of ${names.join(', ')}${text === undefined ? '' : ` (got '${text}')`}`);
  }
  return text as T;
}

function listOf<T extends string>(text: string | undefined, flag: string, names: readonly T[]): T[] {
  if (text === undefined) throw new UsageError(`${flag} needs a comma-separated list`);
  return text.split(',').map((s) => oneOf(s.trim(), flag, names));
}

export function defaultRunOptions(): RunOptions {
  return {
    gc: 'serial', layout: 'sable', heapBytes: 256 * 1024 ** 2, youngBytes: undefined, survivorRatio: 8,
    tenureAge: 15, gcStress: 0, verifyGc: false, logGc: false, stats: false, jsonStats: undefined,
    gpuOpt: 'all', gpuBenchmark: false, threads: undefined,
    tier: 'auto', tierThreshold: undefined, dispatch: 'ic', js: false,
  };
}

export function parseArgs(argv: readonly string[]): Command {
  const run = defaultRunOptions();
  const compare: CompareOptions = { gcs: [], layouts: [], repeat: 1, json: false, report: undefined };
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq >= 0 ? arg.slice(0, eq) : arg;
    const value = (): string | undefined => (eq >= 0 ? arg.slice(eq + 1) : argv[++i]);
    switch (flag) {
      case '--help': return { command: 'help', file: '', run, compare };
      case '--gc': {
        const v = value();
        if (v !== undefined && v.includes(',')) compare.gcs = listOf(v, flag, COLLECTOR_NAMES);
        else { run.gc = oneOf(v, flag, COLLECTOR_NAMES); compare.gcs = [run.gc]; }
        break;
      }
      case '--layout': {
        const v = value();
        if (v !== undefined && v.includes(',')) compare.layouts = listOf(v, flag, LAYOUT_NAMES);
        else { run.layout = oneOf(v, flag, LAYOUT_NAMES); compare.layouts = [run.layout]; }
        break;
      }
      case '--heap': run.heapBytes = parseSize(value() ?? '', flag); break;
      case '--young': run.youngBytes = parseSize(value() ?? '', flag); break;
      case '--survivor-ratio': run.survivorRatio = parseInt10(value(), flag, 1); break;
      case '--tenure-age': run.tenureAge = parseInt10(value(), flag, 0); break;
      case '--gc-stress': run.gcStress = parseInt10(value(), flag, 1); break;
      case '--verify-gc': run.verifyGc = true; break;
      case '--log-gc': run.logGc = true; break;
      case '--stats': run.stats = true; break;
      case '--json-stats': {
        const v = value();
        if (!v) throw new UsageError('--json-stats needs a file name');
        run.jsonStats = v;
        break;
      }
      case '--gpu-opt': {
        const v = value();
        if (!v) throw new UsageError('--gpu-opt needs a list (all, none, or names)');
        run.gpuOpt = v;
        break;
      }
      case '--gpu-benchmark': run.gpuBenchmark = true; break;
      case '--threads': run.threads = parseInt10(value(), flag, 1); break;
      case '--tier': run.tier = oneOf(value(), flag, TIER_NAMES); break;
      case '--tier-threshold': run.tierThreshold = parseInt10(value(), flag, 0); break;
      case '--dispatch': run.dispatch = oneOf(value(), flag, DISPATCH_NAMES); break;
      case '--js': run.js = true; break;
      case '--repeat': compare.repeat = parseInt10(value(), flag, 1); break;
      case '--json': compare.json = true; break;
      case '--report': {
        const v = value();
        if (!v) throw new UsageError('--report needs a file name');
        compare.report = v;
        break;
      }
      default:
        throw new UsageError(`unknown option '${flag}'`);
    }
  }
  if (run.youngBytes !== undefined && run.youngBytes >= run.heapBytes) {
    throw new UsageError('--young must be smaller than --heap');
  }
  let command: Command['command'] = 'run';
  if (positional[0] === 'run' || positional[0] === 'disasm' || positional[0] === 'compare' || positional[0] === 'heapshape') {
    command = positional.shift() as Command['command'];
  } else if (positional[0] === 'help') {
    return { command: 'help', file: '', run, compare };
  }
  if (positional.length === 0) throw new UsageError('no program file given');
  if (positional.length > 1) throw new UsageError(`unexpected argument '${positional[1]}'`);
  return { command, file: positional[0]!, run, compare };
}
