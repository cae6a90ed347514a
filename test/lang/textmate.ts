/**
 * A small TextMate tokenizer for the tests of the editor grammar: `match` rules with
 * captures, `begin`/`end` rules (with inner patterns, across lines) and `include`s
 * of the repository. At each position the rule whose match starts leftmost wins, the
 * first listed on a tie, and a rule's `end` beats its inner patterns on a tie, as in
 * VS Code. Regexes are JavaScript's, so the grammar must avoid Oniguruma-only syntax.
 */

export interface Rule {
  name?: string;
  match?: string;
  begin?: string;
  end?: string;
  include?: string;
  patterns?: Rule[];
  captures?: Record<string, { name: string }>;
}

export interface Grammar {
  scopeName: string;
  patterns: Rule[];
  repository: Record<string, Rule>;
}

/** A piece of a line with the scopes it is in, outermost first (the grammar's scopeName left out). */
export interface Token {
  text: string;
  scopes: string[];
}

/** A compiled regex that searches from a position and reports its groups' offsets. */
function compile(source: string): RegExp {
  return new RegExp(source, 'dg');
}

/** The match rules and begin rules reachable from `rules`, with includes resolved in order. */
function flatten(g: Grammar, rules: Rule[]): Rule[] {
  return rules.flatMap((r) => {
    if (r.include !== undefined) {
      const target = g.repository[r.include.replace(/^#/, '')];
      if (target === undefined) throw new Error(`grammar: no repository rule ${r.include}`);
      return flatten(g, [target]);
    }
    if (r.match === undefined && r.begin === undefined) return flatten(g, r.patterns ?? []);
    return [r];
  });
}

interface Open {
  rule: Rule;
  end: RegExp;
}

export function tokenizeLines(g: Grammar, text: string): Token[][] {
  const stack: Open[] = [];
  const regexes = new Map<string, RegExp>();
  const re = (source: string): RegExp => {
    let r = regexes.get(source);
    if (r === undefined) regexes.set(source, (r = compile(source)));
    return r;
  };
  return text.split('\n').map((line) => {
    const tokens: Token[] = [];
    const scopes = (): string[] => stack.map((o) => o.rule.name).filter((n): n is string => n !== undefined);
    const emit = (s: string, extra: string[]): void => {
      if (s !== '') tokens.push({ text: s, scopes: [...scopes(), ...extra] });
    };
    let pos = 0;
    // A rule that matches the empty string (`"|$` at a line's end) may fire once per position.
    let lastEmptyAt = -1;
    while (pos <= line.length) {
      const top = stack[stack.length - 1];
      const candidates = flatten(g, top ? top.rule.patterns ?? [] : g.patterns);
      let best: { index: number; m: RegExpExecArray; rule: Rule | 'end' } | undefined;
      const consider = (r: RegExp, rule: Rule | 'end'): void => {
        r.lastIndex = pos;
        const m = r.exec(line);
        if (m && (best === undefined || m.index < best.index)) best = { index: m.index, m, rule };
      };
      if (top) consider(top.end, 'end');
      for (const rule of candidates) consider(re(rule.match ?? rule.begin!), rule);
      if (best === undefined || (best.m[0] === '' && best.index === lastEmptyAt)) {
        emit(line.slice(pos), []);
        break;
      }
      const { index, m, rule } = best;
      emit(line.slice(pos, index), []);
      if (m[0] === '') lastEmptyAt = index;
      if (rule === 'end') {
        emit(m[0], []);
        stack.pop();
      } else if (rule.match !== undefined) {
        emitCaptures(m, rule, line, scopes(), tokens);
      } else {
        stack.push({ rule, end: compile(rule.end!) });
        emit(m[0], []);
      }
      // Past the line's end the loop goes once more, so a rule ending at `$` closes on this line.
      pos = index + m[0].length;
      if (m[0] === '' && pos >= line.length) break;
    }
    return tokens;
  });
}

/** Splits a match into tokens: the captured groups with their names, the rest with the rule's name. */
function emitCaptures(m: RegExpExecArray, rule: Rule, line: string, outer: string[], tokens: Token[]): void {
  const base = rule.name ? [...outer, rule.name] : outer;
  const groups: Array<{ start: number; end: number; name: string }> = [];
  for (const [key, capture] of Object.entries(rule.captures ?? {})) {
    const span = m.indices?.[Number(key)];
    if (span) groups.push({ start: span[0], end: span[1], name: capture.name });
  }
  groups.sort((a, b) => a.start - b.start);
  let at = m.index;
  const push = (from: number, to: number, extra: string[]): void => {
    if (to > from) tokens.push({ text: line.slice(from, to), scopes: [...base, ...extra] });
  };
  for (const grp of groups) {
    push(at, grp.start, []);
    push(grp.start, grp.end, [grp.name]);
    at = grp.end;
  }
  push(at, m.index + m[0].length, []);
}

/** The innermost scope of each token whose text is `text` (for assertions). */
export function scopesOf(lines: Token[][], text: string): string[] {
  return lines.flat().filter((t) => t.text === text).map((t) => t.scopes[t.scopes.length - 1] ?? '');
}
