/**
 * The object model: how an object, and free space, look in the heap's words.
 * Every other file reads these names instead of repeating the layout.
 *
 * An object's reference `a` is the address of its 4-word header (word offsets):
 *
 *          31 30 29                 7 6    2 1 0
 *         +--+--+--------------------+------+-+-+
 *   a+0   |0 |T |       unused       | age  |F|M|   status (STATUS_WORD)
 *         +--+--+--------------------+------+-+-+
 *   a+1   |            type id  (forwarded: the new address)            |   TYPE_WORD
 *   a+2   |   sable: number of reference words from a+4                 |   LAYOUT_WORD
 *         |   refgraph: the object's vertex id in its generation's graph|
 *   a+3   |   length of arrays and strings; 0 for instances             |   LENGTH_WORD
 *   a+4.. |   fields or array elements                                  |
 *
 *   M  STATUS_MARK: a marker may mark in the header (the mark bitmap is the
 *      result; the sweep clears the bit); one that does must OR it in.
 *   F  STATUS_FORWARDED: the object was evacuated; a+1 holds its new header, or,
 *      where the parallel copy forwarded it, the status word itself does: bit 31
 *      set, the new address in bits 2..30 (`forwardingStatus`; `forwardee` reads
 *      both forms).
 *   age  bits 2..6 (AGE_SHIFT, AGE_MASK): young collections survived.
 *   T  HEADER_TAG: always set, so a heap walker can tell a header from a sable
 *      lead word (a small positive count) or free space (negative).
 *
 * Sable (SableVM; Maas et al. section 4) has two sides:
 *
 *   start                     a                 a+4             a+4+refs
 *   | lead = a - start | scalars ... | header | ref ref ... ref |
 *
 * references right of the header, contiguous, counted in a+2, so a tracer reads
 * the header and then one run with no type lookup; scalar fields left of it,
 * preceded by the lead word (the number of words from the start to the header).
 * Instances without scalars have no left side. Refgraph (FastCollect section 3.1)
 * keeps fields in declaration order after the header and a+2 names the object's
 * vertex in heap/ref-graph.ts. Arrays are the same in both layouts: elements from
 * a+4, length in a+3, nothing left of the header; scalar arrays hold no
 * references (sable: a+2 = 0).
 *
 * Free space in tenured: a chunk is FREE_CHUNK followed by its size in words; a
 * lone free word is FREE_WORD.
 *
 * Where an object's reference slots are is answered once, by ref-slots.ts.
 */

/** Words in an object header. */
export const HEADER_WORDS = 4;
/** Header word offsets from the object's reference. */
export const STATUS_WORD = 0;
export const TYPE_WORD = 1;
export const LAYOUT_WORD = 2;
export const LENGTH_WORD = 3;
/** A forwarded header's type word holds the object's new address. */
export const FORWARD_WORD = TYPE_WORD;

/** Status bits (see the diagram). */
export const STATUS_MARK = 1;
export const STATUS_FORWARDED = 2;

/** Bit 31 of a status word that holds its object's new address (bits 2..30). */
const FORWARDED_IN_STATUS = 0x80000000 | 0;
/** Heaps whose every address fits a status word's forwarding form. */
export const MAX_STATUS_FORWARD_WORDS = 1 << 29;

export const AGE_SHIFT = 2;
export const AGE_MASK = 31;
/**
 * Always set in a header's status word. A heap walker meets, at an object's start,
 * either a header (tag set), a sable lead word (a small positive count, tag clear) or
 * a free chunk (negative), and must tell them apart without type information.
 */
export const HEADER_TAG = 0x40000000;

/** First word of a free chunk in tenured; the chunk's size in words follows. */
export const FREE_CHUNK = -1;
/** A one-word gap in tenured, too small to hold a chunk size. */
export const FREE_WORD = -2;

/** Type kinds in the type table (heap/layout.ts TypeTable); 0 is no type. */
export const KIND_INSTANCE = 1;
export const KIND_REF_ARRAY = 2;
/** int, bool and char arrays (strings): one word per element. */
export const KIND_WORD_ARRAY = 3;
export const KIND_FLOAT_ARRAY = 4;

// The functions come after every constant: esbuild inlines a module's constants into
// the bundle (scripts/bundle.mjs) only where they precede its first other statement.

/** The one-word forwarding header of an object moved to `na`: a thread installs
 *  it with one compare-and-exchange and leaves a+1 alone (gc/parallel/copy.ts). */
export function forwardingStatus(na: number): number {
  return FORWARDED_IN_STATUS | (na << 2) | STATUS_FORWARDED;
}

/** The new address a `forwardingStatus` word holds. */
export function statusForwardee(s: number): number {
  return (s & 0x7fffffff) >>> 2;
}

/** The new address of forwarded object `a`: from its status word's one-word form, else from a+1. */
export function forwardee(words: Int32Array, a: number): number {
  const s = words[a]!;
  return s < 0 ? statusForwardee(s) : words[a + FORWARD_WORD]!;
}

/** The age in a status word. */
export function ageOf(status: number): number {
  return (status >> AGE_SHIFT) & AGE_MASK;
}

/** A fresh header's status word for an object of `age` (saturating at AGE_MASK). */
export function statusWithAge(age: number): number {
  return HEADER_TAG | ((age > AGE_MASK ? AGE_MASK : age) << AGE_SHIFT);
}

/** The header address of the object whose first word (lead word or header) is at `p`. */
export function headerAt(words: Int32Array, p: number): number {
  const w = words[p]!;
  return (w & HEADER_TAG) !== 0 ? p : p + w;
}
