/**
 * The disassembler behind `minivm disasm`: prints each function's bytecode with
 * operand names resolved (fields, functions, constants, types), from the opcode table.
 */

import { Op, OP_NAMES, OPERANDS } from './opcodes.js';
import { typeTestName, type BytecodeProgram } from './program.js';

export function disassemble(p: BytecodeProgram): string {
  const out: string[] = [];
  for (const c of p.classes) {
    if (c.id === 0) continue;
    const sup = c.superId > 0 ? ` extends ${p.classes[c.superId]!.name}` : '';
    out.push(`class ${c.name}${sup}  fields: ${c.fields.map((f) => `${f.name}:${f.kind}`).join(', ') || '-'}`);
    out.push(`  vtable: ${Array.from(c.vtable, (f, i) => `${i}=${p.functions[f]!.name}`).join(' ') || '-'}`);
  }
  p.functions.forEach((fn, index) => {
    out.push('');
    out.push(`fun #${index} ${fn.name}  params v${fn.nValParams} r${fn.nRefParams}  locals v${fn.nValLocals} r${fn.nRefLocals}  returns ${fn.returns}`);
    let line = -1;
    for (let pc = 0; pc < fn.code.length; ) {
      const op = fn.code[pc]!;
      const n = OPERANDS[op]!;
      const args = Array.from(fn.code.subarray(pc + 1, pc + 1 + n));
      const src = fn.lines[pc] !== line ? String((line = fn.lines[pc]!)).padStart(4) : '   |';
      out.push(`${String(pc).padStart(5)} ${src}  ${OP_NAMES[op]!.padEnd(11)} ${args.join(' ').padEnd(8)} ${comment(p, op, args, pc + 1 + n)}`.trimEnd());
      pc += 1 + n;
    }
  });
  return out.join('\n') + '\n';
}

function comment(p: BytecodeProgram, op: number, args: number[], next: number): string {
  const a = args[0]!;
  switch (op) {
    case Op.FCONST: return `; ${p.floatConstants[a]}`;
    case Op.SCONST: return `; ${JSON.stringify(p.stringConstants[a])}`;
    case Op.GVLOAD: case Op.GVSTORE: return `; ${p.globalValNames[a]}`;
    case Op.GRLOAD: case Op.GRSTORE: return `; ${p.globalRefNames[a]}`;
    case Op.JMP: case Op.JMPF: case Op.JMPT: return `; -> ${next + a}`;
    case Op.NEW: return `; ${p.classes[a]!.name}`;
    case Op.NEWARRAY: return `; ${p.arrayTypes[a]!.name}`;
    case Op.GETFIELD_V: case Op.GETFIELD_F: case Op.GETFIELD_R:
    case Op.PUTFIELD_V: case Op.PUTFIELD_F: case Op.PUTFIELD_R: return `; ${p.fields[a]!.name}`;
    case Op.CALL: return `; ${p.functions[a]!.name}`;
    case Op.INVOKE: return `; slot ${a} (${p.functions[args[1]!]!.name})`;
    case Op.INSTANCEOF: case Op.CHECKCAST: return `; ${typeTestName(p, p.typeTests[a]!)}`;
    default: return '';
  }
}
