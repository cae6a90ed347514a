/**
 * Compile-time diagnostics: every message text the front end can produce, in one
 * place, and the formatter that prints `file:line:col: error: message`, the source
 * line and a caret under the column.
 *
 * Messages are part of the test suite's contract (`// error: message` comments in
 * .mini tests), so they are worded once here and never built ad hoc elsewhere.
 */
import type { Pos } from './ast.js';

export interface Diagnostic {
  readonly file: string;
  readonly line: number; // 1-based
  readonly col: number; // 1-based
  readonly message: string;
}

/** Formats one diagnostic as three lines (no trailing newline). */
export function formatDiagnostic(d: Diagnostic, source: string): string {
  return formatWithLines(d, sourceLines(source));
}

/** Formats every diagnostic, in order, separated by newlines (no trailing newline). */
export function formatDiagnostics(diagnostics: readonly Diagnostic[], source: string): string {
  const lines = sourceLines(source);
  return diagnostics.map((d) => formatWithLines(d, lines)).join('\n');
}

function sourceLines(source: string): string[] {
  return source.split(/\r\n|\r|\n/);
}

/** Characters of a long source line shown on each side of the error's column. */
const LINE_WINDOW = 60;

function formatWithLines(d: Diagnostic, lines: readonly string[]): string {
  let text = lines[d.line - 1] ?? '';
  let col = d.col;
  // A 100,000-character line is quoted around the column, not whole.
  if (text.length > 3 * LINE_WINDOW) {
    const from = Math.max(0, col - 1 - LINE_WINDOW);
    const to = Math.min(text.length, col - 1 + LINE_WINDOW);
    text = (from > 0 ? '...' : '') + text.slice(from, to) + (to < text.length ? '...' : '');
    col = col - from + (from > 0 ? 3 : 0);
  }
  // Keep tabs in the caret line so the caret sits under the right character
  // whatever the terminal's tab width is.
  const pad = text.slice(0, Math.max(0, col - 1)).replace(/[^\t]/g, ' ');
  return `${d.file}:${d.line}:${d.col}: error: ${d.message}\n${text}\n${pad}^`;
}

/** Sorts by position (stable for errors at the same position). */
export function sortDiagnostics(ds: Diagnostic[]): Diagnostic[] {
  return ds
    .map((d, i) => ({ d, i }))
    .sort((a, b) => a.d.line - b.d.line || a.d.col - b.d.col || a.i - b.i)
    .map((x) => x.d);
}

/** Collects diagnostics for one file. */
export class DiagnosticBag {
  readonly items: Diagnostic[] = [];
  constructor(readonly file: string) {}
  error(pos: Pos, message: string): void {
    this.items.push({ file: this.file, line: pos.line, col: pos.col, message });
  }
}

// ---------------------------------------------------------------- syntax

/**
 * Messages for a missing token, keyed by `rule:TokenName`. The parser's
 * errorMessageProvider looks here first, then falls back to
 * "expected X but found Y".
 */
export const missingTokenMessages: Record<string, string> = {
  'classDecl:Identifier': "expected a class name after 'class'",
  'classDecl:TypeName': "expected a superclass name after 'extends'",
  'classDecl:LBrace': "expected '{' before class body",
  'classDecl:RBrace': "expected '}' after class body",
  'fieldDecl:Identifier': "expected a field name after 'var'",
  'fieldDecl:Colon': "expected ':' and a type after field name",
  'fieldDecl:Semicolon': "expected ';' after field declaration",
  'funDecl:Identifier': "expected a function name after 'fun'",
  'funDecl:LParen': "expected '(' after function name",
  'funDecl:RParen': "expected ')' after parameters",
  'initDecl:LParen': "expected '(' after 'init'",
  'initDecl:RParen': "expected ')' after parameters",
  'param:Identifier': 'expected a parameter name',
  'param:Colon': "expected ':' and a type after parameter name",
  'type:TypeName': 'expected a type',
  'type:RBracket': "expected ']' after '[' in type",
  'block:LBrace': "expected '{'",
  'block:RBrace': "expected '}' after block",
  'varStmt:Identifier': "expected a variable name after 'var'",
  'varStmt:Semicolon': "expected ';' after variable declaration",
  'ifStmt:LParen': "expected '(' after 'if'",
  'ifStmt:RParen': "expected ')' after condition",
  'whileStmt:LParen': "expected '(' after 'while'",
  'whileStmt:RParen': "expected ')' after condition",
  'forStmt:LParen': "expected '(' after 'for'",
  'forStmt:Semicolon': "expected ';' after loop condition",
  'forStmt:RParen': "expected ')' after for clauses",
  'breakStmt:Semicolon': "expected ';' after 'break'",
  'continueStmt:Semicolon': "expected ';' after 'continue'",
  'returnStmt:Semicolon': "expected ';' after return value",
  'exprStmt:Semicolon': "expected ';' after expression",
  'args:RParen': "expected ')' after arguments",
  'postfixOp:Identifier': "expected a field or method name after '.'",
  'postfixOp:RBracket': "expected ']' after index",
  'superCall:Dot': "expected '.' after 'super'",
  'superCall:LParen': "expected '(' after method name: 'super' can only call methods",
  'primary:RParen': "expected ')' after expression",
  'newExpr:TypeName': "expected a class or type name after 'new'",
  'newExpr:RBracket': "expected ']' in array creation",
};

/** Rules whose "no viable alternative" means an expression was expected. */
const expressionRules = new Set([
  'expression', 'orExpr', 'andExpr', 'equality', 'comparison', 'comparisonTail', 'bitOr', 'bitXor',
  'bitAnd', 'shift', 'additive', 'multiplicative', 'unary', 'postfix', 'primary', 'statement', 'exprStmt',
]);

export const syntax = {
  missing: (expected: string, found: string) => `expected ${expected} but found ${found}`,
  unexpected: (found: string) => `unexpected ${found}`,
  noViableAlt(ruleName: string, found: string): string {
    if (expressionRules.has(ruleName)) return `expected an expression but found ${found}`;
    if (ruleName === 'classDecl') return `expected a field, method or 'init' in class body but found ${found}`;
    if (ruleName === 'program') return `expected a declaration or statement but found ${found}`;
    if (ruleName === 'forStmt') return `expected a variable declaration, expression or ';' but found ${found}`;
    if (ruleName === 'superCall') return `expected a method name or 'init' after 'super.' but found ${found}`;
    if (ruleName === 'newExpr') return `expected '(' or '[' after the type in 'new' but found ${found}`;
    return `unexpected ${found}`;
  },
};

// ---------------------------------------------------------------- lexical / literal

export const literal = {
  intTooLarge: (text: string) => `integer literal ${text} does not fit in 32 bits`,
};

// ---------------------------------------------------------------- semantic

export const msg = {
  // declarations
  duplicateClass: (name: string) => `class '${name}' is already declared`,
  unknownSuperclass: (name: string) => `unknown superclass '${name}'`,
  inheritanceCycle: (name: string) => `class '${name}' inherits from itself`,
  duplicateField: (name: string, cls: string) => `field '${name}' is already declared in class '${cls}'`,
  fieldInSuperclass: (name: string, sup: string) => `field '${name}' is already declared in superclass '${sup}'`,
  duplicateMethod: (name: string, cls: string) => `method '${name}' is already declared in class '${cls}'`,
  fieldInitializer: () => "a field cannot have an initial value: set it in 'init'",
  duplicateInit: (cls: string) => `class '${cls}' has more than one 'init'`,
  badOverride: (name: string, sup: string) =>
    `method '${name}' overrides '${sup}.${name}' with different parameter or return types`,
  duplicateFunction: (name: string) => `function '${name}' is already declared`,
  builtinRedeclared: (name: string) => `'${name}' is a built-in function and cannot be redeclared`,
  duplicateGlobal: (name: string) => `global variable '${name}' is already declared`,
  duplicateLocal: (name: string) => `variable '${name}' is already declared in this function`,
  duplicateParam: (name: string) => `parameter '${name}' is already declared`,
  unknownType: (name: string) => `unknown type '${name}'`,
  voidNotAllowed: () => "'void' can only be a return type",
  noType: (name: string) => `'${name}' needs a type or an initial value`,
  nullVar: (name: string) => `cannot infer a type for '${name}' from null: write 'var ${name}: T = null'`,
  missingReturn: (name: string, type: string) => `'${name}' must return a value of type ${type} on every path`,

  // names
  unknownName: (name: string) => `unknown variable '${name}'`,
  usedBeforeDeclaration: (name: string) => `global variable '${name}' is used before its declaration`,
  unknownFunction: (name: string) => `unknown function '${name}'`,
  unknownClass: (name: string) => `unknown class '${name}'`,
  notAClass: (name: string) => `cannot use 'new' with ${name}: only classes are constructed with 'new C(...)'`,

  // statements
  conditionNotBool: (type: string) => `condition must be bool, not ${type}`,
  breakOutsideLoop: () => "'break' outside a loop",
  continueOutsideLoop: () => "'continue' outside a loop",
  returnOutsideFunction: () => "'return' outside a function or method",
  returnValueFromVoid: (name: string) => `'${name}' returns void and cannot return a value`,
  returnValueFromInit: () => "'init' cannot return a value",
  missingReturnValue: (name: string, type: string) => `'${name}' must return a value of type ${type}`,

  // expressions
  voidValue: () => 'a void call has no value',
  cannotAssign: (from: string, to: string) => `cannot assign ${from} to ${to}`,
  cannotReturn: (from: string, to: string) => `cannot return ${from} from a function returning ${to}`,
  badArgument: (index: number, callee: string, expected: string, found: string) =>
    `argument ${index} of '${callee}' must be ${expected}, not ${found}`,
  arity: (callee: string, expected: number, found: number) =>
    `'${callee}' expects ${expected} argument${expected === 1 ? '' : 's'} but got ${found}`,
  invalidAssignTarget: () => 'invalid assignment target',
  assignToLength: () => "cannot assign to 'length'",
  unaryOperand: (op: string, expected: string, found: string) => `operator '${op}' needs ${expected}, not ${found}`,
  binaryOperands: (op: string, expected: string, left: string, right: string) =>
    `operator '${op}' needs ${expected}, not ${left} and ${right}`,
  cannotCompare: (left: string, right: string) => `cannot compare ${left} with ${right}`,
  thisOutsideMethod: () => "'this' can only be used inside a method or 'init'",
  superOutsideMethod: () => "'super' can only be used inside a method or 'init'",
  superInitOutsideInit: () => "'super.init' can only be called inside 'init'",
  superNoMethod: (sup: string, name: string) => `superclass '${sup}' has no method '${name}'`,
  noField: (type: string, name: string) => `${type} has no field '${name}'`,
  noMethod: (type: string, name: string) => `${type} has no method '${name}'`,
  notIndexable: (type: string) => `cannot index ${type}: only arrays can be indexed`,
  indexNotInt: (type: string) => `array index must be int, not ${type}`,
  lengthNotInt: (type: string) => `array length must be int, not ${type}`,
  castTarget: (op: string, type: string) => `'${op}' needs a class, array or string type, not ${type}`,
  castOperand: (op: string, type: string) => `'${op}' needs a reference operand, not ${type}`,
  printVoid: () => "'print' needs a value, not void",
};
