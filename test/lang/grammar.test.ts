// The editor grammar (editors/vscode/syntaxes/mini.tmLanguage.json) against the
// language's one list of reserved words (the lexer) and built-ins, and as a tokenizer
// of a sample program (test/lang/textmate.ts applies its rules).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KEYWORDS, TYPE_KEYWORDS } from '../../src/lang/lexer.js';
import { builtinNames } from '../../src/lang/cst-to-ast.js';
import { scopesOf, tokenizeLines, type Grammar, type Rule } from './textmate.js';

const DIR = 'editors/vscode';
const grammar = JSON.parse(readFileSync(join(DIR, 'syntaxes/mini.tmLanguage.json'), 'utf8')) as Grammar;

/** The words of a repository rule written as `\b(?:a|b|c)\b` (a lookahead may follow). */
function words(key: string): string[] {
  const m = /^\\b\(\?:([A-Za-z|]+)\)\\b/.exec(grammar.repository[key]?.match ?? '');
  if (!m) throw new Error(`grammar rule '${key}' is not a \\b(?:word|...)\\b list`);
  return m[1]!.split('|');
}

function allRegexes(rules: Rule[]): string[] {
  return rules.flatMap((r) => [r.match, r.begin, r.end].filter((s): s is string => s !== undefined).concat(allRegexes(r.patterns ?? [])));
}

const sorted = (xs: Iterable<string>): string[] => [...xs].sort();

describe('the TextMate grammar for .mini', () => {
  it("lists exactly the lexer's reserved words: types, and the rest by role", () => {
    expect(sorted(words('types'))).toEqual(sorted(TYPE_KEYWORDS));
    const rest = ['keywords-control', 'keywords-declaration', 'keywords-operator', 'constants', 'variables-language'].flatMap(words);
    expect(new Set(rest).size, 'a word in two lists').toBe(rest.length);
    expect(sorted(rest)).toEqual(sorted(KEYWORDS));
    expect(TYPE_KEYWORDS).toContain('Object');
    expect(KEYWORDS).toContain('while');
  });

  it("lists exactly the checker's built-in functions", () => {
    expect(sorted(words('builtins'))).toEqual(sorted(builtinNames));
  });

  it('has regexes that compile, and includes that resolve', () => {
    const regexes = [...allRegexes(grammar.patterns), ...allRegexes(Object.values(grammar.repository))];
    expect(regexes.length).toBeGreaterThan(15);
    for (const r of regexes) expect(() => new RegExp(r), r).not.toThrow();
    for (const p of grammar.patterns) expect(grammar.repository, p.include).toHaveProperty(p.include!.slice(1));
  });

  it('tokenizes keywords, names, numbers, strings and comments of a sample program', () => {
    const lines = tokenizeLines(grammar, [
      'class Circle extends Shape { // a "round" class',
      '  var r: float;',
      '  fun area(): float { return 3.14 * this.r * sqrt(1e2); }',
      '}',
      '/* a block comment',
      '   over lines: while true */',
      'var format = "tab\\there \\u{41} and \\q";',
      'var n: int = 0xFF + 42; if (n is Circle) print(formatted(n));',
      'var s = "open',
      'var t = null;',
    ].join('\n'));
    expect(scopesOf(lines, 'class')).toEqual(['storage.type.class.mini']);
    expect(scopesOf(lines, 'Circle')).toEqual(['entity.name.type.class.mini', 'entity.name.type.mini']);
    expect(scopesOf(lines, 'extends')).toEqual(['storage.modifier.extends.mini']);
    expect(scopesOf(lines, 'Shape')).toEqual(['entity.other.inherited-class.mini']);
    expect(scopesOf(lines, '// a "round" class')).toEqual(['comment.line.double-slash.mini']);
    expect(scopesOf(lines, 'var')).toEqual(['storage.type.mini', 'storage.type.mini', 'storage.type.mini', 'storage.type.mini', 'storage.type.mini']);
    expect(scopesOf(lines, 'float')).toEqual(['support.type.primitive.mini', 'support.type.primitive.mini']);
    expect(scopesOf(lines, 'area')).toEqual(['entity.name.function.mini']);
    expect(scopesOf(lines, 'return')).toEqual(['keyword.control.mini']);
    expect(scopesOf(lines, '3.14')).toEqual(['constant.numeric.float.mini']);
    expect(scopesOf(lines, '1e2')).toEqual(['constant.numeric.float.mini']);
    expect(scopesOf(lines, 'this')).toEqual(['variable.language.mini']);
    expect(scopesOf(lines, 'sqrt')).toEqual(['support.function.builtin.mini']);
    expect(scopesOf(lines, 'print')).toEqual(['support.function.builtin.mini']);
    // A block comment spans lines; the keywords inside it are comment.
    expect(lines[4]!.map((t) => t.text)).toEqual(['/*', ' a block comment']);
    expect(lines[5]!.map((t) => t.text)).toEqual(['   over lines: while true ', '*/']);
    for (const t of [...lines[4]!, ...lines[5]!]) expect(t.scopes, t.text).toEqual(['comment.block.mini']);
    expect(lines[6]![0]!.scopes).toEqual(['storage.type.mini']);
    // `format` starts with `for` but is one name, as in the lexer.
    expect(scopesOf(lines, 'for')).toEqual([]);
    expect(lines[6]![0]!.scopes).toEqual(['storage.type.mini']);
    expect(lines[6]!.map((t) => t.text).join('')).toBe('var format = "tab\\there \\u{41} and \\q";');
    expect(scopesOf(lines, '\\t')).toEqual(['constant.character.escape.mini']);
    expect(scopesOf(lines, '\\u{41}')).toEqual(['constant.character.escape.mini']);
    expect(scopesOf(lines, '\\q')).toEqual(['invalid.illegal.escape.mini']);
    expect(scopesOf(lines, 'here ')).toEqual(['string.quoted.double.mini']);
    expect(scopesOf(lines, '0xFF')).toEqual(['constant.numeric.hex.mini']);
    expect(scopesOf(lines, '42')).toEqual(['constant.numeric.integer.mini']);
    expect(scopesOf(lines, 'is')).toEqual(['keyword.operator.word.mini']);
    expect(scopesOf(lines, 'formatted')).toEqual(['entity.name.function.call.mini']);
    // An unterminated string ends at its line, so the next line is code again.
    expect(scopesOf(lines, 'open')).toEqual(['string.quoted.double.mini']);
    expect(scopesOf(lines, 'null')).toEqual(['constant.language.mini']);
  });

  it('tokenizes every reserved word alone as a keyword, type or constant, never as a name', () => {
    for (const w of [...KEYWORDS, ...TYPE_KEYWORDS]) {
      const [line] = tokenizeLines(grammar, w);
      expect(line, w).toHaveLength(1);
      expect(line![0]!.scopes.at(-1), w).toMatch(/^(keyword|storage|constant\.language|variable\.language|support\.type)\./);
    }
  });

  it('is contributed by the VS Code package under its scope name, for .mini files', () => {
    const pkg = JSON.parse(readFileSync(join(DIR, 'package.json'), 'utf8')) as {
      contributes: { languages: Array<{ id: string; extensions: string[]; configuration: string }>; grammars: Array<{ language: string; scopeName: string; path: string }> };
    };
    const [language] = pkg.contributes.languages;
    const [g] = pkg.contributes.grammars;
    expect(language).toMatchObject({ id: 'mini', extensions: ['.mini'] });
    expect(g).toMatchObject({ language: 'mini', scopeName: grammar.scopeName });
    expect(grammar.scopeName).toBe('source.mini');
    expect(existsSync(join(DIR, g!.path))).toBe(true);
    const config = JSON.parse(readFileSync(join(DIR, language!.configuration), 'utf8')) as { comments: unknown };
    expect(config.comments).toEqual({ lineComment: '//', blockComment: ['/*', '*/'] });
  });
});
