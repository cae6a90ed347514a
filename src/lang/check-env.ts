/**
 * Shared pieces of the type checker: the built-in types, the poison type used
 * after an error, type relations (sameness, assignability, widening), and the
 * scopes that give locals their dense indices.
 */
import { isRefType } from './ast.js';
import type { ClassDecl, FunDecl, Local, Pos, Type, TypeRef, VarDecl } from './ast.js';
import type { DiagnosticBag } from './diagnostics.js';
import { msg } from './diagnostics.js';

export const INT: Type = { kind: 'int' };
export const FLOAT: Type = { kind: 'float' };
export const BOOL: Type = { kind: 'bool' };
export const STRING: Type = { kind: 'string' };
export const VOID: Type = { kind: 'void' };
export const NULL: Type = { kind: 'null' };

/**
 * The type of an expression that already produced an error. It is compared by
 * identity and accepted everywhere, so that one mistake gives one message, not a
 * cascade. It never survives a successful check.
 */
export const ERR: Type = { kind: 'void' };

export function isErr(t: Type): boolean {
  return t === ERR;
}

export function isNumeric(t: Type): boolean {
  return t.kind === 'int' || t.kind === 'float';
}

export function sameType(a: Type, b: Type): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'class') return a.cls === (b as typeof a).cls;
  if (a.kind === 'array') return sameType(a.elem, (b as typeof a).elem);
  return true;
}

export function isSubclass(c: ClassDecl, ancestor: ClassDecl): boolean {
  for (let k: ClassDecl | undefined = c; k; k = k.superclass) if (k === ancestor) return true;
  return false;
}

/** Whether a value of type `from` may be stored where `to` is expected (int widens to float). */
export function isAssignable(from: Type, to: Type): boolean {
  if (isErr(from) || isErr(to)) return true;
  if (sameType(from, to)) return true;
  if (from.kind === 'int' && to.kind === 'float') return true;
  if (from.kind === 'null') return to.kind === 'string' || to.kind === 'class' || to.kind === 'array';
  if (to.kind === 'class') {
    if (from.kind === 'class') return isSubclass(from.cls, to.cls);
    // Every string and array is an Object; Object is the class without a superclass.
    return (from.kind === 'string' || from.kind === 'array') && to.cls.superclass === undefined;
  }
  return false; // arrays are invariant: only sameType above
}

/** Whether `==`/`!=` may compare the two types. */
export function isComparable(a: Type, b: Type): boolean {
  if (isErr(a) || isErr(b)) return true;
  if (isNumeric(a) && isNumeric(b)) return true;
  if (a.kind === 'bool' && b.kind === 'bool') return true;
  if (isRefType(a) && isRefType(b)) return isAssignable(a, b) || isAssignable(b, a);
  return false;
}

export function isCastTarget(t: Type): boolean {
  return t.kind === 'class' || t.kind === 'array' || t.kind === 'string';
}

/** Locals of one function body, with block scopes; indices are dense and never reused. */
export class Frame {
  readonly locals: Local[] = [];
  private readonly scopes: Map<string, Local>[] = [new Map()];

  push(): void {
    this.scopes.push(new Map());
  }
  pop(): void {
    this.scopes.pop();
  }
  lookup(name: string): Local | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const l = this.scopes[i]!.get(name);
      if (l) return l;
    }
    return undefined;
  }
  /** Declares a local; a name already visible as a local of this function is an error, as in Java. */
  declare(bag: DiagnosticBag, name: string, type: Type, pos: Pos, isParam = false): Local {
    if (this.lookup(name)) bag.error(pos, isParam ? msg.duplicateParam(name) : msg.duplicateLocal(name));
    const local: Local = { name, type, index: this.locals.length };
    this.locals.push(local);
    this.scopes[this.scopes.length - 1]!.set(name, local);
    return local;
  }
}

/** What an expression is checked inside of. */
export interface FnCtx {
  /** The function, method or init being checked; undefined for top-level code. */
  readonly fun: FunDecl | undefined;
  /** The class of a method or init. */
  readonly cls: ClassDecl | undefined;
  readonly frame: Frame;
  loopDepth: number;
}

/** The program-wide tables the expression checker needs. */
export interface Env {
  readonly bag: DiagnosticBag;
  readonly objectClass: ClassDecl;
  readonly classes: Map<string, ClassDecl>;
  readonly functions: Map<string, FunDecl>;
  /** Globals declared so far (all of them once top-level code is checked). */
  readonly globals: Map<string, VarDecl>;
  /** Every top-level `var` name, to tell "used before its declaration" from "unknown". */
  readonly allGlobalNames: Set<string>;
  resolveType(ref: TypeRef, allowVoid?: boolean): Type;
}

/** Removes `readonly`, for the few places where the checker rewrites a shared node in place. */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };
