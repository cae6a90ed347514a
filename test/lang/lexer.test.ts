import { describe, it, expect } from 'vitest';
import { tokenize } from '../../src/lang/index.js';
import { parsed } from './helpers.js';

describe('lexer', () => {
  const kinds = (src: string) => tokenize(src).tokens.map((t) => `${t.tokenType.name}:${t.image}`);

  it('separates keywords from identifiers that start with them', () => {
    expect(kinds('var variable for format int integer Object Objects is isx')).toEqual([
      'Var:var', 'Identifier:variable', 'For:for', 'Identifier:format', 'Int:int', 'Identifier:integer',
      'Object:Object', 'Identifier:Objects', 'Is:is', 'Identifier:isx',
    ]);
  });

  it('lexes numbers: decimal, hex, floats with and without exponents', () => {
    expect(kinds('123 0x7f 0XFF 1.5 2e3 1.5e-3 7E+2')).toEqual([
      'IntLiteral:123', 'HexLiteral:0x7f', 'HexLiteral:0XFF', 'FloatLiteral:1.5', 'FloatLiteral:2e3',
      'FloatLiteral:1.5e-3', 'FloatLiteral:7E+2',
    ]);
  });

  it('takes the longest operator', () => {
    expect(kinds('>>> >> >= > << <= < == = != ! && & || |').map((k) => k.split(':')[1])).toEqual([
      '>>>', '>>', '>=', '>', '<<', '<=', '<', '==', '=', '!=', '!', '&&', '&', '||', '|',
    ]);
  });

  it('skips whitespace and both kinds of comments, keeping positions', () => {
    const r = tokenize('a // line\n/* block\n comment */ b');
    expect(r.errors).toEqual([]);
    expect(r.tokens.map((t) => [t.image, t.startLine, t.startColumn])).toEqual([
      ['a', 1, 1],
      ['b', 3, 13],
    ]);
  });

  it('reports bad characters and unterminated literals with positions', () => {
    expect(tokenize('a # b').errors).toEqual([{ line: 1, col: 3, message: "unexpected character '#'" }]);
    expect(tokenize('x\n  "abc').errors).toEqual([{ line: 2, col: 3, message: 'unterminated string' }]);
    expect(tokenize('x /* never').errors).toEqual([{ line: 1, col: 3, message: 'unterminated block comment' }]);
  });

  it('decodes string escapes', () => {
    const p = parsed('print("a\\n\\t\\r\\"\\\\\\u{41}\\u{1F600}");');
    const s = p.body[0]!;
    expect(s.kind === 'expr' && s.expr.kind === 'builtin' && s.expr.args[0]).toMatchObject({
      kind: 'string',
      value: 'a\n\t\r"\\A\u{1F600}',
    });
  });
});
