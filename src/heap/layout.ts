/**
 * Object layouts and the type table.
 *
 * Every object has the 4-word header of object-model.ts at its reference `a`. A
 * layout decides where an instance's fields go relative to that header:
 *
 * - `sable` (SableVM, Gagnon & Hendren; Maas et al. section 4): reference fields
 *   right of the header, contiguous, their count in a+2; scalar fields left of the
 *   header after a lead word. Fields are placed in declaration order (inherited
 *   first), each ref at the next word right, each scalar at the next free words
 *   leftwards, so a field's offset depends only on the fields before it: a subclass
 *   keeps every inherited offset (super's scalars nearest the header, super's refs
 *   first).
 * - `refgraph` (FastCollect section 3.1): fields in declaration order after the
 *   header; a+2 holds the object's vertex id in its generation's reference graph
 *   (heap/ref-graph.ts), which tracers walk instead of the heap.
 *
 * The type table keeps, per type id, what heap walkers need in typed arrays (kind,
 * words left and right of the header, reference offsets), so that the collectors'
 * loops never touch a JavaScript object per heap object.
 */

import type { FieldKind } from './api.js';
import { HEADER_WORDS, KIND_FLOAT_ARRAY, KIND_INSTANCE, KIND_REF_ARRAY, LENGTH_WORD, TYPE_WORD } from './object-model.js';

/** `TypeTable.refTable`'s entry for an array of references. */
export const REFS_RUN = 0xffffffff;

export type LayoutName = 'sable' | 'refgraph';
export const LAYOUT_NAMES: readonly LayoutName[] = ['sable', 'refgraph'];

/** Where a layout puts an instance's fields. */
export interface FieldPlacement {
  /** Word offset of each field relative to the header. */
  readonly offsets: number[];
  /** Ordinal among the references for ref fields, -1 for scalars. */
  readonly edgeIndex: number[];
  /** Words left of the header (lead word + scalars); 0 when none. */
  readonly leftWords: number;
  /** Words right of the header. */
  readonly rightWords: number;
  /** Offsets of the reference fields, in edge order. */
  readonly refOffsets: number[];
}

export interface Layout {
  readonly name: LayoutName;
  /** True when a+2 holds the number of reference words at a+4.. (sable). */
  readonly contiguousRefs: boolean;
  /** True when the heap keeps a reference graph (refgraph). */
  readonly hasRefGraph: boolean;
  placeFields(fields: readonly FieldKind[]): FieldPlacement;
}

function fieldWords(kind: FieldKind): number {
  return kind === 'float' ? 2 : 1;
}

export const sableLayout: Layout = {
  name: 'sable',
  contiguousRefs: true,
  hasRefGraph: false,
  placeFields(fields) {
    const offsets: number[] = [];
    const edgeIndex: number[] = [];
    const refOffsets: number[] = [];
    let scalarWords = 0;
    for (const f of fields) {
      if (f === 'ref') {
        const off = HEADER_WORDS + refOffsets.length;
        edgeIndex.push(refOffsets.length);
        refOffsets.push(off);
        offsets.push(off);
      } else {
        // A float's two words end where the previous scalar began.
        scalarWords += fieldWords(f);
        offsets.push(-scalarWords);
        edgeIndex.push(-1);
      }
    }
    const leftWords = scalarWords === 0 ? 0 : scalarWords + 1; // + the lead word
    return { offsets, edgeIndex, leftWords, rightWords: refOffsets.length, refOffsets };
  },
};

export const refgraphLayout: Layout = {
  name: 'refgraph',
  contiguousRefs: false,
  hasRefGraph: true,
  placeFields(fields) {
    const offsets: number[] = [];
    const edgeIndex: number[] = [];
    const refOffsets: number[] = [];
    let next = HEADER_WORDS;
    for (const f of fields) {
      offsets.push(next);
      if (f === 'ref') {
        edgeIndex.push(refOffsets.length);
        refOffsets.push(next);
      } else {
        edgeIndex.push(-1);
      }
      next += fieldWords(f);
    }
    return { offsets, edgeIndex, leftWords: 0, rightWords: next - HEADER_WORDS, refOffsets };
  },
};

export function layoutByName(name: string): Layout {
  if (name === 'sable') return sableLayout;
  if (name === 'refgraph') return refgraphLayout;
  throw new Error(`unknown layout '${name}' (expected one of: ${LAYOUT_NAMES.join(', ')})`);
}

/**
 * Per-type facts in typed arrays, indexed by type id. Type id 0 is never used, so a
 * zeroed word in a header's type slot is recognisably wrong.
 */
/** The words an object of type `t` with `length` in its length word spans, by
 *  the size rules (`TypeTable.sizeRules`); its left words are `rules[4 * t]`. A
 *  forwarded object's type word holds its new address, so callers pass `t`. */
export function wordsByRule(rules: Int32Array, t: number, length: number): number {
  return rules[4 * t]! + rules[4 * t + 1]! + rules[4 * t + 2]! * length;
}

export class TypeTable {
  kind = new Uint8Array(64);
  /** Instances: words left of the header (lead + scalars); 0 for arrays. */
  left = new Int32Array(64);
  /** Instances: words right of the header. */
  right = new Int32Array(64);
  /** Instances: index of the first entry in `refOffsets` and the number of refs. */
  refBegin = new Int32Array(64);
  refCount = new Int32Array(64);
  refOffsets = new Int32Array(256);
  private refOffsetsUsed = 0;
  readonly names: string[] = [''];
  count = 1;

  private grow(): void {
    const n = this.kind.length * 2;
    const k = new Uint8Array(n);
    k.set(this.kind);
    this.kind = k;
    for (const f of ['left', 'right', 'refBegin', 'refCount'] as const) {
      const a = new Int32Array(n);
      a.set(this[f]);
      this[f] = a;
    }
  }

  add(name: string, kind: number, p?: FieldPlacement): number {
    if (this.count === this.kind.length) this.grow();
    const t = this.count++;
    this.names.push(name);
    this.kind[t] = kind;
    if (p !== undefined) {
      this.left[t] = p.leftWords;
      this.right[t] = p.rightWords;
      this.refBegin[t] = this.refOffsetsUsed;
      this.refCount[t] = p.refOffsets.length;
      while (this.refOffsetsUsed + p.refOffsets.length > this.refOffsets.length) {
        const a = new Int32Array(this.refOffsets.length * 2);
        a.set(this.refOffsets);
        this.refOffsets = a;
      }
      for (const off of p.refOffsets) this.refOffsets[this.refOffsetsUsed++] = off;
    }
    return t;
  }

  /**
   * Each type's size rule as 4 words (left, fixed, perElement, 0): an object of
   * that type spans [a - left, a - left + left + fixed + perElement * length),
   * with length at a+3. For a GPU copy of the heap that moves objects itself
   * (gpu/mirror/replay.ts); the rule is the one `rightWords` and the evacuator use.
   */
  sizeTable(): Uint32Array {
    if (this.sizes.length === 4 * this.count) return this.sizes;
    const out = new Uint32Array(4 * this.count);
    for (let t = 1; t < this.count; t++) {
      const k = this.kind[t]!;
      // Arrays have left = right = 0 in the table; their elements are per-element words.
      out[4 * t] = this.left[t]!;
      out[4 * t + 1] = HEADER_WORDS + this.right[t]!;
      out[4 * t + 2] = k === KIND_INSTANCE ? 0 : k === KIND_FLOAT_ARRAY ? 2 : 1;
    }
    // The signed view is made with the table, so that sizeRules has no branch
    // that a collector warmed up on another heap never took.
    this.signedSizes = new Int32Array(out.buffer, out.byteOffset, out.length);
    return (this.sizes = out);
  }

  /** `sizeTable` as signed words, for the CPU's hot loops: the engine keeps
   *  Int32Array loads in small-integer arithmetic, where Uint32Array loads may
   *  turn a size computation into floating point. */
  sizeRules(): Int32Array {
    this.sizeTable();
    return this.signedSizes;
  }

  /**
   * Where each type's references are, for a GPU copy of a refgraph heap that
   * moves objects itself (gpu/kernels/refs-refgraph.wgsl): word 0 holds the
   * number of types (type 0 is never used); word t is REFS_RUN for an array of
   * references (its elements from a+4, as many as a+3 says), else the index e of
   * the type's reference count, table[e], followed by that many offsets from the
   * header in edge order (ref-slots.ts's two forms). Scalar arrays and strings
   * point at a count of 0.
   */
  refTable(): Uint32Array {
    if (this.refs.length > 0 && this.refsTypes === this.count) return this.refs;
    let words = this.count + 1;
    for (let t = 1; t < this.count; t++) if (this.kind[t] === KIND_INSTANCE) words += 1 + this.refCount[t]!;
    const out = new Uint32Array(words);
    // The shared empty entry: a count of 0 right after the types' words.
    const none = this.count;
    let e = none + 1;
    out[0] = this.count;
    for (let t = 1; t < this.count; t++) {
      const k = this.kind[t]!;
      if (k === KIND_REF_ARRAY) {
        out[t] = REFS_RUN;
      } else if (k === KIND_INSTANCE) {
        out[t] = e;
        const n = this.refCount[t]!;
        out[e++] = n;
        for (let j = 0; j < n; j++) out[e++] = this.refOffsets[this.refBegin[t]! + j]!;
      } else {
        out[t] = none;
      }
    }
    this.refsTypes = this.count;
    return (this.refs = out);
  }

  /** `refTable`'s last answer, and the type count it was made for. */
  private refs = new Uint32Array(0);
  private refsTypes = 0;

  /** `sizeTable`'s last answer; a new type makes it stale (its length tells). */
  private sizes = new Uint32Array(0);
  private signedSizes = new Int32Array(0);

  isValid(typeId: number): boolean {
    return typeId > 0 && typeId < this.count;
  }

  /** Words the object at `a` spans: left of its header, the header, and right of it. */
  objectWords(words: Int32Array, a: number): number {
    return this.left[words[a + TYPE_WORD]!]! + HEADER_WORDS + this.rightWords(words, a);
  }

  /** Words right of the header of the object at `a` (fields or array elements). */
  rightWords(words: Int32Array, a: number): number {
    return rightWordsBy(this.kind, this.right, words, a);
  }

  /** The words of the objects at `addresses[from .. to)`, together. */
  wordsOf(words: Int32Array, addresses: Int32Array, from: number, to: number): number {
    let n = 0;
    for (let i = from; i < to; i++) n += this.objectWords(words, addresses[i]!);
    return n;
  }
}

/** `TypeTable.rightWords` over the table's `kind` and `right` columns, for a
 *  thread that has copies of the columns but not the table. */
export function rightWordsBy(kind: ArrayLike<number>, right: ArrayLike<number>, words: Int32Array, a: number): number {
  const t = words[a + TYPE_WORD]!;
  const k = kind[t]!;
  if (k === KIND_INSTANCE) return right[t]!;
  const len = words[a + LENGTH_WORD]!;
  return k === KIND_FLOAT_ARRAY ? 2 * len : len;
}
