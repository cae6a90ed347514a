/**
 * What the code generator needs to know about a function's bytecode before it
 * writes any JavaScript: its instructions, its basic blocks, and the depth of
 * both operand stacks at every instruction. Depths are static because the
 * compiler emits structured code; each depth becomes one JavaScript variable.
 */

import { FIRST_OF, Op, OPERANDS } from '../../bytecode/opcodes.js';
import type { BytecodeProgram } from '../../bytecode/program.js';

export interface Instr {
  readonly pc: number;
  readonly op: number;
  readonly a: number;
  readonly b: number;
  readonly next: number;
  /** Operand depths (locals excluded) on entry. */
  dv: number;
  dr: number;
}

export interface Analysis {
  readonly instrs: Instr[];
  /** Block number of each pc that starts a block, -1 elsewhere. */
  readonly blockOf: Int32Array;
  /** Deepest value and reference operand depths. */
  readonly maxV: number;
  readonly maxR: number;
  /** Blocks an interpreted frame may enter at (a loop head with empty operand stacks). */
  readonly osrBlocks: number[];
  /** Number of basic blocks (numbered from 0 in code order). */
  readonly nBlocks: number;
}

const JUMPS = new Set<number>([Op.JMP, Op.JMPF, Op.JMPT]);
const ENDS = new Set<number>([Op.JMP, Op.RET, Op.RET_V, Op.RET_R]);

/** Value and reference stack effects (pops, pushes) of one instruction. */
export function effect(p: BytecodeProgram, op: number, a: number, b: number): [number, number, number, number] {
  switch (op) {
    case Op.NOP: case Op.JMP: case Op.I2F: case Op.CHECKCAST: case Op.GC: case Op.MINORGC:
    case Op.RET: case Op.RET_V: case Op.RET_R:
      return [0, 0, 0, 0];
    case Op.ICONST: case Op.FCONST: case Op.VLOAD: case Op.GVLOAD: case Op.CLOCK: return [0, 1, 0, 0];
    case Op.SCONST: case Op.NULL: case Op.RLOAD: case Op.GRLOAD: case Op.RDUP: case Op.NEW: return [0, 0, 0, 1];
    case Op.VSTORE: case Op.GVSTORE: case Op.VPOP: case Op.JMPF: case Op.JMPT:
    case Op.PRINT_I: case Op.PRINT_F: case Op.PRINT_B:
      return [1, 0, 0, 0];
    case Op.ARGS: return [0, 0, 0, 1];
    case Op.PARSEINT: return [0, 1, 1, 0];
    case Op.RSTORE: case Op.GRSTORE: case Op.RPOP: case Op.PRINT_R: return [0, 0, 1, 0];
    case Op.INEG: case Op.INOT: case Op.FNEG: case Op.F2I: case Op.NOT: case Op.SQRT: return [1, 1, 0, 0];
    case Op.REQ: case Op.RNE: case Op.SEQ: case Op.SNE: return [0, 1, 2, 0];
    case Op.NEWARRAY: case Op.CHR: case Op.TOSTR_I: case Op.TOSTR_F: case Op.TOSTR_B: return [1, 0, 0, 1];
    case Op.GETFIELD_V: case Op.GETFIELD_F: case Op.ALEN: case Op.INSTANCEOF: return [0, 1, 1, 0];
    case Op.GETFIELD_R: case Op.TOSTR_R: return [0, 0, 1, 1];
    case Op.PUTFIELD_V: case Op.PUTFIELD_F: return [1, 0, 1, 0];
    case Op.PUTFIELD_R: return [0, 0, 2, 0];
    case Op.ALOAD_V: case Op.ALOAD_F: case Op.CHARAT: return [1, 1, 1, 0];
    case Op.ALOAD_R: return [1, 0, 1, 1];
    case Op.ASTORE_V: case Op.ASTORE_F: return [2, 0, 1, 0];
    case Op.ASTORE_R: return [1, 0, 2, 0];
    case Op.SUBSTR: return [2, 0, 1, 1];
    case Op.CONCAT: return [0, 0, 2, 1];
    case Op.CALL: case Op.INVOKE: {
      const f = p.functions[op === Op.CALL ? a : b]!;
      return [f.nValParams, f.returns === 'val' ? 1 : 0, f.nRefParams, f.returns === 'ref' ? 1 : 0];
    }
    default:
      // The binary value operators: IADD .. FMOD and the comparisons LT .. NE.
      if ((op >= Op.IADD && op <= Op.FMOD) || (op >= Op.LT && op <= Op.NE)) return [2, 1, 0, 0];
      throw new Error(`tier: no stack effect for opcode ${op}`);
  }
}

export function analyze(p: BytecodeProgram, code: Int32Array): Analysis {
  const instrs: Instr[] = [];
  const at = new Int32Array(code.length + 1).fill(-1);
  for (let pc = 0; pc < code.length; ) {
    // A superinstruction compiles as the pair it stands for.
    const op = FIRST_OF[code[pc]!]!;
    const next = pc + 1 + OPERANDS[op]!;
    at[pc] = instrs.length;
    instrs.push({ pc, op, a: code[pc + 1]!, b: code[pc + 2]!, next, dv: -1, dr: -1 });
    pc = next;
  }
  const target = (i: Instr): number => i.next + i.a;
  const starts = new Set<number>([0]);
  const backTargets = new Set<number>();
  for (const i of instrs) {
    if (JUMPS.has(i.op)) {
      starts.add(target(i));
      if (target(i) <= i.pc) backTargets.add(target(i));
    }
    if ((JUMPS.has(i.op) || ENDS.has(i.op)) && i.next < code.length) starts.add(i.next);
  }
  // Depths by a worklist over the control flow; every path agrees (structured code).
  const work: number[] = [0];
  instrs[0]!.dv = 0;
  instrs[0]!.dr = 0;
  let maxV = 0, maxR = 0;
  const reach = (pc: number, dv: number, dr: number): void => {
    const j = at[pc]!;
    if (j < 0) return;
    const n = instrs[j]!;
    if (n.dv < 0) {
      n.dv = dv;
      n.dr = dr;
      work.push(j);
    } else if (n.dv !== dv || n.dr !== dr) {
      throw new Error(`tier: operand depths disagree at pc ${pc}`);
    }
  };
  while (work.length > 0) {
    const i = instrs[work.pop()!]!;
    const [vp, vu, rp, ru] = effect(p, i.op, i.a, i.b);
    const dv = i.dv - vp + vu, dr = i.dr - rp + ru;
    maxV = Math.max(maxV, i.dv, dv);
    maxR = Math.max(maxR, i.dr, dr);
    if (JUMPS.has(i.op)) reach(target(i), dv, dr);
    if (!ENDS.has(i.op)) reach(i.next, dv, dr);
  }
  const blockOf = new Int32Array(code.length + 1).fill(-1);
  let nBlocks = 0;
  for (const i of instrs) if (starts.has(i.pc) && i.dv >= 0) blockOf[i.pc] = nBlocks++;
  const osrBlocks: number[] = [];
  for (const pc of backTargets) {
    const i = instrs[at[pc]!]!;
    if (i.dv === 0 && i.dr === 0) osrBlocks.push(blockOf[pc]!);
  }
  return { instrs, blockOf, maxV, maxR, osrBlocks, nBlocks };
}
