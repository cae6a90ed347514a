/**
 * The linker: binds a layout-independent BytecodeProgram to one heap.
 *
 * It registers every class and array type with the heap (whose layout plans the
 * instance shapes), then rewrites field operands from field ids to word offsets (and
 * refgraph edge indices), and array-type operands to heap type ids, so that the
 * interpreter's hot loop reads offsets straight out of the code.
 */

import type { ClassShape, Heap } from '../heap/api.js';
import { Op, OPERANDS, SUPERINSTRUCTIONS } from '../bytecode/opcodes.js';
import type { BytecodeProgram, FunctionCode } from '../bytecode/program.js';

export interface LinkedProgram {
  readonly program: BytecodeProgram;
  /** Linked code of each function (copies; the program's own code stays unlinked for disasm). */
  readonly code: Int32Array[];
  readonly shapes: ClassShape[]; // by class id
  /** Class id of each heap type id, -1 for arrays and strings. */
  readonly classOfType: Int32Array;
  readonly superOf: Int32Array; // by class id, -1 for Object
  /** Type test k -> 0 object, 1 string, 2 class (testArg = class id), 3 array (testArg = heap type id). */
  readonly testKind: Int32Array;
  readonly testArg: Int32Array;
}

export function link(program: BytecodeProgram, heap: Heap): LinkedProgram {
  const shapes = program.classes.map((c) => heap.defineClass(c.name, c.fields.map((f) => f.kind)));
  const arrayTypeIds = Int32Array.from(program.arrayTypes.map((a) => heap.defineArray(a.name, a.elem)));
  let maxType = heap.stringTypeId;
  for (const s of shapes) maxType = Math.max(maxType, s.typeId);
  for (const id of arrayTypeIds) maxType = Math.max(maxType, id);
  const classOfType = new Int32Array(maxType + 1).fill(-1);
  shapes.forEach((s, cid) => (classOfType[s.typeId] = cid));
  const superOf = Int32Array.from(program.classes.map((c) => c.superId));

  const testKind = new Int32Array(program.typeTests.length);
  const testArg = new Int32Array(program.typeTests.length);
  program.typeTests.forEach((t, i) => {
    switch (t.kind) {
      case 'object': testKind[i] = 0; break;
      case 'string': testKind[i] = 1; break;
      case 'class': testKind[i] = 2; testArg[i] = t.classId; break;
      case 'array': testKind[i] = 3; testArg[i] = arrayTypeIds[t.arrayType]!; break;
    }
  });

  const code = program.functions.map((fn) => linkFunction(program, fn, shapes, arrayTypeIds));
  return { program, code, shapes, classOfType, superOf, testKind, testArg };
}

function linkFunction(p: BytecodeProgram, fn: FunctionCode, shapes: ClassShape[], arrayTypeIds: Int32Array): Int32Array {
  const code = fn.code.slice();
  for (let pc = 0; pc < code.length; pc += 1 + OPERANDS[code[pc]!]!) {
    const op = code[pc]!;
    switch (op) {
      case Op.GETFIELD_V: case Op.GETFIELD_F: case Op.GETFIELD_R:
      case Op.PUTFIELD_V: case Op.PUTFIELD_F: case Op.PUTFIELD_R: {
        const f = p.fields[code[pc + 1]!]!;
        const shape = shapes[f.classId]!;
        code[pc + 1] = shape.offsets[f.index]!;
        if (op === Op.PUTFIELD_R) code[pc + 2] = shape.edgeIndex[f.index]!;
        break;
      }
      case Op.NEWARRAY:
      case Op.ARGS:
        code[pc + 1] = arrayTypeIds[code[pc + 1]!]!;
        break;
    }
  }
  fuse(code);
  return code;
}

/** Pair -> superinstruction, keyed by `first * 256 + second`. */
const FUSED = new Map(SUPERINSTRUCTIONS.map(([op, a, b]) => [a * 256 + b, op]));

/**
 * Rewrites the first of each fusable pair into its superinstruction. Only the first
 * opcode word changes, so pcs, jump offsets and line tables stay as they were.
 */
export function fuse(code: Int32Array): void {
  for (let pc = 0; pc < code.length; ) {
    const op = code[pc]!;
    const next = pc + 1 + OPERANDS[op]!;
    if (next < code.length) {
      const s = FUSED.get(op * 256 + code[next]!);
      if (s !== undefined) code[pc] = s;
    }
    pc = next;
  }
}
