/**
 * The typed abstract syntax tree of a .mini program.
 *
 * The parser's CST visitor builds these nodes with `type` fields left undefined;
 * the checker fills in every `type` and every resolution field (`decl`, `field`,
 * `method`, `local`), so that the compiler never has to look a name up again.
 */

export interface Pos {
  readonly line: number; // 1-based
  readonly col: number; // 1-based
}

// ---------------------------------------------------------------- types

export type Type =
  | { readonly kind: 'int' }
  | { readonly kind: 'float' }
  | { readonly kind: 'bool' }
  | { readonly kind: 'string' }
  | { readonly kind: 'void' }
  | { readonly kind: 'null' } // the type of the literal `null`
  | { readonly kind: 'class'; readonly cls: ClassDecl } // `Object` is the built-in root ClassDecl
  | { readonly kind: 'array'; readonly elem: Type };

/** A type as written in the source, before resolution. */
export type TypeRef =
  | { readonly kind: 'named'; readonly name: string; readonly pos: Pos }
  | { readonly kind: 'array'; readonly elem: TypeRef; readonly pos: Pos };

/** True for types whose values are heap references (or null). */
export function isRefType(t: Type): boolean {
  return t.kind === 'string' || t.kind === 'class' || t.kind === 'array' || t.kind === 'null';
}

export function typeName(t: Type): string {
  switch (t.kind) {
    case 'class':
      return t.cls.name;
    case 'array':
      return typeName(t.elem) + '[]';
    default:
      return t.kind;
  }
}

// ---------------------------------------------------------------- declarations

export interface Program {
  readonly file: string;
  readonly classes: ClassDecl[]; // user classes in source order (not Object)
  readonly functions: FunDecl[];
  readonly globals: VarDecl[]; // top-level `var`s, in source order
  readonly body: Stmt[]; // top-level statements in order (global VarStmts included)
}

export interface ClassDecl {
  readonly name: string;
  readonly pos: Pos;
  readonly superName: string | undefined; // undefined means Object (or this is Object)
  superclass: ClassDecl | undefined; // resolved by the checker; undefined only for Object
  readonly fields: FieldDecl[]; // declared in this class, in order
  readonly methods: FunDecl[]; // declared in this class (init excluded)
  readonly init: FunDecl | undefined; // declared constructor, if any
  /** Resolved by the checker: all fields including inherited, superclass's first. */
  allFields: FieldDecl[];
  /** Resolved by the checker: vtable, slot i = method; inherited slots keep their index. */
  vtable: FunDecl[];
  /** Resolved by the checker: the constructor `new C(...)` runs (own or inherited), if any. */
  ctor: FunDecl | undefined;
  /** Dense id, 0 = Object, then classes in source order. */
  id: number;
}

export interface FieldDecl {
  readonly name: string;
  readonly pos: Pos;
  readonly typeRef: TypeRef;
  type: Type;
  owner: ClassDecl;
  /** Index in owner's allFields (stable in subclasses, since supers come first). */
  index: number;
}

export interface Param {
  readonly name: string;
  readonly pos: Pos;
  readonly typeRef: TypeRef;
  type: Type;
  local: Local;
}

export interface FunDecl {
  readonly name: string; // 'init' for constructors
  readonly pos: Pos;
  readonly params: Param[];
  readonly returnTypeRef: TypeRef | undefined; // undefined means void
  returnType: Type;
  readonly body: Stmt[];
  /** The class for methods and constructors, undefined for top-level functions. */
  owner: ClassDecl | undefined;
  /** Vtable slot for methods (not for init or functions). */
  slot: number;
  /** Every local of the body (params first, then block locals in order); filled by the checker. */
  locals: Local[];
}

/** A local variable or parameter, with a dense index within its function. */
export interface Local {
  readonly name: string;
  readonly type: Type;
  readonly index: number;
}

export interface VarDecl {
  readonly name: string;
  readonly pos: Pos;
  readonly typeRef: TypeRef | undefined;
  readonly init: Expr | undefined;
  type: Type;
  /** Set for globals (index among globals), else undefined. */
  global: number | undefined;
  /** Set for locals, else undefined. */
  local: Local | undefined;
}

// ---------------------------------------------------------------- statements

export type Stmt =
  | { readonly kind: 'var'; readonly pos: Pos; readonly decl: VarDecl }
  | { readonly kind: 'expr'; readonly pos: Pos; readonly expr: Expr }
  | { readonly kind: 'block'; readonly pos: Pos; readonly body: Stmt[] }
  | { readonly kind: 'if'; readonly pos: Pos; readonly cond: Expr; readonly then: Stmt; readonly else: Stmt | undefined }
  | { readonly kind: 'while'; readonly pos: Pos; readonly cond: Expr; readonly body: Stmt }
  | {
      readonly kind: 'for';
      readonly pos: Pos;
      readonly init: Stmt | undefined; // a 'var' or 'expr' statement
      readonly cond: Expr | undefined;
      readonly update: Expr | undefined;
      readonly body: Stmt;
    }
  | { readonly kind: 'break'; readonly pos: Pos }
  | { readonly kind: 'continue'; readonly pos: Pos }
  | { readonly kind: 'return'; readonly pos: Pos; readonly value: Expr | undefined };

// ---------------------------------------------------------------- expressions

export type BinaryOp =
  | '||' | '&&' | '==' | '!=' | '<' | '<=' | '>' | '>='
  | '|' | '^' | '&' | '<<' | '>>' | '>>>' | '+' | '-' | '*' | '/' | '%';

export type Builtin =
  | 'print' | 'toFloat' | 'toInt' | 'sqrt' | 'clock' | 'gc' | 'minorGc' | 'chr' | 'args' | 'parseInt';

interface ExprBase {
  readonly pos: Pos;
  /** Filled by the checker. */
  type: Type;
}

export type Expr =
  | (ExprBase & { readonly kind: 'int'; readonly value: number })
  | (ExprBase & { readonly kind: 'float'; readonly value: number })
  | (ExprBase & { readonly kind: 'bool'; readonly value: boolean })
  | (ExprBase & { readonly kind: 'string'; readonly value: string })
  | (ExprBase & { readonly kind: 'null' })
  | (ExprBase & { readonly kind: 'this' })
  /** A name: resolved to a local or a global by the checker. */
  | (ExprBase & { readonly kind: 'name'; readonly name: string; local: Local | undefined; global: number | undefined })
  | (ExprBase & { readonly kind: 'assign'; readonly target: Expr; readonly value: Expr }) // target: name | field | index
  | (ExprBase & { readonly kind: 'binary'; readonly op: BinaryOp; readonly left: Expr; readonly right: Expr })
  | (ExprBase & { readonly kind: 'unary'; readonly op: '-' | '!' | '~'; readonly operand: Expr })
  | (ExprBase & { readonly kind: 'field'; readonly object: Expr; readonly name: string; field: FieldDecl | undefined })
  /** `a.length` on arrays and `s.length` on strings. */
  | (ExprBase & { readonly kind: 'length'; readonly object: Expr })
  | (ExprBase & { readonly kind: 'index'; readonly array: Expr; readonly index: Expr })
  /** Top-level function call `f(args)`. */
  | (ExprBase & { readonly kind: 'call'; readonly name: string; readonly args: Expr[]; fun: FunDecl | undefined })
  /** Built-in call: print, toFloat, toInt, sqrt, clock, gc, minorGc, chr. */
  | (ExprBase & { readonly kind: 'builtin'; readonly name: Builtin; readonly args: Expr[] })
  /** `o.m(args)`: virtual call through slot `method.slot`. */
  | (ExprBase & { readonly kind: 'invoke'; readonly object: Expr; readonly name: string; readonly args: Expr[]; method: FunDecl | undefined })
  /** `s.charAt(i)`, `s.substring(a, b)`. */
  | (ExprBase & { readonly kind: 'stringMethod'; readonly object: Expr; readonly name: 'charAt' | 'substring'; readonly args: Expr[] })
  /** `super.m(args)` (non-virtual), including `super.init(args)` inside init. */
  | (ExprBase & { readonly kind: 'superInvoke'; readonly name: string; readonly args: Expr[]; method: FunDecl | undefined })
  | (ExprBase & { readonly kind: 'new'; readonly className: string; readonly args: Expr[]; cls: ClassDecl | undefined })
  /** `new T[n]`; for `new int[n][]`, elemRef is `int[]`. */
  | (ExprBase & { readonly kind: 'newArray'; readonly elemRef: TypeRef; readonly length: Expr })
  | (ExprBase & { readonly kind: 'is'; readonly operand: Expr; readonly targetRef: TypeRef; target: Type })
  | (ExprBase & { readonly kind: 'as'; readonly operand: Expr; readonly targetRef: TypeRef; target: Type });

// Int-to-float widening is implicit in the tree: the checker only checks that it is
// allowed; the compiler emits the conversion wherever an int-typed expression meets a
// float (an operand of float arithmetic or comparison, an assignment, an argument, a
// return value, an array element).
