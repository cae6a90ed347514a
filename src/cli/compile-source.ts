/**
 * The front end as the CLI runs it: source -> checked AST -> bytecode, with the
 * diagnostics written on errors. Loaded on demand (run.ts loadProgram), so a run
 * whose bytecode is in the compile cache never loads the parser.
 */

import { compile } from '../bytecode/compiler.js';
import type { BytecodeProgram } from '../bytecode/program.js';
import { formatDiagnostics, parseAndCheck } from '../lang/index.js';
import { compileOnLargeStack } from './compile-deep.js';
import type { Io } from './run.js';

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
