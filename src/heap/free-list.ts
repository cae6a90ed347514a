/**
 * The tenured free-list allocator: circular first-fit ("next-fit").
 *
 * Vinkler and Havran's CMalloc (seed paper "Register Efficient Memory Allocator for
 * GPUs", section 3) searches a circular list of chunks from where the last search
 * stopped; we do the same on the CPU. The chunks are kept in two typed arrays
 * (start, size) rather than threaded through the heap, so that chunks of any size
 * need no link words, and the heap itself only has to stay parseable: every free
 * chunk begins with FREE_CHUNK followed by its size, a lone free word is FREE_WORD.
 *
 * An allocation carves the request off the front of the first chunk (from the rover)
 * that is large enough; the remainder stays in the list in place. A sweep rebuilds
 * the list in address order with adjacent free space coalesced. A failed search
 * lowers `largestHint`, so that the next request larger than any chunk fails without
 * another full circle.
 */

import { FREE_CHUNK, FREE_WORD } from './object-model.js';

/** Chunks smaller than the smallest object (a bare header) are never listed. */
export const MIN_CHUNK_WORDS = 4;

export class FreeList {
  private starts = new Int32Array(1024);
  private sizes = new Int32Array(1024);
  private count = 0;
  private rover = 0;
  /** An upper bound on the largest listed chunk. */
  private largestHint = 0;
  /** Total free words in tenured, listed or not. */
  freeWords = 0;
  /** The end of the highest space ever allocated: no object lies above it. */
  top = 0;

  constructor(private readonly words: Int32Array) {}

  /** Forgets every chunk (before a sweep rebuilds the list). */
  reset(): void {
    this.count = 0;
    this.rover = 0;
    this.largestHint = 0;
    this.freeWords = 0;
  }

  /** Writes a free block over [start, start + size) and lists it if it is usable. */
  addFree(start: number, size: number): void {
    writeFreeBlock(this.words, start, size);
    this.freeWords += size;
    if (size < MIN_CHUNK_WORDS) return;
    if (this.count === this.starts.length) {
      const s = new Int32Array(this.count * 2);
      s.set(this.starts);
      this.starts = s;
      const z = new Int32Array(this.count * 2);
      z.set(this.sizes);
      this.sizes = z;
    }
    this.starts[this.count] = start;
    this.sizes[this.count] = size;
    this.count++;
    if (size > this.largestHint) this.largestHint = size;
  }

  /**
   * Returns [start, start + size), the unused end of an allocation, to the list:
   * joined to the chunk it was carved from when that chunk still begins right
   * after it (the parallel collector's promotion reserve), else listed anew.
   * Returns the end of the free block that now begins at `start`, for the block
   * offset table (CardTable.recordJoined: the joined chunk's old start is no block now).
   */
  giveBack(start: number, size: number): number {
    const i = this.rover;
    if (i < this.count && this.starts[i] === start + size) {
      const total = size + this.sizes[i]!;
      this.starts[i] = start;
      this.sizes[i] = total;
      writeFreeBlock(this.words, start, total);
      this.freeWords += size;
      if (total > this.largestHint) this.largestHint = total;
      return start + total;
    }
    this.addFree(start, size);
    return start + size;
  }

  /** Allocates `size` words; returns their start, or 0 when no chunk is large enough. */
  alloc(size: number): number {
    if (size > this.largestHint) return 0;
    const starts = this.starts;
    const sizes = this.sizes;
    const n = this.count;
    let i = this.rover;
    let largest = 0;
    for (let k = 0; k < n; k++) {
      const sz = sizes[i]!;
      if (sz >= size) {
        const s = starts[i]!;
        const rest = sz - size;
        starts[i] = s + size;
        sizes[i] = rest;
        writeFreeBlock(this.words, s + size, rest);
        this.freeWords -= size;
        this.rover = i;
        if (s + size > this.top) this.top = s + size;
        return s;
      }
      if (sz > largest) largest = sz;
      if (++i === n) i = 0;
    }
    this.largestHint = largest;
    return 0;
  }

  /** The listed chunks as [start, size] pairs. */
  chunks(): Array<[number, number]> {
    const out: Array<[number, number]> = [];
    for (let i = 0; i < this.count; i++) {
      if (this.sizes[i]! >= MIN_CHUNK_WORDS) out.push([this.starts[i]!, this.sizes[i]!]);
    }
    return out;
  }
}

/** Marks [start, start + size) as free space that a heap walker can step over. */
export function writeFreeBlock(words: Int32Array, start: number, size: number): void {
  if (size >= 2) {
    words[start] = FREE_CHUNK;
    words[start + 1] = size;
  } else if (size === 1) {
    words[start] = FREE_WORD;
  }
}
