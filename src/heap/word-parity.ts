/**
 * Where to put words that are copied to or from shared memory.
 *
 * V8 copies between a SharedArrayBuffer and other memory (TypedArray `set`,
 * `copyWithin`) with relaxed atomic accesses: eight bytes at a time when source
 * and destination lie at the same address modulo 8, but a byte at a time when
 * they do not, which is about three times slower
 * (docs/decisions/s39-01-word-parity-of-shared-copies.md). Backing stores, V8's
 * and Dawn's mapped ranges alike, start 8-byte aligned, so a copy of 4-byte
 * words runs at full speed exactly when its first source and destination words
 * have the same parity, counted from the start of their buffers.
 */

/** The word index of element `i` of `a`, counted from the start of its buffer. */
export function bufferWord(a: ArrayBufferView, i: number): number {
  return (a.byteOffset >>> 2) + i;
}

/** `at`, or the next word, whichever has the parity of buffer word `other`: where
 *  to stage words that will be copied to or from `other`. */
export function atParityOf(at: number, other: number): number {
  return at + ((at ^ other) & 1);
}
