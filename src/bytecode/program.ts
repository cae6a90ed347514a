/**
 * A compiled program: the unit the compiler produces and the VM links and runs.
 *
 * Bytecode is layout-independent: field instructions name a field (an index into
 * `fields`), not a word offset, so one compilation serves both object layouts. The
 * VM's linker rewrites those operands into offsets for the heap's layout at load
 * time, the way a JVM resolves constant-pool field references.
 */

import type { FieldKind } from '../heap/api.js';

export type ReturnKind = 'void' | 'val' | 'ref';

export interface FunctionCode {
  /** As shown in stack traces: `f`, `Class.method`, `Class.init`, `main`. */
  readonly name: string;
  readonly line: number;
  code: Int32Array;
  /** Source line of each code word (same length as `code`). */
  lines: Int32Array;
  readonly nValParams: number;
  readonly nRefParams: number; // includes `this` for methods and constructors
  nValLocals: number; // params included
  nRefLocals: number; // params included
  readonly returns: ReturnKind;
  /** A method or `init`: reference slot 0 holds `this`, which is never null and never assigned. */
  readonly hasThis: boolean;
}

export interface ClassInfo {
  readonly id: number; // 0 is Object
  readonly name: string;
  readonly superId: number; // -1 for Object
  /** All fields, inherited first: the order the heap's layout plans from. */
  readonly fields: readonly { readonly name: string; readonly kind: FieldKind }[];
  /** Function index of each vtable slot. */
  readonly vtable: Int32Array;
}

export interface FieldRef {
  readonly classId: number; // the declaring class
  readonly index: number; // in the declaring class's `fields`
  readonly name: string;
  readonly kind: FieldKind;
}

export interface ArrayTypeInfo {
  readonly name: string; // e.g. `Node[]`, `int[][]`
  readonly elem: FieldKind;
}

/** The target of an `is`/`as` test. */
export type TypeTest =
  | { readonly kind: 'object' }
  | { readonly kind: 'string' }
  | { readonly kind: 'class'; readonly classId: number }
  | { readonly kind: 'array'; readonly arrayType: number };

export interface BytecodeProgram {
  readonly file: string;
  readonly functions: FunctionCode[];
  readonly mainFunction: number;
  readonly classes: ClassInfo[];
  readonly fields: FieldRef[];
  readonly arrayTypes: ArrayTypeInfo[];
  readonly typeTests: TypeTest[];
  readonly floatConstants: number[];
  readonly stringConstants: string[];
  readonly globalValNames: string[];
  readonly globalRefNames: string[];
}

export function typeTestName(p: BytecodeProgram, t: TypeTest): string {
  switch (t.kind) {
    case 'object':
      return 'Object';
    case 'string':
      return 'string';
    case 'class':
      return p.classes[t.classId]!.name;
    case 'array':
      return p.arrayTypes[t.arrayType]!.name;
  }
}
