// The command line's grammar: each command's own options, parsed strictly; help,
// version, "did you mean", and output paths checked before a run. The parser is
// tested in-process; what a user sees (exit status, the two-line error, files
// written) through the real binary.
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArgs, suggest, UsageError } from '../../src/cli/args.js';
import { COMMAND_NAMES, OPTIONS } from '../../src/cli/options.js';
import { commandHelp, generalHelp } from '../../src/cli/help.js';
import { minivm, scratch } from '../minivm.js';

const { dir } = scratch('minivm-cmdline-');
const PROGRAM = 'programs/arrays.mini';

function usageError(argv: string[]): string {
  try {
    parseArgs(argv);
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return (e as Error).message;
  }
  throw new Error(`parsed without error: ${argv.join(' ')}`);
}

describe('parseArgs', () => {
  it('reads each command with its own options', () => {
    const run = parseArgs(['run', PROGRAM, '--gc', 'parallel', '--heap=64m', '--threads', '3', '--gc-solo-below', '1m', '--tier', 'compiled', '--tier-threshold', '50']);
    expect(run).toMatchObject({ command: 'run', file: PROGRAM });
    expect(run.run).toMatchObject({ gc: 'parallel', heapBytes: 64 * 2 ** 20, threads: 3, gcSoloBytes: 2 ** 20, tier: 'compiled', tierThreshold: 50, args: [] });
    expect(parseArgs(['run', PROGRAM, '--gc', 'gpu-dfs', '--gpu-min-live', '512k']).run.gpuMinLiveBytes).toBe(512 * 1024);
    expect(parseArgs(['run', PROGRAM, '--gc', 'gpu-dfs']).run.gpuMinLiveBytes).toBeUndefined();
    const cmp = parseArgs(['compare', PROGRAM, '--gc', 'serial,parallel,serial', '--layout', 'sable', '--repeat', '3', '--json']);
    expect(cmp.compare).toMatchObject({ gcs: ['serial', 'parallel'], layouts: ['sable'], repeat: 3, json: true });
    expect(parseArgs([PROGRAM, '--gc', 'none']).run.gc).toBe('none');
    expect(parseArgs(['--gc', 'none', PROGRAM]).command).toBe('run');
  });

  it('passes what follows -- to the program, options included', () => {
    const c = parseArgs(['run', PROGRAM, '--heap', '8m', '--', '10', '--heap', 'x']);
    expect(c.run.args).toEqual(['10', '--heap', 'x']);
    expect(c.run.heapBytes).toBe(8 * 2 ** 20);
  });

  it('--log-gc alone logs to stderr; --log-gc=FILE into the file', () => {
    expect(parseArgs(['run', PROGRAM, '--log-gc']).run).toMatchObject({ logGc: true, logGcFile: undefined });
    expect(parseArgs(['run', PROGRAM, '--log-gc=gc.log']).run).toMatchObject({ logGc: true, logGcFile: 'gc.log' });
  });

  it('help and version', () => {
    expect(parseArgs([])).toMatchObject({ command: 'help' });
    expect(parseArgs(['-h'])).toMatchObject({ command: 'help' });
    expect(parseArgs(['--version'])).toMatchObject({ command: 'version' });
    expect(parseArgs(['help', 'compare'])).toMatchObject({ command: 'help', helpFor: 'compare' });
    for (const c of COMMAND_NAMES) {
      expect(parseArgs([c, '-h'])).toMatchObject({ command: 'help', helpFor: c });
      expect(parseArgs([c, PROGRAM, '--help', '--bogus'])).toMatchObject({ command: 'help', helpFor: c });
    }
  });

  it.each([
    [['disasmm', 'x.mini'], "unknown command 'disasmm' (did you mean disasm?)"],
    [['compaer', 'x.mini'], "unknown command 'compaer' (did you mean compare?)"],
    [['run', 'x.mini', '--gc-stres', '3'], "unknown option '--gc-stres' for run (did you mean --gc-stress?)"],
    [['compare', 'x.mini', '--repaet', '3'], 'did you mean --repeat?'],
    [['run', 'x.mini', '--zzzzzz'], "unknown option '--zzzzzz' for run"],
    [['run', 'x.mini', '--gc', 'gpu-dfs,parallel'], "--gc takes one name here, not a list ('gpu-dfs,parallel'); compare takes a list"],
    [['heapshape', 'x.mini', '--layout', 'sable,refgraph'], '--layout takes one name here, not a list'],
    [['run', 'x.mini', '--report', 'x.html'], 'run does not take --report (it is an option of compare, heapshape)'],
    [['compare', 'x.mini', '--stats'], 'compare does not take --stats (it is an option of run)'],
    [['compare', 'x.mini', '--log-gc'], 'compare does not take --log-gc (it is an option of run)'],
    [['compare', 'x.mini', '--json-stats', 'a.json'], 'compare does not take --json-stats'],
    [['heapshape', 'x.mini', '--repeat', '2'], 'heapshape does not take --repeat'],
    [['disasm', 'x.mini', '--gc', 'serial'], 'disasm does not take --gc'],
    [['disasm', 'x.mini', '--', 'a'], 'disasm takes no program arguments'],
    [['run', 'x.mini', '--heap'], '--heap needs a value (SIZE)'],
    [['run', 'x.mini', '--heap', '--stats'], '--heap needs a value (SIZE)'],
    [['run', 'x.mini', '--stats=yes'], "--stats takes no value (got 'yes')"],
    [['run', 'x.mini', 'extra'], "unexpected argument 'extra' (arguments for the program go after --"],
    [['run', 'x.mini', '--log-gc', 'gc.log'], 'a file for --log-gc is given inline: --log-gc=gc.log'],
    [['run', 'x.mini', '--tier', 'jit'], '--tier must be one of interp, compiled, auto'],
    [['run', 'x.mini', '--tier-threshold', '-1'], "--tier-threshold needs an integer of at least 0 (got '-1')"],
    [['run', 'x.mini', '--threads', '0'], '--threads needs an integer of at least 1'],
    [['run', 'x.mini', '--young', '8m', '--heap', '8m'], '--young must be smaller than --heap'],
    [['compare', 'x.mini', '--gc', 'serial,gpu'], "--gc must be one of none, serial, parallel, gpu-dfs, gpu-bfs, auto (got 'gpu')"],
    [['help', 'runn'], "no command 'runn' (did you mean run?)"],
    [['run'], 'run: no program file given'],
  ])('%j is a usage error', (argv, message) => {
    expect(usageError(argv)).toContain(message);
  });

  it('suggests only near names', () => {
    expect(suggest('heep', ['heap', 'young'])).toBe('heap');
    expect(suggest('x', ['heap', 'young'])).toBeUndefined();
    expect(suggest('verify', ['verify-gc', 'gc'])).toBeUndefined();
  });
});

describe('help texts', () => {
  it('list every command and every option of a command', () => {
    const general = generalHelp();
    for (const c of COMMAND_NAMES) {
      expect(general).toContain(`  ${c} `);
      const help = commandHelp(c);
      for (const o of OPTIONS.filter((x) => x.commands.includes(c))) expect(help).toContain(`--${o.name}`);
      const own = new Set(OPTIONS.filter((x) => x.commands.includes(c)).map((x) => x.name));
      for (const o of OPTIONS.filter((x) => !own.has(x.name))) expect(help).not.toContain(`--${o.name} `);
    }
  });

  it('docs/cli.md documents every option', () => {
    const doc = readFileSync('docs/cli.md', 'utf8');
    for (const o of OPTIONS) expect(doc, `--${o.name}`).toContain(`\`--${o.name}`);
  });
});

describe('the minivm binary', () => {
  it('--version prints the package version', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(minivm(['--version'])).toMatchObject({ status: 0, stdout: `minivm ${pkg.version}\n` });
  });

  it('-h, --help and help COMMAND print to stdout with status 0', () => {
    for (const argv of [['-h'], ['--help'], ['help'], ['help', 'run'], ['run', '--help'], ['compare', '-h'], ['heapshape', '--help']]) {
      const r = minivm(argv);
      expect(r.status, argv.join(' ')).toBe(0);
      expect(r.stdout).toMatch(/^usage: minivm /);
      expect(r.stderr).toBe('');
    }
    expect(minivm(['run', '-h']).stdout).toContain('--log-gc[=FILE]');
  });

  it.each([
    [['disasmm', PROGRAM], "unknown command 'disasmm' (did you mean disasm?)", "see 'minivm --help'"],
    [['run', PROGRAM, '--gc', 'gpu-dfs,parallel'], '--gc takes one name here', "see 'minivm run --help'"],
    [['compare', PROGRAM, '--stats'], 'compare does not take --stats', "see 'minivm compare --help'"],
  ])('%j: exit 64, one line and where the help is', (argv, message, pointer) => {
    const r = minivm(argv);
    expect(r.status).toBe(64);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`minivm: ${r.stderr.split('\n')[0]!.slice('minivm: '.length)}\n${pointer}\n`);
    expect(r.stderr).toContain(message);
  });

  it.each([
    ['--json-stats', join(dir, 'no-such-folder', 's.json'), 'does not exist'],
    ['--log-gc=', join(dir, 'no-such-folder', 'gc.log'), 'does not exist'],
    ['--json-stats', dir, 'it is a folder'],
  ])('a bad output path (%s %s) is exit 64 before the program runs', (flag, path, reason) => {
    const argv = flag.endsWith('=') ? [`${flag}${path}`] : [flag, path];
    const r = minivm(['run', PROGRAM, ...argv]);
    expect(r.status).toBe(64);
    expect(r.stdout).toBe(''); // the program never ran
    expect(r.stderr).toContain(reason);
  });

  it('a bad --report path is exit 64 before compare runs anything', () => {
    const r = minivm(['compare', PROGRAM, '--gc', 'serial', '--report', join(dir, 'missing', 'r.html')]);
    expect(r.status).toBe(64);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/--report: cannot write .*folder .* does not exist/);
  });

  it('--log-gc=FILE writes the log into the file, not stderr, and leaves no temporary file', () => {
    const out = join(dir, 'logs');
    mkdirSync(out);
    const log = join(out, 'gc.log');
    const stats = join(out, 'stats.json');
    const r = minivm(['run', PROGRAM, `--log-gc=${log}`, '--json-stats', stats]);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    const lines = readFileSync(log, 'utf8').trimEnd().split('\n');
    const json = JSON.parse(readFileSync(stats, 'utf8')) as { collections: unknown[] };
    expect(json.collections.length).toBeGreaterThan(0);
    expect(lines).toHaveLength(json.collections.length);
    expect(lines[0]).toMatch(/^\[\d+\.\d{3}s\]\[gc 1\] /);
    expect(readdirSync(out).sort()).toEqual(['gc.log', 'stats.json']);
    expect(existsSync(`${log}.tmp`)).toBe(false);
  });
});
