// The compile cache's file format (src/cli/entry-codec.ts): what it writes comes back
// equal, typed arrays and maps included, and bytes that are not an entry are refused.
import { describe, expect, it } from 'vitest';
import { decodeEntry, encodeEntry } from '../../src/cli/entry-codec.js';
import { compileSource } from '../../src/cli/compile-source.js';

const quiet = { stdout: (): void => {}, stderr: (): void => {} };

describe('entry codec', () => {
  it('gives back typed arrays of each kind, maps, and numbers JSON cannot hold', () => {
    const value = {
      ints: Int32Array.of(1, -2, 0x7fffffff, -0x80000000),
      bytes: Uint8Array.of(255, 0, 7),
      odd: Uint8Array.of(1, 2, 3, 4, 5), // not a multiple of 8 bytes: the next array must stay aligned
      floats: Float64Array.of(0.5, -0, NaN, Infinity),
      words: Uint32Array.of(0xffffffff, 3),
      numbers: [1.25, NaN, -Infinity, Infinity, -0, 0],
      map: new Map<string, unknown>([['a', { source: 'return 1;', data: Uint8Array.of(9) }], ['b', null]]),
      nested: [[{ s: 'x\u2028y"' }]],
    };
    const back = decodeEntry(encodeEntry(value)) as typeof value;
    expect(back).toEqual(value);
    expect(back.ints).toBeInstanceOf(Int32Array);
    expect(back.words).toBeInstanceOf(Uint32Array);
    expect(Object.is(back.floats[1], -0)).toBe(true);
    expect(Object.is(back.numbers[4], -0)).toBe(true);
    expect(Object.is(back.numbers[5], 0)).toBe(true);
    expect(back.map).toBeInstanceOf(Map);
  });

  it('gives back a compiled program equal to what was kept', () => {
    const source = 'class P { var x: float; init(x: float) { this.x = x; } }\nvar a = new int[3];\nprint(new P(2.5).x + 1.0e300 * 1.0e300);\nprint(a.length);\n';
    const program = compileSource('p.mini', source, quiet);
    expect(program).toBeDefined();
    expect(decodeEntry(encodeEntry({ program }))).toEqual({ program });
  });

  it('reads an entry from a Buffer, as readFileSync gives it, into arrays of their own', () => {
    const bytes = Buffer.from(encodeEntry({ a: Int32Array.of(5, 6), b: Uint8Array.of(7) }));
    const back = decodeEntry(bytes) as { a: Int32Array; b: Uint8Array };
    expect(back.a).toEqual(Int32Array.of(5, 6));
    expect(back.a.buffer.byteLength).toBe(8);
    expect(back.b.buffer.byteLength).toBe(1);
  });

  it('refuses what it cannot keep, and bytes that are not an entry', () => {
    expect(() => encodeEntry({ f: () => 1 })).toThrow(/function/);
    expect(() => encodeEntry({ d: new Date(0) })).toThrow(/Date/);
    expect(() => encodeEntry({ o: { $a: 1 } })).toThrow(/\$a/);
    const bytes = encodeEntry({ a: Int32Array.of(1, 2, 3) });
    expect(() => decodeEntry(bytes.subarray(0, 6))).toThrow(/too short/);
    expect(() => decodeEntry(bytes.subarray(0, bytes.length - 4))).toThrow(/truncated/);
    const foreign = bytes.slice();
    foreign[0] = 0;
    expect(() => decodeEntry(foreign)).toThrow(/not an entry/);
  });
});
