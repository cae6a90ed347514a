/**
 * Where to put words that are copied to or from shared memory.
 *
 * V8 copies between a SharedArrayBuffer and other memory (TypedArray `set`,
 * `copyWithin`) with relaxed atomic accesses: eight bytes at a time when source
 * and destination lie at the same address modulo 8, but a byte at a time when
 * they do not (docs/decisions/s39-01-word-parity-of-shared-copies.md). Backing stores, V8's
 * and Dawn's mapped ranges alike, start 8-byte aligned, so a copy of 4-byte
 * words runs at full speed exactly when its first source and destination words
 * have the same parity, counted from the start of their buffers. Large copies
 * go through one memcpy instead (native-copy.ts), at any parity.
 */

import { copyWordsInto, NATIVE_COPY_MIN_WORDS, overlaps } from './native-copy.js';

/** The word index of element `i` of `a`, counted from the start of its buffer. */
export function bufferWord(a: ArrayBufferView, i: number): number {
  return (a.byteOffset >>> 2) + i;
}

/** `at`, or the next word, whichever has the parity of buffer word `other`: where
 *  to stage words that will be copied to or from `other`. */
export function atParityOf(at: number, other: number): number {
  return at + ((at ^ other) & 1);
}

/** Copies at different parities shorter than this go a word at a time: staging them costs more. */
const STAGE_MIN_WORDS = 256;
/** Plain memory a staged copy passes through, grown as needed (one per isolate). */
let scratch = new Int32Array(0);

/**
 * `words.copyWithin(dst, src, src + n)` at full speed in shared memory: a large
 * copy whose ends do not overlap is one memcpy; otherwise, when the two ends
 * differ in parity, a large copy goes out to plain memory at the source's
 * parity, moves there to the destination's (plain memory copies fast at any
 * alignment), and comes back in.
 */
export function copyWords(words: Int32Array, dst: number, src: number, n: number): void {
  const d = bufferWord(words, dst);
  const s = bufferWord(words, src);
  if (n >= NATIVE_COPY_MIN_WORDS && !overlaps(4 * dst, 4 * src, n)) {
    copyWordsInto(words, dst, words, src, n);
  } else if (((d ^ s) & 1) === 0 || !(words.buffer instanceof SharedArrayBuffer)) {
    words.copyWithin(dst, src, src + n);
  } else if (n < STAGE_MIN_WORDS) {
    if (dst > src && dst < src + n) for (let i = n - 1; i >= 0; i--) words[dst + i] = words[src + i]!;
    else for (let i = 0; i < n; i++) words[dst + i] = words[src + i]!;
  } else {
    if (scratch.length < n + 1) scratch = new Int32Array(Math.max(n + 1, 2 * scratch.length));
    const a = s & 1;
    const b = d & 1;
    scratch.set(words.subarray(src, src + n), a);
    scratch.copyWithin(b, a, a + n);
    words.set(scratch.subarray(b, b + n), dst);
  }
}
