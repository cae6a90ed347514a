/**
 * The compiler: checked AST -> bytecode.
 *
 * Static types decide everything here: which stack a value lives on (references on
 * the reference stack, everything else on the value stack), which slot a local gets,
 * where an int widens to float, which vtable slot a call goes through (resolved at
 * compile time, like Java's invokevirtual). The output is layout-independent; see
 * program.ts.
 */

import type { FieldKind } from '../heap/api.js';
import {
  isRefType, typeName,
  type ClassDecl, type Expr, type FunDecl, type Local, type Program, type Stmt, type Type, type VarDecl,
} from '../lang/ast.js';
import { Op } from './opcodes.js';
import type { ArrayTypeInfo, BytecodeProgram, ClassInfo, FieldRef, FunctionCode, ReturnKind, TypeTest } from './program.js';

function fieldKindOf(t: Type): FieldKind {
  if (isRefType(t)) return 'ref';
  if (t.kind === 'float') return 'float';
  if (t.kind === 'bool') return 'bool';
  return 'int';
}

function returnKindOf(t: Type): ReturnKind {
  return t.kind === 'void' ? 'void' : isRefType(t) ? 'ref' : 'val';
}

/** Program-wide tables shared by every function being compiled. */
class Tables {
  readonly functions: FunctionCode[] = [];
  readonly funIndex = new Map<FunDecl, number>();
  readonly fields: FieldRef[] = [];
  readonly fieldIndex = new Map<string, number>();
  readonly arrayTypes: ArrayTypeInfo[] = [];
  readonly arrayIndex = new Map<string, number>();
  readonly typeTests: TypeTest[] = [];
  readonly typeTestIndex = new Map<string, number>();
  readonly floatConstants: number[] = [];
  readonly stringConstants: string[] = [];
  readonly stringIndex = new Map<string, number>();
  /** Global index (VarDecl.global) -> slot in the value or reference globals. */
  readonly globalSlot: { ref: boolean; slot: number }[] = [];
  readonly globalValNames: string[] = [];
  readonly globalRefNames: string[] = [];

  field(cls: ClassDecl, index: number): number {
    const key = `${cls.id}.${index}`;
    let i = this.fieldIndex.get(key);
    if (i === undefined) {
      const f = cls.allFields[index]!;
      i = this.fields.length;
      this.fields.push({ classId: cls.id, index, name: `${cls.name}.${f.name}`, kind: fieldKindOf(f.type) });
      this.fieldIndex.set(key, i);
    }
    return i;
  }

  arrayType(t: Type): number {
    if (t.kind !== 'array') throw new Error(`compiler: ${typeName(t)} is not an array type`);
    const name = typeName(t);
    let i = this.arrayIndex.get(name);
    if (i === undefined) {
      i = this.arrayTypes.length;
      this.arrayTypes.push({ name, elem: fieldKindOf(t.elem) });
      this.arrayIndex.set(name, i);
    }
    return i;
  }

  typeTest(t: Type): number {
    const name = typeName(t);
    let i = this.typeTestIndex.get(name);
    if (i === undefined) {
      let test: TypeTest;
      if (t.kind === 'string') test = { kind: 'string' };
      else if (t.kind === 'array') test = { kind: 'array', arrayType: this.arrayType(t) };
      else if (t.kind === 'class') test = t.cls.id === 0 ? { kind: 'object' } : { kind: 'class', classId: t.cls.id };
      else throw new Error(`compiler: cannot test against ${name}`);
      i = this.typeTests.length;
      this.typeTests.push(test);
      this.typeTestIndex.set(name, i);
    }
    return i;
  }

  floatConstant(v: number): number {
    const i = this.floatConstants.indexOf(v);
    if (i >= 0 && !Object.is(v, -0)) return i;
    this.floatConstants.push(v);
    return this.floatConstants.length - 1;
  }

  stringConstant(s: string): number {
    let i = this.stringIndex.get(s);
    if (i === undefined) {
      i = this.stringConstants.length;
      this.stringConstants.push(s);
      this.stringIndex.set(s, i);
    }
    return i;
  }
}

interface Loop {
  breaks: number[]; // operand positions to patch to the loop's end
  continues: number[]; // operand positions to patch to the continue target
}

/** Compiles one function body (or the top-level statements as `main`). */
class FunctionCompiler {
  private readonly code: number[] = [];
  private readonly lines: number[] = [];
  private line = 0;
  private readonly slots = new Map<number, number>(); // Local.index -> slot (val or ref by type)
  private nVal = 0;
  private nRef = 0;
  private readonly loops: Loop[] = [];

  constructor(
    private readonly t: Tables,
    private readonly out: FunctionCode,
    locals: readonly Local[],
    hasThis: boolean,
    private readonly returnType: Type,
  ) {
    if (hasThis) this.nRef = 1; // `this` is reference slot 0
    for (const l of locals) this.slots.set(l.index, isRefType(l.type) ? this.nRef++ : this.nVal++);
    this.line = out.line;
  }

  finish(): void {
    // Falling off the end returns; the checker guarantees non-void bodies never get here.
    this.emit(Op.RET);
    this.out.code = Int32Array.from(this.code);
    this.out.lines = Int32Array.from(this.lines);
    this.out.nValLocals = this.nVal;
    this.out.nRefLocals = this.nRef;
  }

  private emit(op: number, ...operands: number[]): void {
    this.code.push(op, ...operands);
    for (let i = 0; i <= operands.length; i++) this.lines.push(this.line);
  }

  /** Emits a jump with a placeholder; returns the operand's position for `patch`. */
  private jump(op: number): number {
    this.emit(op, 0);
    return this.code.length - 1;
  }

  private patch(at: number, target = this.code.length): void {
    this.code[at] = target - (at + 1);
  }

  private jumpBack(op: number, target: number): void {
    this.emit(op, 0);
    this.patch(this.code.length - 1, target);
  }

  private temp(ref: boolean): number {
    return ref ? this.nRef++ : this.nVal++;
  }

  // ------------------------------------------------------------ statements

  stmts(body: readonly Stmt[]): void {
    for (const s of body) this.stmt(s);
  }

  private stmt(s: Stmt): void {
    this.line = s.pos.line;
    switch (s.kind) {
      case 'var':
        return this.varDecl(s.decl);
      case 'expr':
        return this.exprStatement(s.expr);
      case 'block':
        return this.stmts(s.body);
      case 'if': {
        this.expr(s.cond);
        const toElse = this.jump(Op.JMPF);
        this.stmt(s.then);
        if (s.else) {
          const toEnd = this.jump(Op.JMP);
          this.patch(toElse);
          this.stmt(s.else);
          this.patch(toEnd);
        } else {
          this.patch(toElse);
        }
        return;
      }
      case 'while': {
        const start = this.code.length;
        this.expr(s.cond);
        const toEnd = this.jump(Op.JMPF);
        const loop = this.loop(() => this.stmt(s.body));
        for (const c of loop.continues) this.patch(c, start);
        this.jumpBack(Op.JMP, start);
        this.patch(toEnd);
        for (const b of loop.breaks) this.patch(b);
        return;
      }
      case 'for': {
        if (s.init) this.stmt(s.init);
        const start = this.code.length;
        const toEnd = s.cond ? (this.expr(s.cond), this.jump(Op.JMPF)) : -1;
        const loop = this.loop(() => this.stmt(s.body));
        for (const c of loop.continues) this.patch(c);
        if (s.update) {
          this.line = s.update.pos.line;
          this.exprStatement(s.update);
        }
        this.jumpBack(Op.JMP, start);
        if (toEnd >= 0) this.patch(toEnd);
        for (const b of loop.breaks) this.patch(b);
        return;
      }
      case 'break':
        this.loops[this.loops.length - 1]!.breaks.push(this.jump(Op.JMP));
        return;
      case 'continue':
        this.loops[this.loops.length - 1]!.continues.push(this.jump(Op.JMP));
        return;
      case 'return':
        if (!s.value) return this.emit(Op.RET);
        this.exprAs(s.value, this.returnType);
        return this.emit(this.out.returns === 'ref' ? Op.RET_R : Op.RET_V);
    }
  }


  private loop(body: () => void): Loop {
    const loop: Loop = { breaks: [], continues: [] };
    this.loops.push(loop);
    body();
    this.loops.pop();
    return loop;
  }

  private varDecl(d: VarDecl): void {
    if (d.init) this.exprAs(d.init, d.type);
    else this.defaultValue(d.type);
    if (d.global !== undefined) this.storeGlobal(d.global);
    else this.storeLocal(d.local!);
  }

  private defaultValue(t: Type): void {
    if (isRefType(t)) this.emit(Op.NULL);
    else if (t.kind === 'float') this.emit(Op.FCONST, this.t.floatConstant(0));
    else this.emit(Op.ICONST, 0);
  }

  private storeLocal(l: Local): void {
    this.emit(isRefType(l.type) ? Op.RSTORE : Op.VSTORE, this.slots.get(l.index)!);
  }

  private loadLocal(l: Local): void {
    this.emit(isRefType(l.type) ? Op.RLOAD : Op.VLOAD, this.slots.get(l.index)!);
  }

  private storeGlobal(g: number): void {
    const s = this.t.globalSlot[g]!;
    this.emit(s.ref ? Op.GRSTORE : Op.GVSTORE, s.slot);
  }

  private loadGlobal(g: number): void {
    const s = this.t.globalSlot[g]!;
    this.emit(s.ref ? Op.GRLOAD : Op.GVLOAD, s.slot);
  }

  /** An expression whose value is dropped. */
  private exprStatement(e: Expr): void {
    if (e.kind === 'assign') return this.assign(e, false);
    this.expr(e);
    if (e.type.kind !== 'void') this.emit(isRefType(e.type) ? Op.RPOP : Op.VPOP);
  }

  // ------------------------------------------------------------ expressions

  /** Compiles `e` and widens an int to float when `target` is float. */
  private exprAs(e: Expr, target: Type): void {
    this.expr(e);
    if (target.kind === 'float' && e.type.kind === 'int') this.emit(Op.I2F);
  }

  private expr(e: Expr): void {
    this.line = e.pos.line;
    switch (e.kind) {
      case 'int':
        return this.emit(Op.ICONST, e.value | 0);
      case 'bool':
        return this.emit(Op.ICONST, e.value ? 1 : 0);
      case 'float':
        return this.emit(Op.FCONST, this.t.floatConstant(e.value));
      case 'string':
        return this.emit(Op.SCONST, this.t.stringConstant(e.value));
      case 'null':
        return this.emit(Op.NULL);
      case 'this':
        return this.emit(Op.RLOAD, 0);
      case 'name':
        if (e.local) return this.loadLocal(e.local);
        return this.loadGlobal(e.global!);
      case 'assign':
        return this.assign(e, true);
      case 'binary':
        return this.binary(e);
      case 'unary':
        this.expr(e.operand);
        if (e.op === '!') return this.emit(Op.NOT);
        if (e.op === '~') return this.emit(Op.INOT);
        return this.emit(e.type.kind === 'float' ? Op.FNEG : Op.INEG);
      case 'field': {
        const f = e.field!;
        this.expr(e.object);
        const kind = fieldKindOf(f.type);
        const op = kind === 'ref' ? Op.GETFIELD_R : kind === 'float' ? Op.GETFIELD_F : Op.GETFIELD_V;
        return this.emit(op, this.t.field(f.owner, f.index));
      }
      case 'length':
        this.expr(e.object);
        return this.emit(Op.ALEN);
      case 'index': {
        this.expr(e.array);
        this.expr(e.index);
        const kind = fieldKindOf(e.type);
        return this.emit(kind === 'ref' ? Op.ALOAD_R : kind === 'float' ? Op.ALOAD_F : Op.ALOAD_V);
      }
      case 'call': {
        const fn = e.fun!;
        this.args(fn, e.args);
        return this.emit(Op.CALL, this.t.funIndex.get(fn)!);
      }
      case 'invoke': {
        const m = e.method!;
        this.expr(e.object);
        this.args(m, e.args);
        // The statically resolved method gives the argument counts (every override has
        // the same signature) and lets the compiled tier devirtualize.
        return this.emit(Op.INVOKE, m.slot, this.t.funIndex.get(m)!);
      }
      case 'superInvoke': {
        // `super.init()` with no constructor above does nothing (the checker allows it).
        const m = e.method;
        if (!m) return;
        this.emit(Op.RLOAD, 0);
        this.args(m, e.args);
        return this.emit(Op.CALL, this.t.funIndex.get(m)!);
      }
      case 'new': {
        const cls = e.cls!;
        this.emit(Op.NEW, cls.id);
        if (cls.ctor) {
          this.emit(Op.RDUP);
          this.args(cls.ctor, e.args);
          this.emit(Op.CALL, this.t.funIndex.get(cls.ctor)!);
        }
        return;
      }
      case 'newArray':
        this.expr(e.length);
        return this.emit(Op.NEWARRAY, this.t.arrayType(e.type));
      case 'is':
        this.expr(e.operand);
        return this.emit(Op.INSTANCEOF, this.t.typeTest(e.target));
      case 'as':
        this.expr(e.operand);
        return this.emit(Op.CHECKCAST, this.t.typeTest(e.target));
      case 'stringMethod':
        this.expr(e.object);
        for (const a of e.args) this.expr(a);
        return this.emit(e.name === 'charAt' ? Op.CHARAT : Op.SUBSTR);
      case 'builtin':
        return this.builtin(e);
    }
  }

  private args(fn: FunDecl, args: readonly Expr[]): void {
    args.forEach((a, i) => this.exprAs(a, fn.params[i]!.type));
  }

  private builtin(e: Extract<Expr, { kind: 'builtin' }>): void {
    const a = e.args;
    switch (e.name) {
      case 'print': {
        const t = a[0]!.type;
        this.expr(a[0]!);
        if (isRefType(t)) return this.emit(Op.PRINT_R);
        return this.emit(t.kind === 'float' ? Op.PRINT_F : t.kind === 'bool' ? Op.PRINT_B : Op.PRINT_I);
      }
      case 'toFloat':
        this.expr(a[0]!);
        return this.emit(Op.I2F);
      case 'toInt':
        this.exprAs(a[0]!, { kind: 'float' });
        return this.emit(Op.F2I);
      case 'sqrt':
        this.exprAs(a[0]!, { kind: 'float' });
        return this.emit(Op.SQRT);
      case 'clock':
        return this.emit(Op.CLOCK);
      case 'gc':
        return this.emit(Op.GC);
      case 'minorGc':
        return this.emit(Op.MINORGC);
      case 'chr':
        this.expr(a[0]!);
        return this.emit(Op.CHR);
      case 'args':
        return this.emit(Op.ARGS, this.t.arrayType(e.type));
      case 'parseInt':
        this.expr(a[0]!);
        return this.emit(Op.PARSEINT);
    }
  }

  private binary(e: Extract<Expr, { kind: 'binary' }>): void {
    const { op, left, right } = e;
    if (op === '&&' || op === '||') {
      this.expr(left);
      const short = this.jump(op === '&&' ? Op.JMPF : Op.JMPT);
      this.expr(right);
      const end = this.jump(Op.JMP);
      this.patch(short);
      this.emit(Op.ICONST, op === '&&' ? 0 : 1);
      this.patch(end);
      return;
    }
    const lt = left.type, rt = right.type;
    if (op === '+' && e.type.kind === 'string') {
      this.toStringValue(left);
      this.toStringValue(right);
      return this.emit(Op.CONCAT);
    }
    if (op === '==' || op === '!=') {
      if (isRefType(lt) || isRefType(rt)) {
        this.expr(left);
        this.expr(right);
        // Content comparison only when both sides are statically strings (or null).
        const strings = (lt.kind === 'string' || lt.kind === 'null') && (rt.kind === 'string' || rt.kind === 'null')
          && (lt.kind === 'string' || rt.kind === 'string');
        if (strings) return this.emit(op === '==' ? Op.SEQ : Op.SNE);
        return this.emit(op === '==' ? Op.REQ : Op.RNE);
      }
    }
    // Numeric and boolean operators: widen both sides when either is float.
    const isFloat = lt.kind === 'float' || rt.kind === 'float';
    this.expr(left);
    if (isFloat && lt.kind === 'int') this.emit(Op.I2F);
    this.expr(right);
    if (isFloat && rt.kind === 'int') this.emit(Op.I2F);
    switch (op) {
      case '==': return this.emit(Op.EQ);
      case '!=': return this.emit(Op.NE);
      case '<': return this.emit(Op.LT);
      case '<=': return this.emit(Op.LE);
      case '>': return this.emit(Op.GT);
      case '>=': return this.emit(Op.GE);
      case '|': return this.emit(Op.IOR);
      case '^': return this.emit(Op.IXOR);
      case '&': return this.emit(Op.IAND);
      case '<<': return this.emit(Op.ISHL);
      case '>>': return this.emit(Op.ISHR);
      case '>>>': return this.emit(Op.IUSHR);
      case '+': return this.emit(isFloat ? Op.FADD : Op.IADD);
      case '-': return this.emit(isFloat ? Op.FSUB : Op.ISUB);
      case '*': return this.emit(isFloat ? Op.FMUL : Op.IMUL);
      case '/': return this.emit(isFloat ? Op.FDIV : Op.IDIV);
      case '%': return this.emit(isFloat ? Op.FMOD : Op.IMOD);
    }
  }

  /** Pushes `e` converted to its print text on the reference stack (for `+` on strings). */
  private toStringValue(e: Expr): void {
    this.expr(e);
    const t = e.type;
    if (t.kind === 'string') return;
    if (isRefType(t)) return this.emit(Op.TOSTR_R);
    this.emit(t.kind === 'float' ? Op.TOSTR_F : t.kind === 'bool' ? Op.TOSTR_B : Op.TOSTR_I);
  }

  /** `target = value`; when `want`, the assigned value stays on the stack. */
  private assign(e: Extract<Expr, { kind: 'assign' }>, want: boolean): void {
    const target = e.target;
    const vt = target.type;
    const ref = isRefType(vt);
    if (target.kind === 'name') {
      this.exprAs(e.value, vt);
      if (target.local) this.storeLocal(target.local);
      else this.storeGlobal(target.global!);
      if (want) this.expr(target);
      return;
    }
    // Field and element stores: evaluate object (and index) first, then the value.
    if (target.kind === 'field') this.expr(target.object);
    else if (target.kind === 'index') {
      this.expr(target.array);
      this.expr(target.index);
    } else throw new Error(`compiler: cannot assign to ${target.kind}`);
    this.exprAs(e.value, vt);
    let tmp = -1;
    if (want) {
      tmp = this.temp(ref);
      this.emit(ref ? Op.RSTORE : Op.VSTORE, tmp);
      this.emit(ref ? Op.RLOAD : Op.VLOAD, tmp);
    }
    const kind = fieldKindOf(vt);
    if (target.kind === 'field') {
      const f = target.field!;
      const fid = this.t.field(f.owner, f.index);
      if (kind === 'ref') this.emit(Op.PUTFIELD_R, fid, 0);
      else this.emit(kind === 'float' ? Op.PUTFIELD_F : Op.PUTFIELD_V, fid);
    } else {
      this.emit(kind === 'ref' ? Op.ASTORE_R : kind === 'float' ? Op.ASTORE_F : Op.ASTORE_V);
    }
    if (want) this.emit(ref ? Op.RLOAD : Op.VLOAD, tmp);
  }
}

/** Compiles a checked program. `mainLocals` are the locals of the top-level statements. */
export function compile(program: Program, mainLocals: readonly Local[]): BytecodeProgram {
  const t = new Tables();
  // Globals split by stack kind.
  for (const g of program.globals) {
    const ref = isRefType(g.type);
    const names = ref ? t.globalRefNames : t.globalValNames;
    t.globalSlot[g.global!] = { ref, slot: names.length };
    names.push(g.name);
  }
  // Function indices first, so calls can be emitted before their targets are compiled.
  const bodies: { fn: FunDecl; code: FunctionCode }[] = [];
  const declare = (fn: FunDecl, name: string): void => {
    const valParams = fn.params.filter((p) => !isRefType(p.type)).length;
    const code: FunctionCode = {
      name,
      line: fn.pos.line,
      code: new Int32Array(0),
      lines: new Int32Array(0),
      nValParams: valParams,
      nRefParams: fn.params.length - valParams + (fn.owner ? 1 : 0),
      nValLocals: 0,
      nRefLocals: 0,
      returns: returnKindOf(fn.returnType),
      hasThis: fn.owner !== undefined,
    };
    t.funIndex.set(fn, t.functions.length);
    t.functions.push(code);
    bodies.push({ fn, code });
  };
  const main: FunctionCode = {
    name: 'main', line: 1, code: new Int32Array(0), lines: new Int32Array(0),
    nValParams: 0, nRefParams: 0, nValLocals: 0, nRefLocals: 0, returns: 'void', hasThis: false,
  };
  t.functions.push(main);
  for (const fn of program.functions) declare(fn, fn.name);
  for (const cls of program.classes) {
    if (cls.init) declare(cls.init, `${cls.name}.init`);
    for (const m of cls.methods) declare(m, `${cls.name}.${m.name}`);
  }

  for (const { fn, code } of bodies) {
    const fc = new FunctionCompiler(t, code, fn.locals, fn.owner !== undefined, fn.returnType);
    fc.stmts(fn.body);
    fc.finish();
  }
  const mc = new FunctionCompiler(t, main, mainLocals, false, { kind: 'void' });
  mc.stmts(program.body);
  mc.finish();

  const objectClass: ClassInfo = { id: 0, name: 'Object', superId: -1, fields: [], vtable: new Int32Array(0) };
  const classes: ClassInfo[] = [objectClass];
  for (const cls of program.classes) {
    classes[cls.id] = {
      id: cls.id,
      name: cls.name,
      superId: cls.superclass ? cls.superclass.id : 0,
      fields: cls.allFields.map((f) => ({ name: f.name, kind: fieldKindOf(f.type) })),
      vtable: Int32Array.from(cls.vtable.map((m) => t.funIndex.get(m)!)),
    };
  }
  return {
    file: program.file,
    functions: t.functions,
    mainFunction: 0,
    classes,
    fields: t.fields,
    arrayTypes: t.arrayTypes,
    typeTests: t.typeTests,
    floatConstants: t.floatConstants,
    stringConstants: t.stringConstants,
    globalValNames: t.globalValNames,
    globalRefNames: t.globalRefNames,
  };
}
