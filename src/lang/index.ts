/**
 * The front end of minivm: source text in, a checked AST (or every compile
 * error) out. The CLI prints `formatDiagnostics(errors, source)` and exits 65.
 */
import type { ClassDecl, Local, Program } from './ast.js';
import { parseCst } from './parser.js';
import { buildAst } from './cst-to-ast.js';
import { check } from './checker.js';
import { DiagnosticBag, sortDiagnostics } from './diagnostics.js';
import type { Diagnostic } from './diagnostics.js';

export type * from './ast.js';
export { isRefType, typeName } from './ast.js';
export type { Diagnostic } from './diagnostics.js';
export { formatDiagnostic, formatDiagnostics } from './diagnostics.js';
export { tokenize } from './lexer.js';
export type { LexError, LexResult } from './lexer.js';

export interface CheckedProgram {
  readonly program: Program;
  /** Locals of the implicit main function (vars in blocks/loops of top-level code), dense indices. */
  readonly mainLocals: Local[];
  /** The built-in root class `Object` (id 0), not in `program.classes`. */
  readonly objectClass: ClassDecl;
}

/**
 * Parses and checks one file. Returns the checked program, or every lexical,
 * syntax and type error sorted by position. Type errors are only looked for when
 * the file parses.
 */
export function parseAndCheck(file: string, source: string): CheckedProgram | { errors: Diagnostic[] } {
  const parsed = parseCst(file, source);
  if (!parsed.cst) return { errors: sortDiagnostics(parsed.errors) };
  const bag = new DiagnosticBag(file);
  const program = buildAst(parsed.cst, file, bag);
  const result = check(program, bag);
  if (result.errors.length > 0) return { errors: sortDiagnostics(result.errors) };
  return { program: result.program, mainLocals: result.mainLocals, objectClass: result.objectClass };
}

/** Parses without type checking: `type` and resolution fields stay unset. For tools and tests. */
export function parse(file: string, source: string): { program: Program } | { errors: Diagnostic[] } {
  const parsed = parseCst(file, source);
  if (!parsed.cst) return { errors: sortDiagnostics(parsed.errors) };
  const bag = new DiagnosticBag(file);
  const program = buildAst(parsed.cst, file, bag);
  return bag.items.length > 0 ? { errors: sortDiagnostics(bag.items) } : { program };
}
