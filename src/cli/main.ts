/**
 * `minivm`: the command-line entry point. Parses arguments, dispatches to run,
 * disasm, compare and heapshape, and maps every failure to its documented exit
 * status: 64 usage, 65 compile error, 69 no GPU adapter, 70 runtime error. An
 * unexpected internal error is reported in one line (exit 70) unless MINIVM_DEBUG is set.
 */

import { parseArgs, USAGE, UsageError, type Command } from './args.js';
import { disassemble } from '../bytecode/disasm.js';
import { checkOutputPath, compileSource, EXIT, readSource, runProgram, type Io } from './run.js';
import { formatStats, releaseGpu } from '../collectors/index.js';
import { BufferedOutput, exitOnSignals, writeAll, writeFileAtomic } from './output.js';

// The reader went away (`minivm run prog.mini | head`): stop quietly, as
// command-line tools do on SIGPIPE.
const pipeClosed = (): never => process.exit(EXIT.ok);
const stdout = new BufferedOutput((t) => writeAll(1, t, pipeClosed), process.stdout.isTTY === true);
const io: Io = {
  stdout: (t) => stdout.write(t),
  stderr: (t) => {
    stdout.flush();
    writeAll(2, t, pipeClosed);
  },
};
exitOnSignals(stdout, io.stderr, releaseGpu);

async function main(argv: string[]): Promise<number> {
  let cmd: Command;
  try {
    cmd = parseArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr(`minivm: ${e.message}\n${USAGE}\n`);
    return EXIT.usage;
  }
  if (cmd.command === 'help') {
    io.stdout(USAGE + '\n');
    return EXIT.ok;
  }
  let source: string;
  try {
    // Output paths are checked before the run, not found unwritable at its end.
    if (cmd.compare.report !== undefined) checkOutputPath('--report', cmd.compare.report);
    source = readSource(cmd.file);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`minivm: ${e.message}\n${USAGE}\n`);
      return EXIT.usage;
    }
    const code = (e as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : (e as Error).message;
    io.stderr(`minivm: cannot read '${cmd.file}': ${reason}\n${USAGE}\n`);
    return EXIT.usage;
  }
  switch (cmd.command) {
    case 'disasm': {
      const program = compileSource(cmd.file, source, io);
      if (!program) return EXIT.compile;
      io.stdout(disassemble(program));
      return EXIT.ok;
    }
    case 'compare': {
      // Loaded on demand: `run` should not pay for the comparison and report code.
      const { compareCommand } = await import('./compare.js');
      return compareCommand(cmd, source, io, { progress: process.stderr.isTTY === true });
    }
    case 'heapshape': {
      const { heapshapeCommand } = await import('./heapshape.js');
      return heapshapeCommand(cmd, source, io, { progress: process.stderr.isTTY === true });
    }
    default: {
      const program = compileSource(cmd.file, source, io);
      if (!program) return EXIT.compile;
      const outcome = await runProgram(program, cmd.run, io);
      if (outcome.stats) {
        if (cmd.run.stats) io.stderr(formatStats(outcome.stats) + '\n');
        if (cmd.run.jsonStats) writeFileAtomic(cmd.run.jsonStats, JSON.stringify(outcome.stats, null, 2) + '\n');
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
    if (process.env['MINIVM_DEBUG']) console.error(e);
    else io.stderr(`minivm: internal error: ${e instanceof Error ? e.message : String(e)} (set MINIVM_DEBUG=1 for details)\n`);
    process.exit(EXIT.runtime);
  },
);
