/**
 * Word copies at memcpy's speed, shared memory included.
 *
 * V8 copies to, from or inside a SharedArrayBuffer (TypedArray `set`,
 * `copyWithin`) with relaxed atomic accesses, a word at a time, where it copies
 * plain memory with memcpy. Node's `Buffer.prototype.fill`, given a Uint8Array
 * exactly as long as the range it fills, copies it there with one memcpy,
 * whatever memory either lies in (docs/decisions/s60-01-native-copy-into-the-heap.md).
 * A memcpy makes no promise to a thread reading the bytes meanwhile, so this is
 * for copies nobody reads until an atomic operation after them (a collector's
 * writes during a pause, a streamed block published with `Atomics.store`) and
 * for reads of words nobody writes meanwhile (staging while the program waits).
 */

const fill = Buffer.prototype.fill;

/** Below this many words the two views a native copy makes cost more than they save. */
export const NATIVE_COPY_MIN_WORDS = 1024;

/** A view of 4-byte words. */
type Words = Uint32Array | Int32Array;

/** Whether `n` words at byte `a` and at byte `b` of the same memory overlap. One
 *  comparison, not two joined by `&&`: a collection that copies downwards, which
 *  the warm-up's never do, would otherwise reach a second comparison that V8
 *  compiled without type feedback, and throw the copy's optimized code away. */
export const overlaps = (a: number, b: number, n: number): boolean => Math.abs(a - b) < n * 4;

/** Copies `src`'s words [from, from + n) to `dst` at word `at`, as
 *  `dst.set(src.subarray(from, from + n), at)` would for a range inside both
 *  views (it throws on any other); natively when the copy is large and its ends
 *  do not overlap (memcpy may not overlap them; `set` copies overlapping ranges right). */
export function copyWordsInto(dst: Words, at: number, src: Words, from: number, n: number): void {
  if (at < 0 || from < 0 || n < 0 || at + n > dst.length || from + n > src.length) {
    throw new RangeError(`word copy of ${n} out of range: from ${from} of ${src.length} to ${at} of ${dst.length}`);
  }
  const toByte = dst.byteOffset + at * 4;
  const fromByte = src.byteOffset + from * 4;
  if (n < NATIVE_COPY_MIN_WORDS || (dst.buffer === src.buffer && overlaps(toByte, fromByte, n))) {
    dst.set(src.subarray(from, from + n), at);
    return;
  }
  const bytes = n * 4;
  fill.call(new Uint8Array(dst.buffer, toByte, bytes) as Buffer, new Uint8Array(src.buffer, fromByte, bytes), 0, bytes);
}
