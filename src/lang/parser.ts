/**
 * The .mini grammar: a chevrotain CstParser with one rule per precedence level
 * (see LANGUAGE.md), and `parseCst`, which runs lexer and parser and returns the CST
 * or the lexical and syntax diagnostics. `parse` and `parseAndCheck` (index.ts) turn
 * the CST into the AST with the visitor of cst-to-ast.ts.
 *
 * Error recovery is on, so one run reports several syntax errors; the CST of a
 * program with syntax errors is never turned into an AST.
 */
import { CstParser, EOF } from './chevrotain.js';
import type { CstNode, IParserErrorMessageProvider, IToken, TokenType } from 'chevrotain';
import * as T from './lexer.js';
import type { Pos } from './ast.js';
import { missingTokenMessages, syntax } from './diagnostics.js';
import type { Diagnostic } from './diagnostics.js';
import { checkNesting } from './nesting.js';

/** How a token is quoted in "but found X". */
function describe(token: IToken | undefined): string {
  if (!token || token.tokenType === EOF) return 'end of file';
  return `'${token.image}'`;
}

function label(t: TokenType): string {
  return t.LABEL ?? t.name;
}

const errorMessageProvider: IParserErrorMessageProvider = {
  buildMismatchTokenMessage({ expected, actual, ruleName }) {
    if (expected === EOF) return syntax.unexpected(describe(actual));
    return missingTokenMessages[`${ruleName}:${expected.name}`] ?? syntax.missing(label(expected), describe(actual));
  },
  buildNotAllInputParsedMessage({ firstRedundant }) {
    return syntax.unexpected(describe(firstRedundant));
  },
  buildNoViableAltMessage({ actual, ruleName }) {
    return syntax.noViableAlt(ruleName, describe(actual[0]));
  },
  buildEarlyExitMessage({ actual, ruleName }) {
    return syntax.noViableAlt(ruleName, describe(actual[0]));
  },
};

export class MiniParser extends CstParser {
  /** `validate`: run chevrotain's grammar checks (ambiguity, left recursion), which
   *  a fixed grammar need not pay for at every start; the grammar test runs them.
   *  `recover`: go on after a syntax error to report the later ones too, at the cost
   *  of computing every rule's follow sets when the parser is made. */
  constructor(validate = false, recover = true) {
    super(T.allTokens, { recoveryEnabled: recover, errorMessageProvider, maxLookahead: 3, skipValidations: !validate });
    this.performSelfAnalysis();
  }

  // ------------------------------------------------------------ declarations

  program = this.RULE('program', () => {
    this.MANY(() =>
      this.OR([
        { ALT: () => this.SUBRULE(this.classDecl) },
        { ALT: () => this.SUBRULE(this.funDecl) },
        { ALT: () => this.SUBRULE(this.statement) },
      ]),
    );
  });

  classDecl = this.RULE('classDecl', () => {
    this.CONSUME(T.Class);
    this.CONSUME(T.Identifier);
    this.OPTION(() => {
      this.CONSUME(T.Extends);
      this.CONSUME(T.TypeName, { LABEL: 'superName' });
    });
    this.CONSUME(T.LBrace);
    this.MANY(() =>
      this.OR([
        { ALT: () => this.SUBRULE(this.fieldDecl) },
        { ALT: () => this.SUBRULE(this.initDecl) },
        { ALT: () => this.SUBRULE(this.funDecl) },
      ]),
    );
    this.CONSUME(T.RBrace);
  });

  fieldDecl = this.RULE('fieldDecl', () => {
    this.CONSUME(T.Var);
    this.CONSUME(T.Identifier);
    this.CONSUME(T.Colon);
    this.SUBRULE(this.type);
    // Not in the language: parsed only to say so plainly instead of a cascade of syntax errors.
    this.OPTION(() => {
      this.CONSUME(T.Assign);
      this.SUBRULE(this.expression);
    });
    this.CONSUME(T.Semicolon);
  });

  initDecl = this.RULE('initDecl', () => {
    this.CONSUME(T.Init);
    this.CONSUME(T.LParen);
    this.OPTION(() => this.SUBRULE(this.params));
    this.CONSUME(T.RParen);
    this.SUBRULE(this.block);
  });

  /** Top-level functions and methods share this rule. */
  funDecl = this.RULE('funDecl', () => {
    this.CONSUME(T.Fun);
    this.CONSUME(T.Identifier);
    this.CONSUME(T.LParen);
    this.OPTION(() => this.SUBRULE(this.params));
    this.CONSUME(T.RParen);
    this.OPTION2(() => {
      this.CONSUME(T.Colon);
      this.SUBRULE(this.type);
    });
    this.SUBRULE(this.block);
  });

  params = this.RULE('params', () => {
    this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.param) });
  });

  param = this.RULE('param', () => {
    this.CONSUME(T.Identifier);
    this.CONSUME(T.Colon);
    this.SUBRULE(this.type);
  });

  type = this.RULE('type', () => {
    this.CONSUME(T.TypeName);
    this.MANY(() => {
      this.CONSUME(T.LBracket);
      this.CONSUME(T.RBracket);
    });
  });

  // ------------------------------------------------------------ statements

  statement = this.RULE('statement', () => {
    this.OR([
      { ALT: () => this.SUBRULE(this.block) },
      { ALT: () => this.SUBRULE(this.varStmt) },
      { ALT: () => this.SUBRULE(this.ifStmt) },
      { ALT: () => this.SUBRULE(this.whileStmt) },
      { ALT: () => this.SUBRULE(this.forStmt) },
      { ALT: () => this.SUBRULE(this.breakStmt) },
      { ALT: () => this.SUBRULE(this.continueStmt) },
      { ALT: () => this.SUBRULE(this.returnStmt) },
      { ALT: () => this.SUBRULE(this.exprStmt) },
    ]);
  });

  block = this.RULE('block', () => {
    this.CONSUME(T.LBrace);
    this.MANY(() => this.SUBRULE(this.statement));
    this.CONSUME(T.RBrace);
  });

  varStmt = this.RULE('varStmt', () => {
    this.CONSUME(T.Var);
    this.CONSUME(T.Identifier);
    this.OPTION(() => {
      this.CONSUME(T.Colon);
      this.SUBRULE(this.type);
    });
    this.OPTION2(() => {
      this.CONSUME(T.Assign);
      this.SUBRULE(this.expression);
    });
    this.CONSUME(T.Semicolon);
  });

  ifStmt = this.RULE('ifStmt', () => {
    this.CONSUME(T.If);
    this.CONSUME(T.LParen);
    this.SUBRULE(this.expression);
    this.CONSUME(T.RParen);
    this.SUBRULE(this.statement, { LABEL: 'then' });
    // Greedy: a dangling `else` belongs to the nearest `if`.
    this.OPTION(() => {
      this.CONSUME(T.Else);
      this.SUBRULE2(this.statement, { LABEL: 'else' });
    });
  });

  whileStmt = this.RULE('whileStmt', () => {
    this.CONSUME(T.While);
    this.CONSUME(T.LParen);
    this.SUBRULE(this.expression);
    this.CONSUME(T.RParen);
    this.SUBRULE(this.statement);
  });

  forStmt = this.RULE('forStmt', () => {
    this.CONSUME(T.For);
    this.CONSUME(T.LParen);
    // The init clause brings its own ';' (a var or expression statement).
    this.OR([
      { ALT: () => this.SUBRULE(this.varStmt) },
      { ALT: () => this.SUBRULE(this.exprStmt) },
      { ALT: () => this.CONSUME(T.Semicolon, { LABEL: 'noInit' }) },
    ]);
    this.OPTION(() => this.SUBRULE(this.expression, { LABEL: 'cond' }));
    this.CONSUME2(T.Semicolon);
    this.OPTION2(() => this.SUBRULE2(this.expression, { LABEL: 'update' }));
    this.CONSUME(T.RParen);
    this.SUBRULE(this.statement);
  });

  breakStmt = this.RULE('breakStmt', () => {
    this.CONSUME(T.Break);
    this.CONSUME(T.Semicolon);
  });

  continueStmt = this.RULE('continueStmt', () => {
    this.CONSUME(T.Continue);
    this.CONSUME(T.Semicolon);
  });

  returnStmt = this.RULE('returnStmt', () => {
    this.CONSUME(T.Return);
    this.OPTION(() => this.SUBRULE(this.expression));
    this.CONSUME(T.Semicolon);
  });

  exprStmt = this.RULE('exprStmt', () => {
    this.SUBRULE(this.expression);
    this.CONSUME(T.Semicolon);
  });

  // ------------------------------------------------------------ expressions

  /** Assignment is the lowest level and right-associative; the checker validates the target. */
  expression = this.RULE('expression', () => {
    this.SUBRULE(this.orExpr);
    this.OPTION(() => {
      this.CONSUME(T.Assign);
      this.SUBRULE(this.expression);
    });
  });

  orExpr = this.RULE('orExpr', () => {
    this.SUBRULE(this.andExpr, { LABEL: 'operands' });
    this.MANY(() => {
      this.CONSUME(T.OrOr, { LABEL: 'ops' });
      this.SUBRULE2(this.andExpr, { LABEL: 'operands' });
    });
  });

  andExpr = this.RULE('andExpr', () => {
    this.SUBRULE(this.equality, { LABEL: 'operands' });
    this.MANY(() => {
      this.CONSUME(T.AndAnd, { LABEL: 'ops' });
      this.SUBRULE2(this.equality, { LABEL: 'operands' });
    });
  });

  equality = this.RULE('equality', () => {
    this.SUBRULE(this.comparison, { LABEL: 'operands' });
    this.MANY(() => {
      this.CONSUME(T.EqualityOp, { LABEL: 'ops' });
      this.SUBRULE2(this.comparison, { LABEL: 'operands' });
    });
  });

  /** `<` ... and `is T` share a level; each tail is a subrule so their order survives in the CST. */
  comparison = this.RULE('comparison', () => {
    this.SUBRULE(this.bitOr);
    this.MANY(() => this.SUBRULE(this.comparisonTail));
  });

  comparisonTail = this.RULE('comparisonTail', () => {
    this.OR([
      {
        ALT: () => {
          this.CONSUME(T.RelationalOp);
          this.SUBRULE(this.bitOr);
        },
      },
      {
        ALT: () => {
          this.CONSUME(T.Is);
          this.SUBRULE(this.type);
        },
      },
    ]);
  });

  bitOr = this.RULE('bitOr', () => {
    this.SUBRULE(this.bitXor, { LABEL: 'operands' });
    this.MANY(() => {
      this.CONSUME(T.Pipe, { LABEL: 'ops' });
      this.SUBRULE2(this.bitXor, { LABEL: 'operands' });
    });
  });

  bitXor = this.RULE('bitXor', () => {
    this.SUBRULE(this.bitAnd, { LABEL: 'operands' });
    this.MANY(() => {
      this.CONSUME(T.Caret, { LABEL: 'ops' });
      this.SUBRULE2(this.bitAnd, { LABEL: 'operands' });
    });
  });

  bitAnd = this.RULE('bitAnd', () => {
    this.SUBRULE(this.shift, { LABEL: 'operands' });
    this.MANY(() => {
      this.CONSUME(T.Amp, { LABEL: 'ops' });
      this.SUBRULE2(this.shift, { LABEL: 'operands' });
    });
  });

  shift = this.RULE('shift', () => {
    this.SUBRULE(this.additive, { LABEL: 'operands' });
    this.MANY(() => {
      this.CONSUME(T.ShiftOp, { LABEL: 'ops' });
      this.SUBRULE2(this.additive, { LABEL: 'operands' });
    });
  });

  additive = this.RULE('additive', () => {
    this.SUBRULE(this.multiplicative, { LABEL: 'operands' });
    this.MANY(() => {
      this.CONSUME(T.AdditiveOp, { LABEL: 'ops' });
      this.SUBRULE2(this.multiplicative, { LABEL: 'operands' });
    });
  });

  multiplicative = this.RULE('multiplicative', () => {
    this.SUBRULE(this.unary, { LABEL: 'operands' });
    this.MANY(() => {
      this.CONSUME(T.MultiplicativeOp, { LABEL: 'ops' });
      this.SUBRULE2(this.unary, { LABEL: 'operands' });
    });
  });

  unary = this.RULE('unary', () => {
    this.OR([
      {
        ALT: () => {
          this.CONSUME(T.UnaryOp);
          this.SUBRULE(this.unary);
        },
      },
      { ALT: () => this.SUBRULE(this.postfix) },
    ]);
  });

  postfix = this.RULE('postfix', () => {
    this.SUBRULE(this.primary);
    this.MANY(() => this.SUBRULE(this.postfixOp));
  });

  postfixOp = this.RULE('postfixOp', () => {
    this.OR([
      {
        ALT: () => {
          this.CONSUME(T.Dot);
          this.CONSUME(T.Identifier);
          this.OPTION(() => this.SUBRULE(this.args));
        },
      },
      {
        ALT: () => {
          this.CONSUME(T.LBracket);
          this.SUBRULE(this.expression);
          this.CONSUME(T.RBracket);
        },
      },
      {
        ALT: () => {
          this.CONSUME(T.As);
          this.SUBRULE(this.type);
        },
      },
    ]);
  });

  primary = this.RULE('primary', () => {
    this.OR([
      { ALT: () => this.CONSUME(T.IntLiteral) },
      { ALT: () => this.CONSUME(T.HexLiteral) },
      { ALT: () => this.CONSUME(T.FloatLiteral) },
      { ALT: () => this.CONSUME(T.StringLiteral) },
      { ALT: () => this.CONSUME(T.True) },
      { ALT: () => this.CONSUME(T.False) },
      { ALT: () => this.CONSUME(T.Null) },
      { ALT: () => this.CONSUME(T.This) },
      { ALT: () => this.SUBRULE(this.superCall) },
      {
        // A name, or a call of a top-level or built-in function.
        ALT: () => {
          this.CONSUME(T.Identifier);
          this.OPTION(() => this.SUBRULE(this.args));
        },
      },
      { ALT: () => this.SUBRULE(this.newExpr) },
      {
        ALT: () => {
          this.CONSUME(T.LParen);
          this.SUBRULE(this.expression);
          this.CONSUME(T.RParen);
        },
      },
    ]);
  });

  superCall = this.RULE('superCall', () => {
    this.CONSUME(T.Super);
    this.CONSUME(T.Dot);
    this.OR([{ ALT: () => this.CONSUME(T.Identifier) }, { ALT: () => this.CONSUME(T.Init) }]);
    this.SUBRULE(this.args);
  });

  newExpr = this.RULE('newExpr', () => {
    this.CONSUME(T.New);
    this.CONSUME(T.TypeName);
    this.OR([
      { ALT: () => this.SUBRULE(this.args) },
      {
        ALT: () => {
          this.CONSUME(T.LBracket);
          this.SUBRULE(this.expression);
          this.CONSUME(T.RBracket);
          // `new int[n][]`: each `[]` pair adds one array level to the element type.
          // The gate keeps `new int[n][i]` an index into the new array.
          this.MANY({
            GATE: () => this.LA(2).tokenType === T.RBracket,
            DEF: () => {
              this.CONSUME2(T.LBracket, { LABEL: 'dim' });
              this.CONSUME2(T.RBracket);
            },
          });
        },
      },
    ]);
  });

  args = this.RULE('args', () => {
    this.CONSUME(T.LParen);
    this.MANY_SEP({ SEP: T.Comma, DEF: () => this.SUBRULE(this.expression) });
    this.CONSUME(T.RParen);
  });
}

/** One parser instance of each kind is reused: chevrotain parsers are expensive to
 *  build and reset by `input =`. A program is parsed without error recovery first;
 *  only one with a syntax error is parsed again, recovering, for all its errors. */
const parsers: { plain?: MiniParser; recovering?: MiniParser } = {};
export function getParser(recover = false): MiniParser {
  return recover ? (parsers.recovering ??= new MiniParser(false, true)) : (parsers.plain ??= new MiniParser(false, false));
}

export interface ParseResult {
  readonly cst: CstNode | undefined;
  readonly errors: Diagnostic[];
}

/** Lexes and parses `source` into a CST; syntax and lexical errors are returned as diagnostics. */
export function parseCst(file: string, source: string): ParseResult {
  const lexed = T.tokenize(source);
  const errors: Diagnostic[] = lexed.errors.map((e) => ({ file, line: e.line, col: e.col, message: e.message }));
  // Refused before the parser recurses into it (nesting.ts).
  const deep = checkNesting(lexed.tokens);
  if (deep !== null) return { cst: undefined, errors: [...errors, { file, ...deep }] };
  let parser = getParser();
  parser.input = lexed.tokens;
  let cst = parser.program();
  if (parser.errors.length > 0) {
    parser = getParser(true);
    parser.input = lexed.tokens;
    cst = parser.program();
  }
  const last = lexed.tokens[lexed.tokens.length - 1];
  for (const e of parser.errors) {
    // A missing ';' or ')' is reported just after the token it should follow when
    // the next token is on a later line: that is where the user has to type it.
    const prev = (e as { previousToken?: IToken }).previousToken;
    const at =
      e.name === 'MismatchedTokenException' && prev && Number.isFinite(prev.endLine) && prev.endLine !== e.token.startLine
        ? { line: prev.endLine!, col: prev.endColumn! + 1 }
        : tokenPos(e.token, last, source);
    errors.push({ file, ...at, message: e.message });
  }
  return { cst: errors.length === 0 ? cst : undefined, errors };
}

/** A token's position; for the end-of-file token, just after the last real token. */
function tokenPos(token: IToken, last: IToken | undefined, source: string): Pos {
  if (token.tokenType !== EOF && Number.isFinite(token.startLine)) {
    return { line: token.startLine!, col: token.startColumn! };
  }
  if (last && Number.isFinite(last.endLine)) return { line: last.endLine!, col: last.endColumn! + 1 };
  const lines = source.split('\n');
  return { line: lines.length, col: (lines[lines.length - 1]?.length ?? 0) + 1 };
}
