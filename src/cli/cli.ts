/**
 * `minivm`'s command-line program (started by main.ts). Parses arguments,
 * dispatches to run, disasm, compare, heapshape and test, and maps every failure to
 * its documented exit status: 64 usage, 65 compile error, 69 no GPU adapter, 70 runtime error. An
 * unexpected internal error is reported in one line (exit 70) unless MINIVM_DEBUG is set.
 */

import { parseArgs, UsageError, type Command } from './args.js';
import { COMMAND_NAMES } from './options.js';
import { disassemble } from '../bytecode/disasm.js';
import { disassembleJs, EXIT, formatCompileInfo, loadProgram, readSource, runProgram, type Io } from './run.js';
import { formatTierStats } from './tier-stats.js';
import { formatStats, releaseGpu } from '../collectors/index.js';
import { BufferedOutput, exitOnSignals, isTerminal, writeAll } from './output.js';
import { commandHelp, generalHelp, usageMessage, version } from './help.js';
import { checkOutputPath, OutputWriteError, writeOutputFile } from './output-file.js';
import { traceOf } from './trace.js';
import { runFiltered, stderrIsTty, wantsFilter } from './dawn-filter.js';
import { csvPathFor } from './report/csv.js';
import { testCommand } from './test-command.js';
import { compareCommand } from './compare.js';
import { heapshapeCommand } from './heapshape.js';

// The reader went away (`minivm run prog.mini | head`): stop quietly, as
// command-line tools do on SIGPIPE.
const pipeClosed = (): never => process.exit(EXIT.ok);
const stdout = new BufferedOutput((t) => writeAll(1, t, pipeClosed), isTerminal(1));
const io: Io = {
  stdout: (t) => stdout.write(t),
  stderr: (t) => {
    stdout.flush();
    writeAll(2, t, pipeClosed);
  },
};

/** The output files a command will write, with the flag that named each. */
function outputPaths(cmd: Command): Array<[string, string]> {
  const out: Array<[string, string | undefined]> = [
    ['--json-stats', cmd.run.jsonStats], ['--log-gc', cmd.run.logGcFile], ['--trace', cmd.run.trace],
    ['--report', cmd.compare.report],
  ];
  // compare writes a CSV beside its report.
  if (cmd.command === 'compare' && cmd.compare.report !== undefined) out.push(['--report', csvPathFor(cmd.compare.report)]);
  return out.filter((o): o is [string, string] => o[1] !== undefined);
}

async function main(argv: string[]): Promise<number> {
  let cmd: Command;
  try {
    cmd = parseArgs(argv);
    if (cmd.command !== 'help' && cmd.command !== 'version') {
      for (const [flag, path] of outputPaths(cmd)) checkOutputPath(path, flag);
    }
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr(usageMessage(e.message, (COMMAND_NAMES as readonly string[]).includes(argv[0]!) ? argv[0] : undefined));
    return EXIT.usage;
  }
  // A filtered run's child handles the signals itself: this process passes them on
  // and ends with the child's status.
  if (wantsFilter(cmd)) return runFiltered(argv);
  exitOnSignals(stdout, io.stderr, releaseGpu);
  if (cmd.command === 'help') {
    io.stdout((cmd.helpFor ? commandHelp(cmd.helpFor) : generalHelp()) + '\n');
    return EXIT.ok;
  }
  if (cmd.command === 'version') {
    io.stdout(`minivm ${version()}\n`);
    return EXIT.ok;
  }
  if (cmd.command === 'test') {
    return testCommand(cmd, io, { progress: stderrIsTty() });
  }
  let source: string;
  try {
    source = readSource(cmd.file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : (e as Error).message;
    io.stderr(usageMessage(`cannot read '${cmd.file}': ${reason}`, cmd.command));
    return EXIT.usage;
  }
  switch (cmd.command) {
    case 'disasm': {
      const loaded = await loadProgram(cmd.file, source, io);
      if (!loaded) return EXIT.compile;
      io.stdout(cmd.run.js ? await disassembleJs(loaded.program, cmd.run, io) : disassemble(loaded.program));
      return EXIT.ok;
    }
    case 'compare': {
      return compareCommand(cmd, source, io, { progress: stderrIsTty() });
    }
    case 'heapshape': {
      return heapshapeCommand(cmd, source, io, { progress: stderrIsTty() });
    }
    default: {
      const loaded = await loadProgram(cmd.file, source, io);
      if (!loaded) return EXIT.compile;
      const outcome = await runProgram(loaded.program, cmd.run, io, {}, loaded.code);
      if (outcome.stats) {
        if (cmd.run.stats) io.stderr(formatStats(outcome.stats) + '\n' + formatCompileInfo(loaded.compile) + '\n');
        if (cmd.run.stats && outcome.tier) io.stderr(formatTierStats(outcome.tier, outcome.stats.mutatorMs) + '\n');
        const stats = outcome.stats;
        // Each file is tried even when another could not be written; the first failure is reported.
        let failed: unknown;
        const write = (path: string | undefined, text: () => string): void => {
          if (path === undefined) return;
          try {
            writeOutputFile(path, text());
          } catch (e) {
            failed ??= e;
          }
        };
        write(cmd.run.jsonStats, () => JSON.stringify({ ...stats, tier: outcome.tier, compile: loaded.compile }, null, 2) + '\n');
        write(cmd.run.trace, () => JSON.stringify(traceOf(stats, outcome.readyMs ?? 0, cmd.file)) + '\n');
        if (failed !== undefined) throw failed;
      }
      return outcome.exitCode;
    }
  }
}

main(process.argv.slice(2)).then(
  async (code) => {
    stdout.flush();
    await releaseGpu();
    process.exit(code);
  },
  (e: unknown) => {
    stdout.flush();
    if (e instanceof OutputWriteError) {
      io.stderr(`minivm: ${e.message}\n`);
      process.exit(EXIT.runtime);
    }
    if (process.env['MINIVM_DEBUG']) console.error(e);
    else io.stderr(`minivm: internal error: ${e instanceof Error ? e.message : String(e)} (set MINIVM_DEBUG=1 for details)\n`);
    process.exit(EXIT.runtime);
  },
);
