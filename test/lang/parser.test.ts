import { describe, it, expect } from 'vitest';
import { parse } from '../../src/lang/index.js';
import type { Stmt } from '../../src/lang/index.js';
import { firstExpr, parsed, show } from './helpers.js';

const expr = (src: string) => show(firstExpr(parsed(src + ';')));

function syntaxErrors(src: string): string[] {
  const r = parse('t.mini', src);
  if (!('errors' in r)) throw new Error('expected syntax errors');
  return r.errors.map((d) => `${d.line}:${d.col}: ${d.message}`);
}

describe('parser: precedence', () => {
  it('orders the levels of LANGUAGE.md, lowest first', () => {
    expect(expr('a || b && c')).toBe('(|| a (&& b c))');
    expect(expr('a && b == c')).toBe('(&& a (== b c))');
    expect(expr('a == b < c')).toBe('(== a (< b c))');
    expect(expr('a < b | c')).toBe('(< a (| b c))');
    expect(expr('a | b ^ c & d')).toBe('(| a (^ b (& c d)))');
    expect(expr('a & b << c')).toBe('(& a (<< b c))');
    expect(expr('a >>> b + c')).toBe('(>>> a (+ b c))');
    expect(expr('a + b * c')).toBe('(+ a (* b c))');
    expect(expr('-a * !b')).toBe('(* (- a) (! b))');
    expect(expr('-a.b')).toBe('(- (. a b))');
    expect(expr('~x as int')).toBe('(~ (as x int))');
  });

  it('is left-associative within a level and assignment is right-associative', () => {
    expect(expr('a - b - c')).toBe('(- (- a b) c)');
    expect(expr('a / b % c * d')).toBe('(* (% (/ a b) c) d)');
    expect(expr('a = b = c + 1')).toBe('(= a (= b (+ c 1)))');
  });

  it('parses `is` at the comparison level', () => {
    expect(expr('x is Node == true')).toBe('(== (is x Node) true)');
    expect(expr('a < b is Foo')).toBe('(is (< a b) Foo)');
    expect(expr('x is int[][]')).toBe('(is x int[][])');
  });

  it('parses parentheses and literals', () => {
    expect(expr('(a + b) * 0x10')).toBe('(* (+ a b) 16)');
    expect(expr('1.5 + 2e3')).toBe('(+ 1.5 2000)');
    expect(expr('0xffffffff')).toBe('-1');
    expect(expr('-2147483648')).toBe('-2147483648');
    expect(expr('null == this')).toBe('(== null this)');
  });
});

describe('parser: postfix chains and primaries', () => {
  it('chains calls, fields, indexing and casts left to right', () => {
    expect(expr('a.b.c(1, 2)[3].d as Foo')).toBe('(as (. ([] (invoke (. a b) c 1 2) 3) d) Foo)');
    expect(expr('(x as Node).next')).toBe('(. (as x Node) next)');
    expect(expr('s.length')).toBe('(. s length)');
  });

  it('tells built-in calls from user calls', () => {
    expect(expr('print(sqrt(2.0))')).toBe('(builtin print (builtin sqrt 2))');
    expect(expr('foo(1)')).toBe('(call foo 1)');
    expect(expr('clock()')).toBe('(builtin clock)');
  });

  it('parses new for objects and arrays, including arrays of arrays', () => {
    expect(expr('new Node(1, null)')).toBe('(new Node 1 null)');
    expect(expr('new Object()')).toBe('(new Object)');
    expect(expr('new int[n]')).toBe('(newArray int n)');
    expect(expr('new int[n][]')).toBe('(newArray int[] n)');
    expect(expr('new Node[3][][]')).toBe('(newArray Node[][] 3)');
    expect(expr('new int[3][0]')).toBe('([] (newArray int 3) 0)');
    expect(expr('new int[3].length')).toBe('(. (newArray int 3) length)');
  });

  it('parses super calls', () => {
    const p = parsed('class B extends A { init(x: int) { super.init(x); } fun m(): int { return super.m(); } }');
    const c = p.classes[0]!;
    const s0 = c.init!.body[0]!;
    expect(s0.kind === 'expr' && show(s0.expr)).toBe('(super init x)');
    const s1 = c.methods[0]!.body[0]!;
    expect(s1.kind === 'return' && s1.value && show(s1.value)).toBe('(super m)');
  });
});

describe('parser: declarations and statements', () => {
  it('parses classes, fields, init and methods', () => {
    const p = parsed('class A extends B { var x: int; var ys: float[]; init(a: int) {} fun m(p: A, q: int[][]): bool { return true; } fun v() {} }');
    const c = p.classes[0]!;
    expect(c.name).toBe('A');
    expect(c.superName).toBe('B');
    expect(c.fields.map((f) => f.name)).toEqual(['x', 'ys']);
    expect(c.init?.params.map((q) => q.name)).toEqual(['a']);
    expect(c.methods.map((m) => m.name)).toEqual(['m', 'v']);
    expect(c.methods[0]!.returnTypeRef).toMatchObject({ kind: 'named', name: 'bool' });
    expect(c.methods[1]!.returnTypeRef).toBeUndefined();
    expect(parsed('class C {}').classes[0]!.superName).toBeUndefined();
  });

  it('parses every statement kind', () => {
    const p = parsed(`
      var g: int = 1;
      { var x = 2; }
      if (a) b = 1; else { c = 2; }
      while (a) { break; continue; }
      for (var i = 0; i < 3; i = i + 1) {}
      for (;;) {}
      for (i = 0; ; ) {}
      fun f() { return; }
      fun h(): int { return 1; }
      print(1);
    `);
    const kinds = (ss: Stmt[]) => ss.map((s) => s.kind);
    expect(kinds(p.body)).toEqual(['var', 'block', 'if', 'while', 'for', 'for', 'for', 'expr']);
    expect(p.globals.map((g) => g.name)).toEqual(['g']);
    const w = p.body[3]!;
    expect(w.kind === 'while' && w.body.kind === 'block' && kinds(w.body.body)).toEqual(['break', 'continue']);
    const f1 = p.body[4]!;
    expect(f1.kind === 'for' && [f1.init?.kind, !!f1.cond, !!f1.update]).toEqual(['var', true, true]);
    const f2 = p.body[5]!;
    expect(f2.kind === 'for' && [f2.init, f2.cond, f2.update]).toEqual([undefined, undefined, undefined]);
    const f3 = p.body[6]!;
    expect(f3.kind === 'for' && [f3.init?.kind, f3.cond]).toEqual(['expr', undefined]);
    expect(p.functions.map((f) => f.body[0]!.kind)).toEqual(['return', 'return']);
  });

  it('binds a dangling else to the nearest if', () => {
    const s = parsed('if (a) if (b) x = 1; else x = 2;').body[0]!;
    expect(s.kind === 'if' && s.else).toBeUndefined();
    expect(s.kind === 'if' && s.then.kind === 'if' && s.then.else?.kind).toBe('expr');
  });

  it('records 1-based positions', () => {
    const p = parsed('var x = 1;\n  print(x + 2);');
    expect(p.body[1]!.pos).toEqual({ line: 2, col: 3 });
    const e = firstExpr(p, 1);
    expect(e.kind === 'builtin' && e.args[0]!.pos).toEqual({ line: 2, col: 11 }); // the operator
  });
});

describe('parser: syntax errors', () => {
  it('reports several errors with prose messages', () => {
    expect(syntaxErrors('var x = 1\nprint(x;\nfun f( { }\nwhile x < 3) { }\n')).toEqual([
      "1:10: expected ';' after variable declaration",
      "2:8: expected ')' after arguments",
      "3:8: expected ')' after parameters",
      "4:7: expected '(' after 'while'",
    ]);
  });

  it('reports a missing expression and a stray token', () => {
    expect(syntaxErrors('var x = ;')).toEqual(["1:9: expected an expression but found ';'"]);
    expect(syntaxErrors('print(1); }')).toEqual(["1:11: unexpected '}'"]);
    expect(syntaxErrors('print(1)')).toEqual(["1:9: expected ';' after expression"]);
  });

  it('rejects reserved words as names and field initializers', () => {
    expect(syntaxErrors('var int = 1;')).toEqual(["1:5: expected a variable name after 'var'"]);
    expect(syntaxErrors('class C { var x: int = 1; }')).toEqual(["1:22: a field cannot have an initial value: set it in 'init'"]);
    expect(syntaxErrors('class C { var x: int }')).toEqual(["1:22: expected ';' after field declaration"]);
  });

  it('reports literal errors with positions', () => {
    expect(syntaxErrors('print(2147483648);')).toEqual(['1:7: integer literal 2147483648 does not fit in 32 bits']);
    expect(syntaxErrors('print(0x100000000);')).toEqual(['1:7: integer literal 0x100000000 does not fit in 32 bits']);
    expect(syntaxErrors('print("ab\\qc");')).toEqual(["1:10: invalid escape '\\q' in string"]);
    expect(syntaxErrors('print("\\u{zz}");')).toEqual(["1:8: invalid unicode escape: write '\\u{' hex digits '}'"]);
  });
});
