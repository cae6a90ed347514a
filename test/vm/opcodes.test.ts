// The interpreter's switch uses numeric case labels for speed; this keeps each label
// equal to the opcode it names in the table (the single source of truth).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Op, OP_NAMES, OPERANDS } from '../../src/bytecode/opcodes.js';

describe('opcode table', () => {
  it('numbers opcodes densely and names each once', () => {
    expect(new Set(OP_NAMES).size).toBe(OP_NAMES.length);
    OP_NAMES.forEach((name, i) => expect(Op[name as keyof typeof Op]).toBe(i));
    expect(OPERANDS.every((n) => n >= 0 && n <= 2)).toBe(true);
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
