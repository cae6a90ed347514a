/**
 * The type checker: resolves classes (ids, superclasses, field layout, vtables,
 * constructors), functions, globals and locals, checks every statement, and
 * fills every `type` and resolution field of the AST so that the compiler never
 * looks a name up again. All errors are collected, each with its position.
 *
 * Order of work: class names, superclasses, signatures (all types written in
 * declarations), class layouts (supers first), top-level code in source order
 * (which gives globals their types), then function, method and init bodies.
 */
import { typeName } from './ast.js';
import type { ClassDecl, Expr, FunDecl, Local, Program, Stmt, Type, TypeRef, VarDecl } from './ast.js';
import { builtinNames, startPos } from './cst-to-ast.js';
import { DiagnosticBag, msg } from './diagnostics.js';
import type { Diagnostic } from './diagnostics.js';
import { BOOL, ERR, FLOAT, Frame, INT, STRING, VOID, isErr, sameType } from './check-env.js';
import type { Env, FnCtx, Mutable } from './check-env.js';
import { checkCond, checkExpr, checkValue, expectAssignable } from './checker-expr.js';

export interface CheckResult {
  readonly program: Program;
  /** Locals of the implicit main function: `var`s in blocks, loops and `for` headers of top-level code. */
  readonly mainLocals: Local[];
  /** The built-in root class, id 0, superclass of every class without `extends`. */
  readonly objectClass: ClassDecl;
  readonly errors: Diagnostic[];
}

/** Makes the built-in root class. A fresh one per program, since checking fills class tables. */
function makeObjectClass(): ClassDecl {
  return {
    name: 'Object', pos: { line: 0, col: 0 }, superName: undefined, superclass: undefined,
    fields: [], methods: [], init: undefined, allFields: [], vtable: [], ctor: undefined, id: 0,
  };
}

/** Checks `program` in place (filling its types and resolutions) and returns what the compiler needs. */
export function check(program: Program, bag: DiagnosticBag = new DiagnosticBag(program.file)): CheckResult {
  const checker = new Checker(program, bag);
  checker.run();
  return { program, mainLocals: checker.mainFrame.locals, objectClass: checker.objectClass, errors: bag.items };
}

class Checker implements Env {
  readonly objectClass = makeObjectClass();
  readonly classes = new Map<string, ClassDecl>();
  readonly functions = new Map<string, FunDecl>();
  readonly globals = new Map<string, VarDecl>();
  readonly allGlobalNames: Set<string>;
  readonly mainFrame = new Frame();
  private readonly laidOut = new Set<ClassDecl>([this.objectClass]);

  constructor(readonly program: Program, readonly bag: DiagnosticBag) {
    this.allGlobalNames = new Set(program.globals.map((g) => g.name));
  }

  run(): void {
    this.declareClasses();
    this.resolveSuperclasses();
    this.declareFunctions();
    this.resolveSignatures();
    for (const c of this.program.classes) this.layout(c);
    this.checkTopLevel();
    for (const f of this.program.functions) this.checkBody(f, undefined);
    for (const c of this.program.classes) {
      if (c.init) this.checkBody(c.init, c);
      for (const m of c.methods) this.checkBody(m, c);
    }
  }

  // ------------------------------------------------------------ declarations

  private declareClasses(): void {
    this.program.classes.forEach((c, i) => {
      c.id = i + 1;
      if (this.classes.has(c.name)) this.bag.error(c.pos, msg.duplicateClass(c.name));
      else this.classes.set(c.name, c);
    });
  }

  private resolveSuperclasses(): void {
    for (const c of this.program.classes) {
      if (c.superName === undefined || c.superName === 'Object') {
        c.superclass = this.objectClass;
        continue;
      }
      const sup = this.classes.get(c.superName);
      if (!sup) this.bag.error(c.pos, msg.unknownSuperclass(c.superName));
      c.superclass = sup ?? this.objectClass;
    }
    // A cycle is reported once, at its first class in source order, and broken
    // there (that class then extends Object) so that later passes terminate.
    // Each class is walked once (linear in a long chain of classes): a walk that meets
    // a class of its own has found a cycle, and no later walk can meet it again.
    const classes = this.program.classes;
    const order = new Map<ClassDecl, number>(classes.map((c, i) => [c, i]));
    const walkOf = new Map<ClassDecl, number>();
    classes.forEach((c, walk) => {
      const path: ClassDecl[] = [];
      let k: ClassDecl | undefined = c;
      for (; k && !walkOf.has(k); k = k.superclass) {
        walkOf.set(k, walk);
        path.push(k);
      }
      if (!k || walkOf.get(k) !== walk) return;
      const cycle = path.slice(path.indexOf(k));
      const first = cycle.reduce((a, b) => (order.get(a)! <= order.get(b)! ? a : b));
      this.bag.error(first.pos, msg.inheritanceCycle(first.name));
      first.superclass = this.objectClass;
    });
  }

  private declareFunctions(): void {
    for (const f of this.program.functions) {
      if (builtinNames.has(f.name)) this.bag.error(f.pos, msg.builtinRedeclared(f.name));
      else if (this.functions.has(f.name)) this.bag.error(f.pos, msg.duplicateFunction(f.name));
      else this.functions.set(f.name, f);
    }
  }

  resolveType(ref: TypeRef, allowVoid = false): Type {
    if (ref.kind === 'array') {
      const elem = this.resolveType(ref.elem);
      return isErr(elem) ? ERR : { kind: 'array', elem };
    }
    switch (ref.name) {
      case 'int': return INT;
      case 'float': return FLOAT;
      case 'bool': return BOOL;
      case 'string': return STRING;
      case 'Object': return { kind: 'class', cls: this.objectClass };
      case 'void':
        if (allowVoid) return VOID;
        this.bag.error(ref.pos, msg.voidNotAllowed());
        return ERR;
    }
    const cls = this.classes.get(ref.name);
    if (cls) return { kind: 'class', cls };
    this.bag.error(ref.pos, msg.unknownType(ref.name));
    return ERR;
  }

  private resolveFunSignature(f: FunDecl, owner: ClassDecl | undefined): void {
    f.owner = owner;
    for (const p of f.params) p.type = this.resolveType(p.typeRef);
    f.returnType = f.returnTypeRef ? this.resolveType(f.returnTypeRef, true) : VOID;
  }

  private resolveSignatures(): void {
    for (const f of this.program.functions) this.resolveFunSignature(f, undefined);
    for (const c of this.program.classes) {
      for (const field of c.fields) field.type = this.resolveType(field.typeRef);
      if (c.init) this.resolveFunSignature(c.init, c);
      for (const m of c.methods) this.resolveFunSignature(m, c);
    }
  }

  /** Fills allFields, vtable and ctor, superclass first. */
  private layout(c: ClassDecl): void {
    if (this.laidOut.has(c)) return;
    this.laidOut.add(c);
    const sup = c.superclass!;
    this.layout(sup);

    c.allFields = [...sup.allFields];
    const own = new Set<string>();
    for (const f of c.fields) {
      const inherited = sup.allFields.find((g) => g.name === f.name);
      if (inherited) this.bag.error(f.pos, msg.fieldInSuperclass(f.name, inherited.owner.name));
      else if (own.has(f.name)) this.bag.error(f.pos, msg.duplicateField(f.name, c.name));
      own.add(f.name);
      f.owner = c;
      f.index = c.allFields.length;
      c.allFields.push(f);
    }

    // Inherited slots keep their index; an override replaces its slot; new methods append.
    c.vtable = [...sup.vtable];
    const ownMethods = new Set<string>();
    for (const m of c.methods) {
      if (ownMethods.has(m.name)) {
        this.bag.error(m.pos, msg.duplicateMethod(m.name, c.name));
        m.slot = -1;
        continue;
      }
      ownMethods.add(m.name);
      const slot = c.vtable.findIndex((v) => v.name === m.name);
      if (slot >= 0) {
        const base = c.vtable[slot]!;
        if (!sameSignature(m, base)) this.bag.error(m.pos, msg.badOverride(m.name, base.owner!.name));
        m.slot = slot;
        c.vtable[slot] = m;
      } else {
        m.slot = c.vtable.length;
        c.vtable.push(m);
      }
    }
    c.ctor = c.init ?? sup.ctor;
  }

  // ------------------------------------------------------------ bodies

  private checkTopLevel(): void {
    const cx: FnCtx = { fun: undefined, cls: undefined, frame: this.mainFrame, loopDepth: 0 };
    const body = this.program.body;
    body.forEach((s, i) => {
      if (s.kind === 'var') {
        this.checkVarDecl(cx, s.decl, true);
      } else {
        body[i] = this.checkStmt(cx, s);
      }
    });
  }

  private checkBody(f: FunDecl, cls: ClassDecl | undefined): void {
    const frame = new Frame();
    const cx: FnCtx = { fun: f, cls, frame, loopDepth: 0 };
    for (const p of f.params) p.local = frame.declare(this.bag, p.name, p.type, p.pos, true);
    frame.push();
    f.body.forEach((s, i) => (f.body[i] = this.checkStmt(cx, s)));
    frame.pop();
    f.locals = frame.locals;
    const rt = f.returnType;
    if (rt.kind !== 'void' && !isErr(rt) && !f.body.some(alwaysReturns)) {
      this.bag.error(f.pos, msg.missingReturn(f.name, typeName(rt)));
    }
  }

  private checkVarDecl(cx: FnCtx, decl: VarDecl, isGlobal: boolean): void {
    const init = decl.init && checkValue(this, cx, decl.init);
    (decl as Mutable<VarDecl>).init = init;
    let type: Type;
    if (decl.typeRef) {
      type = this.resolveType(decl.typeRef);
      if (init) expectAssignable(this, init, type, msg.cannotAssign);
    } else if (!init) {
      this.bag.error(decl.pos, msg.noType(decl.name));
      type = ERR;
    } else if (init.type.kind === 'null') {
      this.bag.error(decl.pos, msg.nullVar(decl.name));
      type = ERR;
    } else {
      type = init.type;
    }
    decl.type = type;
    if (isGlobal) {
      decl.global = this.program.globals.indexOf(decl);
      if (this.globals.has(decl.name)) this.bag.error(decl.pos, msg.duplicateGlobal(decl.name));
      else this.globals.set(decl.name, decl);
    } else {
      decl.local = cx.frame.declare(this.bag, decl.name, type, decl.pos);
    }
  }

  /** Checks a statement in its own block scope (bodies of if/while/for, so `if (c) var x = 1;` stays local). */
  private scoped(cx: FnCtx, s: Stmt): Stmt {
    cx.frame.push();
    const r = this.checkStmt(cx, s);
    cx.frame.pop();
    return r;
  }

  private loopBody(cx: FnCtx, s: Stmt): Stmt {
    cx.loopDepth++;
    const r = this.scoped(cx, s);
    cx.loopDepth--;
    return r;
  }

  private checkStmt(cx: FnCtx, s: Stmt): Stmt {
    switch (s.kind) {
      case 'var':
        this.checkVarDecl(cx, s.decl, false);
        return s;
      case 'expr':
        return { ...s, expr: checkExpr(this, cx, s.expr) };
      case 'block': {
        cx.frame.push();
        const body = s.body.map((b) => this.checkStmt(cx, b));
        cx.frame.pop();
        return { ...s, body };
      }
      case 'if': {
        const cond = checkCond(this, cx, s.cond);
        return { ...s, cond, then: this.scoped(cx, s.then), else: s.else && this.scoped(cx, s.else) };
      }
      case 'while': {
        const cond = checkCond(this, cx, s.cond);
        return { ...s, cond, body: this.loopBody(cx, s.body) };
      }
      case 'for': {
        cx.frame.push();
        const init = s.init && this.checkStmt(cx, s.init);
        const cond = s.cond && checkCond(this, cx, s.cond);
        const update = s.update && checkExpr(this, cx, s.update);
        const body = this.loopBody(cx, s.body);
        cx.frame.pop();
        return { ...s, init, cond, update, body };
      }
      case 'break':
      case 'continue':
        if (cx.loopDepth === 0) this.bag.error(s.pos, s.kind === 'break' ? msg.breakOutsideLoop() : msg.continueOutsideLoop());
        return s;
      case 'return':
        return this.checkReturn(cx, s);
    }
  }

  private checkReturn(cx: FnCtx, s: Stmt & { kind: 'return' }): Stmt {
    const value = s.value && checkValue(this, cx, s.value);
    const f = cx.fun;
    if (!f) {
      this.bag.error(s.pos, msg.returnOutsideFunction());
    } else if (value && f.name === 'init' && f.owner && f === f.owner.init) {
      this.bag.error(startPos(value), msg.returnValueFromInit());
    } else if (value && f.returnType.kind === 'void' && !isErr(f.returnType)) {
      this.bag.error(startPos(value), msg.returnValueFromVoid(f.name));
    } else if (!value && f.returnType.kind !== 'void') {
      this.bag.error(s.pos, msg.missingReturnValue(f.name, typeName(f.returnType)));
    } else if (value) {
      expectAssignable(this, value, f.returnType, msg.cannotReturn);
    }
    return { ...s, value };
  }
}

function sameSignature(a: FunDecl, b: FunDecl): boolean {
  return (
    a.params.length === b.params.length &&
    a.params.every((p, i) => sameType(p.type, b.params[i]!.type)) &&
    sameType(a.returnType, b.returnType)
  );
}

/** Structural "returns on every path": see docs/language-notes.md. */
function alwaysReturns(s: Stmt): boolean {
  switch (s.kind) {
    case 'return':
      return true;
    case 'block':
      return s.body.some(alwaysReturns);
    case 'if':
      return s.else !== undefined && alwaysReturns(s.then) && alwaysReturns(s.else);
    case 'while':
      return isTrue(s.cond) && !breaksOut(s.body);
    case 'for':
      return (s.cond === undefined || isTrue(s.cond)) && !breaksOut(s.body);
    default:
      return false;
  }
}

function isTrue(e: Expr): boolean {
  return e.kind === 'bool' && e.value;
}

/** Whether a `break` in `s` leaves the loop whose body `s` is (breaks of nested loops do not). */
function breaksOut(s: Stmt): boolean {
  switch (s.kind) {
    case 'break':
      return true;
    case 'block':
      return s.body.some(breaksOut);
    case 'if':
      return breaksOut(s.then) || (s.else !== undefined && breaksOut(s.else));
    default:
      return false;
  }
}
