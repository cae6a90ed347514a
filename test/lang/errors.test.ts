import { describe, it, expect } from 'vitest';
import { formatDiagnostics, parseAndCheck } from '../../src/lang/index.js';
import { errors } from './helpers.js';

/** One program per compile error kind; each must produce exactly the one error given. */
const cases: [string, string, string][] = [
  // declarations
  ['duplicate class', 'class A {}\nclass A {}', "2:7: class 'A' is already declared"],
  ['unknown superclass', 'class A extends B {}', "1:7: unknown superclass 'B'"],
  ['inheritance cycle', 'class A extends B {}\nclass B extends A {}', "1:7: class 'A' inherits from itself"],
  ['duplicate field', 'class A { var x: int; var x: int; }', "1:27: field 'x' is already declared in class 'A'"],
  ['field repeats a superclass field', 'class A { var x: int; }\nclass B extends A { var x: float; }', "2:25: field 'x' is already declared in superclass 'A'"],
  ['duplicate method', 'class A { fun m() {} fun m() {} }', "1:26: method 'm' is already declared in class 'A'"],
  ['duplicate init', 'class A { init() {} init(x: int) {} }', "1:21: class 'A' has more than one 'init'"],
  ['override with other types', 'class A { fun m(x: int) {} }\nclass B extends A { fun m(x: float) {} }', "2:25: method 'm' overrides 'A.m' with different parameter or return types"],
  ['override with other return type', 'class A { fun m(): int { return 1; } }\nclass B extends A { fun m() {} }', "2:25: method 'm' overrides 'A.m' with different parameter or return types"],
  ['duplicate function', 'fun f() {}\nfun f() {}', "2:5: function 'f' is already declared"],
  ['built-in redeclared', 'fun print() {}', "1:5: 'print' is a built-in function and cannot be redeclared"],
  ['duplicate global', 'var x = 1;\nvar x = 2;', "2:5: global variable 'x' is already declared"],
  ['duplicate local', 'fun f() { var x = 1; { var x = 2; } }', "1:28: variable 'x' is already declared in this function"],
  ['local repeats a parameter', 'fun f(x: int) { var x = 1; }', "1:21: variable 'x' is already declared in this function"],
  ['duplicate parameter', 'fun f(x: int, x: int) {}', "1:15: parameter 'x' is already declared"],
  ['unknown type', 'var x: Foo;', "1:8: unknown type 'Foo'"],
  ['void variable', 'var x: void;', "1:8: 'void' can only be a return type"],
  ['void array', 'var x = new void[2];', "1:13: 'void' can only be a return type"],
  ['no type and no value', 'var x;', "1:5: 'x' needs a type or an initial value"],
  ['var x = null', 'var x = null;', "1:5: cannot infer a type for 'x' from null: write 'var x: T = null'"],
  ['missing return', 'fun f(x: bool): int { if (x) return 1; }', "1:5: 'f' must return a value of type int on every path"],
  ['missing return: loop with break', 'fun f(): int { while (true) { break; } }', "1:5: 'f' must return a value of type int on every path"],
  ['field initializer', 'class A { var x: int = 3; }', "1:22: a field cannot have an initial value: set it in 'init'"],
  ['int literal too large', 'print(2147483648);', '1:7: integer literal 2147483648 does not fit in 32 bits'],

  // names
  ['unknown variable', 'print(y);', "1:7: unknown variable 'y'"],
  ['global used before its declaration', 'print(y);\nvar y = 1;', "1:7: global variable 'y' is used before its declaration"],
  ['unknown function', 'f();', "1:1: unknown function 'f'"],
  ['unknown class', 'var a = new Foo();', "1:9: unknown class 'Foo'"],
  ['new of a primitive', 'var a = new int(1);', "1:9: cannot use 'new' with int: only classes are constructed with 'new C(...)'"],
  ['block local out of scope', '{ var x = 1; }\nprint(x);', "2:7: unknown variable 'x'"],

  // statements
  ['condition not bool', 'while (1) {}', '1:8: condition must be bool, not int'],
  ['break outside a loop', 'break;', "1:1: 'break' outside a loop"],
  ['continue outside a loop', 'fun f() { continue; }', "1:11: 'continue' outside a loop"],
  ['return at top level', 'return;', "1:1: 'return' outside a function or method"],
  ['return value from void', 'fun f() { return 1; }', "1:18: 'f' returns void and cannot return a value"],
  ['return value from init', 'class A { init() { return 1; } }', "1:27: 'init' cannot return a value"],
  ['return without value', 'fun f(): int { return; }', "1:16: 'f' must return a value of type int"],
  ['return of the wrong type', 'fun f(): int { return "s"; }', '1:23: cannot return string from a function returning int'],

  // expressions
  ['void value used', 'fun f() {}\nvar x = f();', '2:9: a void call has no value'],
  ['void in arithmetic', 'fun f() {}\nprint(1 + f());', '2:11: a void call has no value'],
  ['print of void', 'print(gc());', "1:7: 'print' needs a value, not void"],
  ['cannot assign', 'var x: int = "s";', '1:14: cannot assign string to int'],
  ['float to int', 'var x = 1;\nx = 1.5;', '2:5: cannot assign float to int'],
  ['bad argument', 'fun f(a: int, b: string) {}\nf(1, 2);', "2:6: argument 2 of 'f' must be string, not int"],
  ['arity', 'fun f(a: int) {}\nf();', "2:1: 'f' expects 1 argument but got 0"],
  ['constructor arity', 'class A { init(x: int) {} }\nvar a = new A();', "2:9: 'A' expects 1 argument but got 0"],
  ['built-in argument', 'var x = toInt(1 < 2);', "1:15: argument 1 of 'toInt' must be float, not bool"],
  ['invalid assignment target', 'var x = 1;\nx + 1 = 2;', '2:1: invalid assignment target'],
  ['assign to length', 'var a = new int[1];\na.length = 2;', "2:3: cannot assign to 'length'"],
  ['unary operand', 'print(!1);', "1:7: operator '!' needs bool, not int"],
  ['binary operands', 'print(1 + true);', "1:9: operator '+' needs numbers or a string, not int and bool"],
  ['bitwise on floats', 'print(1.5 & 1);', "1:11: operator '&' needs int operands, not float and int"],
  ['logical operands', 'print(1 && true);', "1:9: operator '&&' needs bool operands, not int and bool"],
  ['string comparison', 'print("a" < "b");', "1:11: operator '<' needs numbers, not string and string"],
  ['cannot compare', 'print(1 == "1");', '1:9: cannot compare int with string'],
  ['compare unrelated classes', 'class A {} class B {}\nprint(new A() == new B());', '2:15: cannot compare A with B'],
  ['this outside a method', 'fun f() { print(this); }', "1:17: 'this' can only be used inside a method or 'init'"],
  ['super outside a method', 'fun f() { super.m(); }', "1:11: 'super' can only be used inside a method or 'init'"],
  ['super.init outside init', 'class A {}\nclass B extends A { fun m() { super.init(); } }', "2:31: 'super.init' can only be called inside 'init'"],
  ['super without that method', 'class A {}\nclass B extends A { fun m() { super.m(); } }', "2:31: superclass 'A' has no method 'm'"],
  ['no such field', 'class A {}\nprint(new A().x);', "2:15: class 'A' has no field 'x'"],
  ['field of a non-object', 'var x = 1;\nprint(x.y);', "2:9: int has no field 'y'"],
  ['no such method', 'class A {}\nnew A().m();', "2:9: class 'A' has no method 'm'"],
  ['method of a string', 'print("s".foo());', "1:11: string has no method 'foo'"],
  ['index a non-array', 'var x = 1;\nprint(x[0]);', '2:8: cannot index int: only arrays can be indexed'],
  ['index not int', 'var a = new int[2];\nprint(a[1.5]);', '2:9: array index must be int, not float'],
  ['array length not int', 'var a = new int["2"];', '1:17: array length must be int, not string'],
  ['cast target', 'var o: Object = null;\nprint(o as int);', "2:12: 'as' needs a class, array or string type, not int"],
  ['is on a non-reference', 'class A {}\nprint(1 is A);', "2:7: 'is' needs a reference operand, not int"],
  ['condition of for', 'for (; 1; ) {}', '1:8: condition must be bool, not int'],
];

describe('compile errors: one per kind, with message and position', () => {
  for (const [name, source, expected] of cases) {
    it(name, () => {
      expect(errors(source)).toEqual([expected]);
    });
  }
});

describe('compile errors: reporting', () => {
  it('collects every error, sorted by position', () => {
    expect(errors('fun f(): int { }\nprint(x);\nvar s: string = 1;\nwhile (2) { print(y); }')).toEqual([
      "1:5: 'f' must return a value of type int on every path",
      "2:7: unknown variable 'x'",
      '3:17: cannot assign int to string',
      '4:8: condition must be bool, not int',
      "4:19: unknown variable 'y'",
    ]);
  });

  it('does not cascade from an error', () => {
    expect(errors('var a = nope;\nprint(a + 1);\nprint(a.b.c());')).toEqual(["1:9: unknown variable 'nope'"]);
  });

  it('formats file:line:col, the source line and a caret', () => {
    const source = 'var x = 1;\n\tprint(x + true);\n';
    const r = parseAndCheck('dir/prog.mini', source);
    if (!('errors' in r)) throw new Error('expected errors');
    expect(formatDiagnostics(r.errors, source)).toBe(
      "dir/prog.mini:2:10: error: operator '+' needs numbers or a string, not int and bool\n" +
        '\tprint(x + true);\n' +
        '\t        ^',
    );
  });
});
