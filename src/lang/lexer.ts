/**
 * The .mini lexer: chevrotain token definitions and a `tokenize` helper.
 *
 * Keywords come before `Identifier` and name it as their `longer_alt`, so that
 * `format` lexes as one identifier and not as `for` + `mat`. Every token has a
 * `label` because the parser's error messages quote labels ("expected ')'").
 * Unterminated strings and block comments have their own tokens so that one
 * missing quote is one error, not a cascade of nonsense tokens.
 */
import { createToken, Lexer } from './chevrotain.js';
import type { IToken, TokenType } from 'chevrotain';

// ---------------------------------------------------------------- skipped

export const WhiteSpace = createToken({ name: 'WhiteSpace', pattern: /[ \t\r\n]+/, group: Lexer.SKIPPED, line_breaks: true });
export const LineComment = createToken({ name: 'LineComment', pattern: /\/\/[^\n\r]*/, group: Lexer.SKIPPED });
export const BlockComment = createToken({ name: 'BlockComment', pattern: /\/\*[\s\S]*?\*\//, group: Lexer.SKIPPED, line_breaks: true });
/** A `/*` with no closing `*\/`: reported as an error by `tokenize`. */
export const UnterminatedComment = createToken({ name: 'UnterminatedComment', pattern: /\/\*[\s\S]*/, group: 'errors', line_breaks: true });

// ---------------------------------------------------------------- names

/**
 * Category of every token that can start a type: a class name or one of the
 * reserved type names. Lets the parser say `CONSUME(TypeName)` once.
 */
export const TypeName = createToken({ name: 'TypeName', pattern: Lexer.NA, label: 'a type' });
export const Identifier = createToken({ name: 'Identifier', pattern: /[A-Za-z_][A-Za-z0-9_]*/, label: 'a name', categories: [TypeName] });

/**
 * The reserved words, in declaration order: the type names (`int`, ..., `Object`)
 * and the rest. Filled by `keyword`, so the token definitions below stay the one
 * list; the editor grammar (editors/vscode) is checked against these.
 */
export const TYPE_KEYWORDS: string[] = [];
export const KEYWORDS: string[] = [];

function keyword(word: string, categories: TokenType[] = []): TokenType {
  (categories.includes(TypeName) ? TYPE_KEYWORDS : KEYWORDS).push(word);
  return createToken({
    name: word[0]!.toUpperCase() + word.slice(1),
    pattern: new RegExp(word),
    label: `'${word}'`,
    longer_alt: Identifier,
    categories,
  });
}

export const Int = keyword('int', [TypeName]);
export const Float = keyword('float', [TypeName]);
export const Bool = keyword('bool', [TypeName]);
export const Str = keyword('string', [TypeName]);
export const Void = keyword('void', [TypeName]);
export const ObjectKw = keyword('Object', [TypeName]);

export const Class = keyword('class');
export const Extends = keyword('extends');
export const Var = keyword('var');
export const Fun = keyword('fun');
export const Init = keyword('init');
export const This = keyword('this');
export const Super = keyword('super');
export const New = keyword('new');
export const If = keyword('if');
export const Else = keyword('else');
export const While = keyword('while');
export const For = keyword('for');
export const Break = keyword('break');
export const Continue = keyword('continue');
export const Return = keyword('return');
export const True = keyword('true');
export const False = keyword('false');
export const Null = keyword('null');
export const Is = keyword('is');
export const As = keyword('as');

// ---------------------------------------------------------------- literals

// Float before Int so that `1.5` is not `1` `.` `5`; Hex before Int for `0x...`.
export const FloatLiteral = createToken({
  name: 'FloatLiteral',
  pattern: /\d+\.\d+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+/,
  label: 'a number',
});
export const HexLiteral = createToken({ name: 'HexLiteral', pattern: /0[xX][0-9a-fA-F]+/, label: 'a number' });
export const IntLiteral = createToken({ name: 'IntLiteral', pattern: /\d+/, label: 'a number' });
export const StringLiteral = createToken({ name: 'StringLiteral', pattern: /"(?:[^"\\\n\r]|\\.)*"/, label: 'a string' });
/** A string that reaches the end of its line: reported as an error by `tokenize`. */
export const UnterminatedString = createToken({ name: 'UnterminatedString', pattern: /"(?:[^"\\\n\r]|\\.)*/, group: 'errors' });

// ---------------------------------------------------------------- punctuation

// Operator categories: one per precedence level, so that a grammar rule can
// consume "any additive operator" with one CONSUME and keep the order of operators.
export const EqualityOp = createToken({ name: 'EqualityOp', pattern: Lexer.NA, label: 'an operator' });
export const RelationalOp = createToken({ name: 'RelationalOp', pattern: Lexer.NA, label: 'an operator' });
export const ShiftOp = createToken({ name: 'ShiftOp', pattern: Lexer.NA, label: 'an operator' });
export const AdditiveOp = createToken({ name: 'AdditiveOp', pattern: Lexer.NA, label: 'an operator' });
export const MultiplicativeOp = createToken({ name: 'MultiplicativeOp', pattern: Lexer.NA, label: 'an operator' });
export const UnaryOp = createToken({ name: 'UnaryOp', pattern: Lexer.NA, label: 'an operator' });

function punct(name: string, text: string, categories: TokenType[] = []): TokenType {
  const escaped = text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return createToken({ name, pattern: new RegExp(escaped), label: `'${text}'`, categories });
}

// Longer operators come first: chevrotain takes the first pattern that matches.
export const Ushr = punct('Ushr', '>>>', [ShiftOp]);
export const Shr = punct('Shr', '>>', [ShiftOp]);
export const Shl = punct('Shl', '<<', [ShiftOp]);
export const Le = punct('Le', '<=', [RelationalOp]);
export const Ge = punct('Ge', '>=', [RelationalOp]);
export const EqEq = punct('EqEq', '==', [EqualityOp]);
export const NotEq = punct('NotEq', '!=', [EqualityOp]);
export const AndAnd = punct('AndAnd', '&&');
export const OrOr = punct('OrOr', '||');
export const Lt = punct('Lt', '<', [RelationalOp]);
export const Gt = punct('Gt', '>', [RelationalOp]);
export const Assign = punct('Assign', '=');
export const Bang = punct('Bang', '!', [UnaryOp]);
export const Tilde = punct('Tilde', '~', [UnaryOp]);
export const Amp = punct('Amp', '&');
export const Pipe = punct('Pipe', '|');
export const Caret = punct('Caret', '^');
export const Plus = punct('Plus', '+', [AdditiveOp]);
export const Minus = punct('Minus', '-', [AdditiveOp, UnaryOp]);
export const Star = punct('Star', '*', [MultiplicativeOp]);
export const Slash = punct('Slash', '/', [MultiplicativeOp]);
export const Percent = punct('Percent', '%', [MultiplicativeOp]);
export const LParen = punct('LParen', '(');
export const RParen = punct('RParen', ')');
export const LBrace = punct('LBrace', '{');
export const RBrace = punct('RBrace', '}');
export const LBracket = punct('LBracket', '[');
export const RBracket = punct('RBracket', ']');
export const Comma = punct('Comma', ',');
export const Dot = punct('Dot', '.');
export const Colon = punct('Colon', ':');
export const Semicolon = punct('Semicolon', ';');

export const allTokens: TokenType[] = [
  WhiteSpace,
  BlockComment,
  UnterminatedComment,
  LineComment,
  Int, Float, Bool, Str, Void, ObjectKw,
  Class, Extends, Var, Fun, Init, This, Super, New, If, Else, While, For,
  Break, Continue, Return, True, False, Null, Is, As,
  Identifier,
  FloatLiteral, HexLiteral, IntLiteral,
  StringLiteral, UnterminatedString,
  Ushr, Shr, Shl, Le, Ge, EqEq, NotEq, AndAnd, OrOr, Lt, Gt, Assign, Bang, Tilde,
  Amp, Pipe, Caret, Plus, Minus, Star, Slash, Percent,
  LParen, RParen, LBrace, RBrace, LBracket, RBracket, Comma, Dot, Colon, Semicolon,
  TypeName, EqualityOp, RelationalOp, ShiftOp, AdditiveOp, MultiplicativeOp, UnaryOp,
];

/**
 * The lexer for `allTokens`. `validate` runs chevrotain's checks of the token
 * definitions, which a fixed token set need not pay for at every start: the
 * grammar test runs them (test/lang/grammar-validation.test.ts).
 */
export function makeLexer(validate: boolean): InstanceType<typeof Lexer> {
  return new Lexer(allTokens, { positionTracking: 'full', ensureOptimizations: false, skipValidations: !validate });
}

let lexer: InstanceType<typeof Lexer> | null = null;

/** The VM's lexer, made at its first use: a program whose bytecode comes from the
 *  compile cache (cli/compile-cache.ts) is never lexed. */
export function miniLexer(): InstanceType<typeof Lexer> {
  return (lexer ??= makeLexer(false));
}

/** A lexical error with a 1-based position and a finished message. */
export interface LexError {
  readonly line: number;
  readonly col: number;
  readonly message: string;
}

export interface LexResult {
  readonly tokens: IToken[];
  readonly errors: LexError[];
}

/** Splits `source` into tokens; bad characters and unterminated literals become errors. */
export function tokenize(source: string): LexResult {
  const result = miniLexer().tokenize(source);
  const errors: LexError[] = result.errors.map((e) => ({
    line: e.line ?? 1,
    col: e.column ?? 1,
    message: `unexpected character '${source.slice(e.offset, e.offset + Math.max(1, e.length))}'`,
  }));
  for (const t of result.groups['errors'] ?? []) {
    const message = t.tokenType === UnterminatedString ? 'unterminated string' : 'unterminated block comment';
    errors.push({ line: t.startLine ?? 1, col: t.startColumn ?? 1, message });
  }
  return { tokens: result.tokens, errors };
}

/**
 * Decodes the text of a string literal token (quotes included). Bad escapes are
 * reported through `onError` with their offset inside the token, and dropped.
 */
export function decodeString(image: string, onError: (offset: number, message: string) => void): string {
  let out = '';
  const end = image.length - 1;
  for (let i = 1; i < end; i++) {
    const c = image[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = image[i + 1]!;
    i++;
    switch (e) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case 'u': {
        const m = /^\{([0-9a-fA-F]{1,6})\}/.exec(image.slice(i + 1, end));
        const code = m ? parseInt(m[1]!, 16) : NaN;
        if (!m || code > 0x10ffff) {
          onError(i - 1, "invalid unicode escape: write '\\u{' hex digits '}'");
        } else {
          out += String.fromCodePoint(code);
          i += m[0].length;
        }
        break;
      }
      default:
        onError(i - 1, `invalid escape '\\${e}' in string`);
    }
  }
  return out;
}
