/**
 * `minivm`: the command-line entry point. Parses arguments, dispatches to run,
 * disasm, compare and heapshape, and maps every failure to its documented exit
 * status: 64 usage, 65 compile error, 69 no GPU adapter, 70 runtime error. An
 * unexpected internal error is reported in one line (exit 70) unless MINIVM_DEBUG is set.
 */

import { writeFileSync, writeSync } from 'node:fs';
import { parseArgs, USAGE, UsageError, type Command } from './args.js';
import { disassemble } from '../bytecode/disasm.js';
import { compileSource, disassembleJs, EXIT, readSource, runProgram, type Io } from './run.js';
import { formatTierStats } from '../vm/tier/stats.js';
import { formatStats, releaseGpu } from '../collectors/index.js';

/** Synchronous writes: output must be complete even when the process exits right after. */
function writeAll(fd: number, text: string): void {
  let buf = Buffer.from(text);
  while (buf.length > 0) {
    try {
      buf = buf.subarray(writeSync(fd, buf));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // The reader went away (`minivm run prog.mini | head`): stop quietly, as
      // command-line tools do on SIGPIPE.
      if (code === 'EPIPE') process.exit(EXIT.ok);
      if (code !== 'EAGAIN') throw e;
    }
  }
}

const io: Io = {
  stdout: (t) => writeAll(1, t),
  stderr: (t) => writeAll(2, t),
};

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
    source = readSource(cmd.file);
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message;
    io.stderr(`minivm: cannot read '${cmd.file}': ${reason}\n${USAGE}\n`);
    return EXIT.usage;
  }
  switch (cmd.command) {
    case 'disasm': {
      const program = compileSource(cmd.file, source, io);
      if (!program) return EXIT.compile;
      io.stdout(cmd.run.js ? await disassembleJs(program, cmd.run, io) : disassemble(program));
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
        if (cmd.run.stats && outcome.tier) io.stderr(formatTierStats(outcome.tier, outcome.stats.mutatorMs) + '\n');
        if (cmd.run.jsonStats) writeFileSync(cmd.run.jsonStats, JSON.stringify({ ...outcome.stats, tier: outcome.tier }, null, 2) + '\n');
      }
      return outcome.exitCode;
    }
  }
}

main(process.argv.slice(2)).then(
  async (code) => {
    await releaseGpu();
    process.exit(code);
  },
  (e: unknown) => {
    if (process.env['MINIVM_DEBUG']) console.error(e);
    else io.stderr(`minivm: internal error: ${e instanceof Error ? e.message : String(e)} (set MINIVM_DEBUG=1 for details)\n`);
    process.exit(EXIT.runtime);
  },
);
