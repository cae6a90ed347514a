// The type table's reference table (heap/layout.ts TypeTable.refTable), which a GPU
// evacuation of a refgraph heap reads to find each copy's references
// (gpu/kernels/refs-refgraph.wgsl): read here as that kernel reads it, it must
// name the same slots as the one reference-slot scanner (heap/ref-slots.ts), for
// instances with references among scalars, arrays of references and scalar arrays.
import { describe, expect, it } from 'vitest';
import { createHeap } from '../../src/heap/heap.js';
import { REFS_RUN } from '../../src/heap/layout.js';
import { allocArray, alloc } from '../gc/helpers.js';

/** The slots of the object at `a` as refs-refgraph.wgsl finds them. */
function slotsByTable(table: Uint32Array, words: Int32Array, a: number): number[] {
  const e = table[Math.min(words[a + 1]!, table[0]! - 1)]!;
  const n = e === REFS_RUN ? words[a + 3]! : table[e]!;
  const out: number[] = [];
  for (let j = 0; j < n; j++) out.push(e === REFS_RUN ? a + 4 + j : a + table[e + 1 + j]!);
  return out;
}

describe('the reference table', () => {
  it('names the scanner\'s slots for every kind of object, and grows with the types', async () => {
    const heap = createHeap({ heapBytes: 1 << 20, layout: 'refgraph' });
    const pair = heap.defineClass('Pair', ['int', 'ref', 'float', 'ref']);
    const leaf = heap.defineClass('Leaf', ['int', 'int']);
    const refs = heap.defineArray('Pair[]', 'ref');
    const ints = heap.defineArray('int[]', 'int');
    const first = heap.types.refTable();
    expect(first[0]).toBe(heap.types.count);
    const objects = [await alloc(heap, pair), await alloc(heap, leaf), await allocArray(heap, refs, 5), await allocArray(heap, ints, 3)];
    // A type defined after the table was made makes a new one.
    const late = heap.defineClass('Late', ['ref', 'int', 'ref', 'ref']);
    objects.push(await alloc(heap, late));
    const table = heap.types.refTable();
    expect(table).not.toBe(first);
    expect(table[0]).toBe(heap.types.count);
    expect(heap.types.refTable()).toBe(table);
    const counts: number[] = [];
    for (const a of objects) {
      const want: number[] = [];
      heap.refSlots.forEach(heap.words, a, (s) => want.push(s));
      expect(slotsByTable(table, heap.words, a), heap.types.names[heap.words[a + 1]!]).toEqual(want);
      counts.push(want.length);
    }
    expect(counts).toEqual([2, 0, 5, 0, 3]);
  });
});
