/**
 * The front end's one limit on nesting, checked on the tokens before parsing: the
 * parser, checker and compiler recurse once per level of parentheses, brackets,
 * blocks, prefix operators and bodies of if/while/for/else without braces, and a
 * program nested past MAX_NESTING levels is refused with the position where it
 * goes deeper, not with JavaScript's stack overflow.
 */
import type { IToken, TokenType } from 'chevrotain';
import * as T from './lexer.js';

/** Levels of nesting the front end accepts: far past what people write, and within
 *  the stack of the front end's large-stack retry (compile-deep.ts in cli/). */
export const MAX_NESTING = 1000;

export interface NestingError {
  line: number;
  col: number;
  message: string;
}

const OPEN = new Set<TokenType>([T.LParen, T.LBracket, T.LBrace]);
const CLOSE = new Set<TokenType>([T.RParen, T.RBracket, T.RBrace]);
const HEADS = new Set<TokenType>([T.If, T.While, T.For, T.Else]);
/** Tokens after which `-` is binary (they end an operand). */
const OPERAND_END = new Set<TokenType>([
  T.Identifier, T.IntLiteral, T.HexLiteral, T.FloatLiteral, T.StringLiteral, T.True, T.False, T.Null, T.This,
  T.RParen, T.RBracket, T.Int, T.Float, T.Bool, T.Str, T.Void, T.ObjectKw,
]);

/** The first token past MAX_NESTING levels, as a diagnostic; null when there is none. */
export function checkNesting(tokens: readonly IToken[]): NestingError | null {
  let brackets = 0;
  let prefixRun = 0;
  let heads = 0;
  let prev: TokenType | null = null;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const type = t.tokenType;
    if (OPEN.has(type)) brackets++;
    else if (CLOSE.has(type)) brackets = Math.max(0, brackets - 1);
    const prefix = (type === T.Bang || type === T.Tilde || type === T.Minus) && (prev === null || !OPERAND_END.has(prev));
    prefixRun = prefix ? prefixRun + 1 : 0;
    if (HEADS.has(type)) heads++;
    // A statement ends the bodies that were waiting for it, unless an `else` continues them.
    else if ((type === T.Semicolon || type === T.RBrace) && tokens[i + 1]?.tokenType !== T.Else) heads = 0;
    if (brackets + prefixRun + heads > MAX_NESTING) {
      return { line: t.startLine ?? 1, col: t.startColumn ?? 1, message: `nesting deeper than ${MAX_NESTING} levels` };
    }
    prev = type;
  }
  return null;
}
