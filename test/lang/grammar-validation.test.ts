// Chevrotain's checks of the token definitions and of the grammar (ambiguous
// alternatives, left recursion, unreachable tokens) are skipped when `minivm`
// starts, since they cost a large share of its start-up; here they run in full.
import { describe, expect, it } from 'vitest';
import { makeLexer, miniLexer } from '../../src/lang/lexer.js';
import { getParser, MiniParser } from '../../src/lang/parser.js';

/** Chevrotain's own fields, which its typings do not name. */
interface LexerInternals { config: { skipValidations: boolean }; lexerDefinitionErrors: unknown[]; lexerDefinitionWarning: unknown[] }
interface ParserInternals { skipValidations: boolean; definitionErrors: unknown[] }

describe("chevrotain's validations of the .mini grammar", () => {
  it('find nothing wrong with the token definitions', () => {
    const lexer = makeLexer(true) as unknown as LexerInternals;
    expect(lexer.config.skipValidations).toBe(false);
    expect(lexer.lexerDefinitionErrors).toEqual([]);
    expect(lexer.lexerDefinitionWarning).toEqual([]);
  });

  it('find nothing wrong with the grammar', () => {
    const parser = new MiniParser(true) as unknown as ParserInternals;
    expect(parser.skipValidations).toBe(false);
    expect(parser.definitionErrors).toEqual([]);
  });

  it('are what the VM skips', () => {
    expect((miniLexer() as unknown as LexerInternals).config.skipValidations).toBe(true);
    expect((getParser() as unknown as ParserInternals).skipValidations).toBe(true);
  });
});
