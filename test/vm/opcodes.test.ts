// The interpreter's switch uses numeric case labels for speed; this keeps each label
// equal to the opcode it names in the table (the single source of truth).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FIRST_OF, Op, OP_NAMES, OPERANDS, SUPERINSTRUCTIONS } from '../../src/bytecode/opcodes.js';
import { fuse } from '../../src/vm/link.js';

describe('opcode table', () => {
  it('numbers opcodes densely and names each once', () => {
    expect(new Set(OP_NAMES).size).toBe(OP_NAMES.length);
    OP_NAMES.forEach((name, i) => expect(Op[name as keyof typeof Op]).toBe(i));
    expect(OPERANDS.every((n) => n >= 0 && n <= 3)).toBe(true);
  });

  it('lays each superinstruction over its pair: the first\'s operands, the second\'s opcode word and operands', () => {
    expect(SUPERINSTRUCTIONS.length).toBeGreaterThan(0);
    for (const [op, a, b] of SUPERINSTRUCTIONS) {
      expect(OP_NAMES[op], OP_NAMES[op]).toBe(`${OP_NAMES[a]}_${OP_NAMES[b]}`);
      expect(OPERANDS[op]).toBe(OPERANDS[a]! + 1 + OPERANDS[b]!);
      expect(FIRST_OF[op]).toBe(a);
    }
  });

  it('fuses pairs in linked code without moving any instruction', () => {
    // VLOAD 0; ICONST 1; IADD; VSTORE 0; LT; JMPF -7
    const code = Int32Array.from([Op.VLOAD, 0, Op.ICONST, 1, Op.IADD, Op.VSTORE, 0, Op.LT, Op.JMPF, -7]);
    const before = code.slice();
    fuse(code);
    expect(code[0]).toBe(Op.VLOAD_ICONST);
    expect(code[7]).toBe(Op.LT_JMPF);
    // The second instruction of each pair is untouched, as is everything else.
    for (const i of [1, 3, 4, 5, 6, 8, 9]) expect(code[i]).toBe(before[i]);
  });

  it('matches every numeric case label of the interpreter', () => {
    const src = readFileSync(new URL('../../src/vm/interpreter.ts', import.meta.url), 'utf8');
    const seen = new Set<string>();
    for (const m of src.matchAll(/^\s*((?:case \d+: )+)\{? ?\/\/ ([A-Z0-9_ ]+)$/gm)) {
      const numbers = [...m[1]!.matchAll(/case (\d+):/g)].map((x) => Number(x[1]));
      const names = m[2]!.trim().split(/\s+/);
      expect(names.length, `labels ${numbers} vs ${names}`).toBe(numbers.length);
      numbers.forEach((n, i) => {
        expect(OP_NAMES[n], `case ${n}`).toBe(names[i]);
        seen.add(names[i]!);
      });
    }
    // Every opcode has a handler.
    expect([...OP_NAMES].filter((n) => !seen.has(n))).toEqual([]);
  });
});
