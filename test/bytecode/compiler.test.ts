// The compiler's contract with the interpreter: references on the reference stack,
// values on the value stack, vtable slots fixed at compile time, widening where an int
// meets a float, layout-independent field operands that the linker binds per layout.
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/bytecode/compiler.js';
import { Op, OP_NAMES, OPERANDS } from '../../src/bytecode/opcodes.js';
import type { BytecodeProgram, FunctionCode } from '../../src/bytecode/program.js';
import { parseAndCheck } from '../../src/lang/index.js';
import { createHeap } from '../../src/heap/index.js';
import { link } from '../../src/vm/link.js';

function compileText(source: string): BytecodeProgram {
  const r = parseAndCheck('t.mini', source);
  if ('errors' in r) throw new Error(r.errors.map((e) => e.message).join('; '));
  return compile(r.program, r.mainLocals);
}

/** Instructions of a function as [name, ...operands]. */
function ops(fn: FunctionCode): (string | number)[][] {
  const out: (string | number)[][] = [];
  for (let pc = 0; pc < fn.code.length; pc += 1 + OPERANDS[fn.code[pc]!]!) {
    out.push([OP_NAMES[fn.code[pc]!]!, ...fn.code.subarray(pc + 1, pc + 1 + OPERANDS[fn.code[pc]!]!)]);
  }
  return out;
}

function fn(p: BytecodeProgram, name: string): FunctionCode {
  const f = p.functions.find((x) => x.name === name);
  if (!f) throw new Error(`no function ${name}`);
  return f;
}

describe('compiler', () => {
  it('splits locals and parameters between the value and reference stacks', () => {
    const p = compileText('class N { var n: N; }\nfun f(a: int, b: N, c: float, d: string): int { var x: N = b; var y = a; return y; }\n');
    const f = fn(p, 'f');
    expect([f.nValParams, f.nRefParams, f.nValLocals, f.nRefLocals]).toEqual([2, 2, 3, 3]);
    expect(ops(f).slice(0, 4)).toEqual([['RLOAD', 0], ['RSTORE', 2], ['VLOAD', 0], ['VSTORE', 2]]);
  });

  it('gives methods `this` as reference slot 0 and calls through fixed vtable slots', () => {
    const p = compileText([
      'class A { fun f(): int { return 1; } fun g(x: A): int { return 2; } }',
      'class B extends A { fun g(x: A): int { return 3; } fun h(): int { return 4; } }',
      'var a: A = new B();',
      'print(a.g(a));',
    ].join('\n'));
    const b = p.classes.find((c) => c.name === 'B')!;
    expect(Array.from(b.vtable, (i) => p.functions[i]!.name)).toEqual(['A.f', 'B.g', 'B.h']);
    expect(fn(p, 'B.g').nRefParams).toBe(2);
    // The slot, and the statically resolved method A.g (whose counts place the receiver).
    const ag = p.functions.findIndex((f) => f.name === 'A.g');
    expect(ops(fn(p, 'main'))).toContainEqual(['INVOKE', 1, ag]);
  });

  it('widens ints where they meet floats', () => {
    const p = compileText('fun f(x: float): float { return 1; }\nprint(f(2) + 3);\n');
    expect(ops(fn(p, 'f'))).toEqual([['ICONST', 1], ['I2F'], ['RET_V'], ['RET']]);
    const main = ops(fn(p, 'main'));
    expect(main.slice(0, 3)).toEqual([['ICONST', 2], ['I2F'], ['CALL', p.functions.indexOf(fn(p, 'f'))]]);
    expect(main.slice(3, 6)).toEqual([['ICONST', 3], ['I2F'], ['FADD']]);
  });

  it('patches break and continue to the loop end and the update', () => {
    const p = compileText('for (var i = 0; i < 10; i = i + 1) { if (i == 3) continue; if (i == 5) break; print(i); }\n');
    const f = fn(p, 'main');
    const targets: number[] = [];
    for (let pc = 0; pc < f.code.length; pc += 1 + OPERANDS[f.code[pc]!]!) {
      if (f.code[pc] === Op.JMP || f.code[pc] === Op.JMPF) targets.push(pc + 2 + f.code[pc + 1]!);
    }
    // Every jump lands on an instruction boundary inside the function.
    const starts = new Set<number>();
    for (let pc = 0; pc < f.code.length; pc += 1 + OPERANDS[f.code[pc]!]!) starts.add(pc);
    for (const t of targets) expect(starts.has(t) || t === f.code.length, `target ${t}`).toBe(true);
    expect(f.lines.length).toBe(f.code.length);
  });

  it('keeps field operands layout-independent; the linker binds them per layout', () => {
    const p = compileText('class P { var x: int; var next: P; var y: float; }\nvar o = new P(); o.next = o; o.x = 1; print(o.y);\n');
    const offsets: Record<string, number[]> = {};
    for (const layout of ['sable', 'refgraph']) {
      const heap = createHeap({ heapBytes: 1 << 20, layout });
      const linked = link(p, heap);
      const main = linked.code[p.mainFunction]!;
      const found: number[] = [];
      for (let pc = 0; pc < main.length; pc += 1 + OPERANDS[main[pc]!]!) {
        if (main[pc] === Op.PUTFIELD_R || main[pc] === Op.PUTFIELD_V || main[pc] === Op.GETFIELD_F) found.push(main[pc + 1]!);
      }
      offsets[layout] = found;
    }
    // sable: the reference right of the 4-word header, scalars left of it.
    expect(offsets['sable']![0]).toBeGreaterThanOrEqual(4);
    expect(offsets['sable']![1]).toBeLessThan(0);
    // refgraph: declaration order after the header.
    expect(offsets['refgraph']).toEqual([5, 4, 6]);
    // The program itself still holds field ids.
    expect(ops(fn(p, 'main')).filter((o) => o[0] === 'PUTFIELD_R')).toEqual([['PUTFIELD_R', p.fields.findIndex((f) => f.name === 'P.next'), 0]]);
  });

  it('interns string constants and compiles string + as conversions and CONCAT', () => {
    const p = compileText('print("a" + 1 + 2.5 + true + null + "a");\n');
    expect(p.stringConstants).toEqual(['a']);
    const names = ops(fn(p, 'main')).map((o) => o[0]);
    expect(names).toEqual(['SCONST', 'ICONST', 'TOSTR_I', 'CONCAT', 'FCONST', 'TOSTR_F', 'CONCAT', 'ICONST', 'TOSTR_B',
      'CONCAT', 'NULL', 'TOSTR_R', 'CONCAT', 'SCONST', 'CONCAT', 'PRINT_R', 'RET']);
  });
});
