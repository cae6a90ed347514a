// Where words copied to or from shared memory are staged (heap/word-parity.ts).
import { describe, expect, it } from 'vitest';
import { atParityOf, bufferWord } from '../../src/heap/word-parity.js';

describe('word parity', () => {
  it('counts words from the start of the buffer', () => {
    const buf = new SharedArrayBuffer(64);
    expect(bufferWord(new Int32Array(buf), 3)).toBe(3);
    expect(bufferWord(new Uint32Array(buf, 12, 4), 2)).toBe(5);
  });

  it('moves a position to the next word only when the parities differ', () => {
    expect(atParityOf(10, 4)).toBe(10);
    expect(atParityOf(10, 7)).toBe(11);
    expect(atParityOf(11, 7)).toBe(11);
    expect(atParityOf(11, 8)).toBe(12);
    expect(atParityOf(0, 1)).toBe(1);
  });
});
