/** Shared helpers for the front-end tests. */
import { parse, parseAndCheck, formatDiagnostics } from '../../src/lang/index.js';
import type { CheckedProgram, Expr, Program, Stmt } from '../../src/lang/index.js';

/** Parses and checks, failing the test with the formatted errors if any. */
export function ok(source: string): CheckedProgram {
  const r = parseAndCheck('t.mini', source);
  if ('errors' in r) throw new Error('unexpected errors:\n' + formatDiagnostics(r.errors, source));
  return r;
}

/** Parses only (no checking). */
export function parsed(source: string): Program {
  const r = parse('t.mini', source);
  if ('errors' in r) throw new Error('unexpected errors:\n' + formatDiagnostics(r.errors, source));
  return r.program;
}

/** The errors of a program that must fail, as `line:col: message`. */
export function errors(source: string): string[] {
  const r = parseAndCheck('t.mini', source);
  if (!('errors' in r)) throw new Error('expected errors, got none');
  return r.errors.map((d) => `${d.line}:${d.col}: ${d.message}`);
}

/** The expression of the first top-level expression statement (or of `var` initializer). */
export function firstExpr(program: Program, n = 0): Expr {
  const s = program.body[n] as Stmt;
  if (s.kind === 'expr') return s.expr;
  if (s.kind === 'var' && s.decl.init) return s.decl.init;
  throw new Error('not an expression statement: ' + s.kind);
}

/** A compact, parenthesised rendering of an expression, to assert structure. */
export function show(e: Expr): string {
  switch (e.kind) {
    case 'int':
    case 'float':
    case 'bool':
      return String(e.value);
    case 'string':
      return JSON.stringify(e.value);
    case 'null':
    case 'this':
      return e.kind;
    case 'name':
      return e.name;
    case 'assign':
      return `(= ${show(e.target)} ${show(e.value)})`;
    case 'binary':
      return `(${e.op} ${show(e.left)} ${show(e.right)})`;
    case 'unary':
      return `(${e.op} ${show(e.operand)})`;
    case 'field':
      return `(. ${show(e.object)} ${e.name})`;
    case 'length':
      return `(length ${show(e.object)})`;
    case 'index':
      return `([] ${show(e.array)} ${show(e.index)})`;
    case 'call':
    case 'builtin':
      return `(${e.kind} ${e.name}${e.args.map((a) => ' ' + show(a)).join('')})`;
    case 'invoke':
    case 'stringMethod':
      return `(${e.kind} ${show(e.object)} ${e.name}${e.args.map((a) => ' ' + show(a)).join('')})`;
    case 'superInvoke':
      return `(super ${e.name}${e.args.map((a) => ' ' + show(a)).join('')})`;
    case 'new':
      return `(new ${e.className}${e.args.map((a) => ' ' + show(a)).join('')})`;
    case 'newArray':
      return `(newArray ${showRef(e.elemRef)} ${show(e.length)})`;
    case 'is':
    case 'as':
      return `(${e.kind} ${show(e.operand)} ${showRef(e.targetRef)})`;
  }
}

function showRef(r: { kind: 'named'; name: string } | { kind: 'array'; elem: unknown }): string {
  return r.kind === 'named' ? r.name : showRef(r.elem as never) + '[]';
}
