/**
 * Command-line parsing for `minivm`: the command, then that command's options only
 * (options.ts), read strictly with node:util's parseArgs tokens. Every mistake is a
 * UsageError of one line, with a "did you mean" where a near name exists; main.ts
 * prints it with a pointer to the help (exit 64).
 */

import { parseArgs as tokenize } from 'node:util';
import { existsSync } from 'node:fs';
import {
  COMMAND_NAMES, COMMANDS, defaultCompareOptions, defaultRunOptions, OPTIONS, optionsOf, UsageError,
  type CommandName, type CompareOptions, type Parsed, type RunOptions,
} from './options.js';

export { UsageError, defaultRunOptions, type CollectorName, type LayoutName, type RunOptions } from './options.js';

export interface Command {
  command: CommandName | 'help' | 'version';
  /** For `help`: the command asked about, if any. */
  helpFor?: CommandName;
  file: string;
  run: RunOptions;
  compare: CompareOptions;
  /** The words after `minivm`, for provenance. */
  argv: readonly string[];
}

/** Edit distance, for "did you mean". */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** The nearest candidate within a third of the word's length (at least 1, at most 3 edits). */
export function suggest(word: string, candidates: readonly string[]): string | undefined {
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  let best: string | undefined;
  let bestD = limit + 1;
  for (const c of candidates) {
    const d = distance(word, c);
    if (d < bestD) [best, bestD] = [c, d];
  }
  return best;
}

function isCommand(word: string | undefined): word is CommandName {
  return COMMAND_NAMES.includes(word as CommandName);
}

function unknownOption(flag: string, name: string, command: CommandName): UsageError {
  const elsewhere = [...new Set(OPTIONS.filter((o) => o.name === name).flatMap((o) => o.commands))];
  if (elsewhere.length > 0) {
    return new UsageError(`${command} does not take ${flag} (it is an option of ${elsewhere.join(', ')})`);
  }
  const near = suggest(name, optionsOf(command).map((o) => o.name).concat('help'));
  return new UsageError(`unknown option '${flag}' for ${command}${near ? ` (did you mean --${near}?)` : ''}`);
}

function emptyCommand(command: Command['command'], helpFor?: CommandName): Command {
  return { command, ...(helpFor ? { helpFor } : {}), file: '', run: defaultRunOptions(), compare: defaultCompareOptions(), argv: [] };
}

/** `minivm help [COMMAND]`. */
function parseHelp(rest: readonly string[]): Command {
  if (rest.length === 0) return emptyCommand('help');
  const [word, extra] = rest;
  if (extra !== undefined) throw new UsageError(`help takes one command name (got '${extra}' too)`);
  if (!isCommand(word)) {
    const near = suggest(word!, [...COMMAND_NAMES]);
    throw new UsageError(`no command '${word}'${near ? ` (did you mean ${near}?)` : ''}; commands: ${COMMAND_NAMES.join(', ')}`);
  }
  return emptyCommand('help', word);
}

/** Which command the words name: an explicit one, or `run` for `minivm FILE`. */
function splitCommand(argv: readonly string[]): { command: CommandName; rest: readonly string[] } {
  const first = argv[0];
  if (isCommand(first)) return { command: first, rest: argv.slice(1) };
  if (first === undefined) throw new UsageError('no command given');
  // `minivm FILE ...` and `minivm --gc serial FILE`: a run. A bare word that is no
  // file and no .mini name is taken as a mistyped command.
  if (first.startsWith('-') || first.endsWith('.mini') || first.includes('/') || existsSync(first)) {
    return { command: 'run', rest: argv };
  }
  const near = suggest(first, [...COMMAND_NAMES, 'help']);
  throw new UsageError(
    near ? `unknown command '${first}' (did you mean ${near}?)` : `unknown command '${first}', and no such file`,
  );
}

export function parseArgs(argv: readonly string[]): Command {
  if (argv[0] === 'help') return parseHelp(argv.slice(1));
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) return emptyCommand('version');
  if (argv[0] === '--help' || argv[0] === '-h' || argv.length === 0) return emptyCommand('help');
  const { command, rest } = splitCommand(argv);
  const spec = COMMANDS.find((c) => c.name === command)!;
  const table = optionsOf(command);
  const config: Record<string, { type: 'string' | 'boolean'; short?: string }> = { help: { type: 'boolean', short: 'h' } };
  for (const o of table) config[o.name] = { type: o.arg !== undefined && !o.optionalArg ? 'string' : 'boolean' };
  const { tokens } = tokenize({ args: [...rest], options: config, strict: false, allowPositionals: true, tokens: true });
  const terminator = tokens.find((t) => t.kind === 'option-terminator')?.index ?? Infinity;
  if (tokens.some((t) => t.kind === 'option' && t.name === 'help' && t.index < terminator)) return emptyCommand('help', command);

  const parsed: Parsed = { run: defaultRunOptions(), compare: defaultCompareOptions() };
  const positional: string[] = [];
  let previous: (typeof tokens)[number] | undefined;
  let afterOptional: string | undefined;
  for (const t of tokens) {
    const before = previous;
    previous = t;
    if (t.kind === 'option-terminator') continue;
    if (t.kind === 'positional') {
      if (t.index > terminator) parsed.run.args.push(t.value);
      else positional.push(t.value);
      const o = before?.kind === 'option' && !before.inlineValue ? table.find((x) => x.name === before.name) : undefined;
      if (o?.optionalArg && afterOptional === undefined) afterOptional = `${before!.kind === 'option' ? before!.rawName : ''}=${t.value}`;
      continue;
    }
    const o = table.find((x) => x.name === t.name);
    if (o === undefined) throw unknownOption(t.rawName, t.name, command);
    if (o.arg === undefined && t.inlineValue) throw new UsageError(`${t.rawName} takes no value (got '${t.value}')`);
    if (o.arg !== undefined && !o.optionalArg) {
      // parseArgs lets a string option swallow the next word even when it is an option.
      if (t.value === undefined || (!t.inlineValue && t.value.startsWith('-') && !/^-\d/.test(t.value))) {
        throw new UsageError(`${t.rawName} needs a value (${o.arg})`);
      }
    }
    o.apply(parsed, t.value, t.rawName);
  }
  if (!spec.programArgs && terminator !== Infinity) throw new UsageError(`${command} takes no program arguments (after --)`);
  if (positional.length === 0) throw new UsageError(`${command}: no program file given`);
  if (positional.length > 1) {
    if (afterOptional !== undefined) throw new UsageError(`unexpected argument '${afterOptional.split('=')[1]}' (a file for ${afterOptional.split('=')[0]} is given inline: ${afterOptional})`);
    const hint = spec.programArgs ? ` (arguments for the program go after --: minivm ${command} FILE -- ${positional[1]})` : '';
    throw new UsageError(`unexpected argument '${positional[1]}'${hint}`);
  }
  const run = parsed.run;
  if (run.logFormat !== undefined && !run.logGc) throw new UsageError('--log-format needs --log-gc (it sets the GC log\'s format)');
  const heaps = parsed.compare.heaps;
  if (parsed.compare.minHeap && heaps?.kind === 'sizes') {
    throw new UsageError('--min-heap searches for the heap: give it one --heap SIZE (the upper bound) or multiples (2x,3x), not a list of sizes');
  }
  if (run.youngBytes !== undefined && run.youngBytes >= (heaps?.kind === 'sizes' ? Math.min(...heaps.bytes) : run.heapBytes)) {
    throw new UsageError(`--young must be smaller than --heap${heaps?.kind === 'sizes' ? ' (every size of the list)' : ''}`);
  }
  return { command, file: positional[0]!, run, compare: parsed.compare, argv: [...argv] };
}
