import { describe, it, expect } from 'vitest';
import type { Expr, Stmt } from '../../src/lang/index.js';
import { typeName } from '../../src/lang/index.js';
import { firstExpr, ok } from './helpers.js';

describe('checker: classes', () => {
  const src = `
    class Animal { var name: string; var legs: int; fun speak(): string { return "..."; } fun legsCount(): int { return this.legs; } }
    class Dog extends Animal { var breed: string; fun speak(): string { return "woof"; } fun fetch() {} }
    class Puppy extends Dog { var age: int; fun fetch() {} fun sleep() {} }
    class Plain {}
  `;

  it('gives Object id 0 and user classes 1.. in source order', () => {
    const r = ok(src);
    expect(r.objectClass.id).toBe(0);
    expect(r.program.classes.map((c) => [c.name, c.id])).toEqual([['Animal', 1], ['Dog', 2], ['Puppy', 3], ['Plain', 4]]);
    expect(r.program.classes.map((c) => c.superclass!.name)).toEqual(['Object', 'Animal', 'Dog', 'Object']);
  });

  it('lays out allFields with inherited fields first, indices stable in subclasses', () => {
    const [animal, dog, puppy] = ok(src).program.classes;
    expect(animal!.allFields.map((f) => `${f.name}@${f.index}`)).toEqual(['name@0', 'legs@1']);
    expect(puppy!.allFields.map((f) => `${f.owner.name}.${f.name}@${f.index}`)).toEqual([
      'Animal.name@0', 'Animal.legs@1', 'Dog.breed@2', 'Puppy.age@3',
    ]);
    expect(dog!.allFields[0]).toBe(animal!.allFields[0]);
  });

  it('builds vtables: inherited slots keep their index, overrides replace, new methods append', () => {
    const [animal, dog, puppy, plain] = ok(src).program.classes;
    const vt = (c: typeof animal) => c!.vtable.map((m) => `${m.owner!.name}.${m.name}@${m.slot}`);
    expect(vt(animal)).toEqual(['Animal.speak@0', 'Animal.legsCount@1']);
    expect(vt(dog)).toEqual(['Dog.speak@0', 'Animal.legsCount@1', 'Dog.fetch@2']);
    expect(vt(puppy)).toEqual(['Dog.speak@0', 'Animal.legsCount@1', 'Puppy.fetch@2', 'Puppy.sleep@3']);
    expect(plain!.vtable).toEqual([]);
  });

  it('resolves constructors: own init, else inherited, else none', () => {
    const r = ok(`
      class A { init(x: int) {} }
      class B extends A {}
      class C extends B { init() { super.init(1); } }
      class D {}
      var b = new B(1); var c = new C(); var d = new D();
    `);
    const [a, b, c, d] = r.program.classes;
    expect(a!.ctor).toBe(a!.init);
    expect(b!.ctor).toBe(a!.init);
    expect(c!.ctor).toBe(c!.init);
    expect(d!.ctor).toBeUndefined();
    const superCall = c!.init!.body[0] as Stmt & { kind: 'expr' };
    expect(superCall.expr).toMatchObject({ kind: 'superInvoke', name: 'init', method: a!.init });
  });

  it('accepts super.init() with no constructor above, leaving method undefined', () => {
    const r = ok('class A {}\nclass B extends A { init(x: int) { super.init(); } }\nvar b = new B(1);');
    const s = r.program.classes[1]!.init!.body[0] as Stmt & { kind: 'expr' };
    expect(s.expr).toMatchObject({ kind: 'superInvoke', name: 'init', method: undefined, type: { kind: 'void' } });
  });

  it('keeps `this` out of method locals and slots init and functions at -1', () => {
    const r = ok('class A { init(a: int) {} fun m(x: int): int { var y = x; return y; } }\nfun f() {}');
    const a = r.program.classes[0]!;
    expect(a.methods[0]!.locals.map((l) => `${l.name}@${l.index}`)).toEqual(['x@0', 'y@1']);
    expect([a.init!.slot, r.program.functions[0]!.slot, a.methods[0]!.slot]).toEqual([-1, -1, 0]);
  });

  it('resolves field accesses, virtual calls and super calls', () => {
    const r = ok(`
      class A { var x: int; fun m(): int { return this.x; } }
      class B extends A { fun m(): int { return super.m() + 1; } }
      var b: A = new B();
      b.x = b.m();
    `);
    const [a, b] = r.program.classes;
    const e = firstExpr(r.program, 1) as Expr & { kind: 'assign' };
    expect(e.target).toMatchObject({ kind: 'field', field: a!.fields[0] });
    expect(e.value).toMatchObject({ kind: 'invoke', method: a!.methods[0] });
    const ret = b!.methods[0]!.body[0] as Stmt & { kind: 'return' };
    expect(ret.value).toMatchObject({ kind: 'binary', left: { kind: 'superInvoke', method: a!.methods[0] } });
  });
});

describe('checker: names and locals', () => {
  it('resolves names to params, locals and globals with dense indices', () => {
    const r = ok(`
      var g = 1;
      fun f(a: int, b: float): float {
        var s = a + g;
        { var t = 2; s = s + t; }
        for (var i = 0; i < 3; i = i + 1) { var u = i; s = s + u; }
        return s + b;
      }
      var h = f(1, 2.0);
    `);
    const f = r.program.functions[0]!;
    expect(f.locals.map((l) => `${l.name}:${typeName(l.type)}@${l.index}`)).toEqual([
      'a:int@0', 'b:float@1', 's:int@2', 't:int@3', 'i:int@4', 'u:int@5',
    ]);
    expect(f.params.map((p) => p.local)).toEqual([f.locals[0], f.locals[1]]);
    const decl = (f.body[0] as Stmt & { kind: 'var' }).decl;
    expect(decl.local).toBe(f.locals[2]);
    expect(decl.init).toMatchObject({
      kind: 'binary',
      left: { kind: 'name', name: 'a', local: f.locals[0] },
      right: { kind: 'name', name: 'g', global: 0, local: undefined },
    });
    expect(r.program.globals.map((g) => `${g.name}:${typeName(g.type)}@${g.global}`)).toEqual(['g:int@0', 'h:float@1']);
  });

  it('makes vars in top-level blocks and loops locals of main, and lets functions use later globals', () => {
    const r = ok(`
      fun f(): int { return late; }
      var top = 1;
      { var a = 2; }
      for (var i = 0; i < 2; i = i + 1) { var b = i; }
      if (true) { var c = "x"; }
      var late = 3;
    `);
    expect(r.mainLocals.map((l) => `${l.name}@${l.index}`)).toEqual(['a@0', 'i@1', 'b@2', 'c@3']);
    expect(r.program.globals.map((g) => g.name)).toEqual(['top', 'late']);
  });

  it('lets a block local shadow a global', () => {
    const r = ok('var x = "s"; { var x = 1; print(x + 1); }');
    const block = r.program.body[1] as Stmt & { kind: 'block' };
    const p = (block.body[1] as Stmt & { kind: 'expr' }).expr as Expr & { kind: 'builtin' };
    expect(p.args[0]!.type).toEqual({ kind: 'int' });
  });
});

describe('checker: types', () => {
  const typeOf = (src: string, decls = '') => typeName(firstExpr(ok(decls + 'var it = ' + src + ';').program).type);

  it('types arithmetic with int to float widening', () => {
    expect(typeOf('1 + 2')).toBe('int');
    expect(typeOf('1 + 2.0')).toBe('float');
    expect(typeOf('7 / 2')).toBe('int');
    expect(typeOf('1.5 % 1')).toBe('float');
    expect(typeOf('-1.5')).toBe('float');
    expect(typeOf('1 << 3 | ~4')).toBe('int');
    expect(typeOf('1 < 2.5')).toBe('bool');
    expect(typeOf('"n=" + 1')).toBe('string');
    expect(typeOf('1.5 + "x"')).toBe('string');
  });

  it('allows widening in assignment, arguments and return, and nothing else', () => {
    ok(`
      fun f(x: float): float { return 1; }
      var a: float = 1;
      a = 2;
      var b = f(3);
      var c = sqrt(2);
      var arr = new float[2];
      arr[0] = 1;
      print(1 == 1.0);
    `);
    expect(() => ok('var a: int = 1.5;')).toThrow('cannot assign float to int');
    expect(() => ok('var a = new int[2]; var b: float[] = a;')).toThrow('cannot assign int[] to float[]');
  });

  it('handles references: subclass to superclass, everything to Object, null, invariant arrays', () => {
    ok(`
      class A {} class B extends A {}
      var a: A = new B();
      var o: Object = a;
      o = "s"; o = new int[1]; o = null;
      var s: string = null;
      var bs: B[] = new B[2];
      var b: B = a as B;
      print(a is B);
      print(a == new B());
      print(o == "s");
      print(s == null);
      print(null == null);
    `);
    expect(() => ok('class A {} class B extends A {} var b: B = new A();')).toThrow('cannot assign A to B');
    expect(() => ok('class A {} class B extends A {} var a: A[] = new B[1];')).toThrow('cannot assign B[] to A[]');
  });

  it('rewrites .length and string methods into their own node kinds', () => {
    const r = ok('var s = "abc"; var a = new int[3]; print(s.length + a.length + s.charAt(0)); print(s.substring(0, 1));');
    const p = firstExpr(r.program, 2) as Expr & { kind: 'builtin' };
    const sum = p.args[0] as Expr & { kind: 'binary' };
    expect(sum.left).toMatchObject({ kind: 'binary', left: { kind: 'length' }, right: { kind: 'length' } });
    expect(sum.right).toMatchObject({ kind: 'stringMethod', name: 'charAt', type: { kind: 'int' } });
    const p2 = firstExpr(r.program, 3) as Expr & { kind: 'builtin' };
    expect(p2.args[0]).toMatchObject({ kind: 'stringMethod', name: 'substring', type: { kind: 'string' } });
  });

  it('types new arrays, arrays of arrays and indexing', () => {
    expect(typeOf('new int[2][]')).toBe('int[][]');
    expect(typeOf('(new int[2][])[0]')).toBe('int[]');
    expect(typeOf('new A[1]', 'class A {}\n')).toBe('A[]');
  });

  it('fills every expression type in the LANGUAGE.md example', () => {
    const r = ok(`
      class Node { var next: Node; var value: int; init(value: int, next: Node) { this.value = value; this.next = next; }
        fun sum(): int { var s = 0; var n: Node = this; while (n != null) { s = s + n.value; n = n.next; } return s; } }
      fun build(n: int): Node { var head: Node = null; for (var i = 0; i < n; i = i + 1) head = new Node(i, head); return head; }
      print(build(10).sum());
    `);
    const untyped: string[] = [];
    const visit = (x: unknown): void => {
      if (Array.isArray(x)) return x.forEach(visit);
      if (!x || typeof x !== 'object') return;
      const o = x as Record<string, unknown>;
      if ('kind' in o && 'pos' in o && 'type' in o && o['type'] === undefined) untyped.push(String(o['kind']));
      for (const [k, v] of Object.entries(o)) if (!['cls', 'owner', 'superclass', 'fun', 'method', 'field', 'decl'].includes(k)) visit(v);
    };
    visit(r.program.body);
    visit(r.program.functions.map((f) => f.body));
    visit(r.program.classes.map((c) => [c.methods.map((m) => m.body), c.init?.body]));
    expect(untyped).toEqual([]);
  });

  it('accepts functions that return on every path', () => {
    ok(`
      fun a(x: int): int { if (x > 0) return 1; else return 2; }
      fun b(): int { while (true) { } }
      fun c(): int { for (;;) { while (true) { break; } } }
      fun d(x: bool): int { { return 1; } }
      fun e(x: bool): int { if (x) { return 1; } return 0; }
    `);
  });
});
