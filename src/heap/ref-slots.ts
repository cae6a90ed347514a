/**
 * The one reference-slot scanner: which words of an object hold references.
 * Every tracer, evacuator, verifier and remembered-set walk asks it, as clox's
 * `blackenObject` and mmtk's `scan_object` are asked, so the rule lives here.
 *
 * It answers in the two forms a hot loop reads without allocating or calling a
 * closure per object:
 *  - a run: the references are the words [a + HEADER_WORDS, runEnd(a)). Every
 *    sable object (a+2 counts them) and every array in either layout;
 *  - offsets: runEnd(a) is SCATTERED and the references are the words
 *    a + refOffsets[j] for j in [refBegin[t], refBegin[t] + refCount[t]), t the type id, in
 *    edge order. Refgraph instances, whose fields keep declaration order.
 * A hot loop takes the tables into locals once (`view()`), since a call in the
 * loop (growing a stack) would make the engine reload every field:
 *
 *   const { contiguous, kind, refBegin, refCount, refOffsets } = slots.view();
 *   const end = refRunEnd(words, kind, contiguous, a);
 *   if (end !== SCATTERED) for (let s = a + HEADER_WORDS; s < end; s++) use(s);
 *   else for (let j = refBegin[t], e = j + refCount[t]; j < e; j++) use(a + refOffsets[j]);
 *
 * The hottest loops (serial mark and copy) also bind the imported names they use
 * per object (HEADER_WORDS, SCATTERED, ...) to locals and compute a sable run end
 * themselves, calling `refRunEnd` for refgraph objects only: V8 reads an imported
 * binding from its module's cell, with a check, at every use.
 *
 * Both forms list the slots in edge order (the refgraph edge index is the
 * ordinal), so `slot(a, j)` and the graph agree.
 */

import { HEADER_WORDS, KIND_INSTANCE, KIND_REF_ARRAY, LAYOUT_WORD, LENGTH_WORD, TYPE_WORD } from './object-model.js';

/** `runEnd`'s answer for an object whose references sit at its type's offsets. */
export const SCATTERED = -1;

/** The per-type tables the scanner reads (heap/layout.ts TypeTable has them;
 *  a worker thread may pass copies). Read afresh each call: the type table
 *  replaces its arrays when it grows. */
export interface RefTables {
  readonly kind: Uint8Array | Int32Array;
  readonly refBegin: Int32Array;
  readonly refCount: Int32Array;
  readonly refOffsets: Int32Array;
}

/** The run form for a sable heap, which needs no type table: the end of the
 *  references that follow the header of the object at `a`. */
export function sableRunEnd(words: Int32Array, a: number): number {
  return a + HEADER_WORDS + words[a + LAYOUT_WORD]!;
}

/** The end of the run of reference slots of the object at `a`, which starts at
 *  a + HEADER_WORDS; SCATTERED when they sit at its type's offsets. `kind` is
 *  the type table's kinds, `contiguous` the layout's (see `RefSlots`). */
export function refRunEnd(words: Int32Array, kind: RefTables['kind'], contiguous: boolean, a: number): number {
  if (contiguous) return a + HEADER_WORDS + words[a + LAYOUT_WORD]!;
  const k = kind[words[a + TYPE_WORD]!];
  if (k === KIND_INSTANCE) return SCATTERED;
  return a + HEADER_WORDS + (k === KIND_REF_ARRAY ? words[a + LENGTH_WORD]! : 0);
}

/** The scanner's tables as of now, for a hot loop's locals. */
export interface RefSlotsView extends RefTables {
  readonly contiguous: boolean;
}

export class RefSlots {
  constructor(
    readonly tables: RefTables,
    /** Sable: a+2 counts the references, which follow the header in one run. */
    readonly contiguous: boolean,
  ) {}

  /** The end of the object's run of reference slots, which starts at
   *  a + HEADER_WORDS; SCATTERED when they sit at its type's offsets. */
  runEnd(words: Int32Array, a: number): number {
    return refRunEnd(words, this.tables.kind, this.contiguous, a);
  }

  /** The tables as of now (the type table replaces its arrays when it grows; no
   *  type is added during a collection). */
  view(): RefSlotsView {
    const t = this.tables;
    return { contiguous: this.contiguous, kind: t.kind, refBegin: t.refBegin, refCount: t.refCount, refOffsets: t.refOffsets };
  }

  /** The number of references (refgraph edges) of the object at `a`. */
  refCount(words: Int32Array, a: number): number {
    const end = this.runEnd(words, a);
    return end === SCATTERED ? this.tables.refCount[words[a + TYPE_WORD]!]! : end - a - HEADER_WORDS;
  }

  /** The address of reference number `j` (< refCount) of the object at `a`. */
  slot(words: Int32Array, a: number, j: number): number {
    if (this.runEnd(words, a) !== SCATTERED) return a + HEADER_WORDS + j;
    const t = words[a + TYPE_WORD]!;
    return a + this.tables.refOffsets[this.tables.refBegin[t]! + j]!;
  }

  /** The reference number of slot `s` of the object at `a`, or -1. */
  indexOf(words: Int32Array, a: number, s: number): number {
    const end = this.runEnd(words, a);
    if (end !== SCATTERED) return s >= a + HEADER_WORDS && s < end ? s - a - HEADER_WORDS : -1;
    const t = words[a + TYPE_WORD]!;
    const b = this.tables.refBegin[t]!;
    const n = this.tables.refCount[t]!;
    const offsets = this.tables.refOffsets;
    for (let j = 0; j < n; j++) if (a + offsets[b + j]! === s) return j;
    return -1;
  }

  /** Calls `visit` with each reference slot of the object at `a`, in edge order.
   *  For cold paths (verification); hot loops use the two forms above. */
  forEach(words: Int32Array, a: number, visit: (slot: number) => void): void {
    const end = this.runEnd(words, a);
    if (end !== SCATTERED) {
      for (let s = a + HEADER_WORDS; s < end; s++) visit(s);
      return;
    }
    const t = words[a + TYPE_WORD]!;
    const offsets = this.tables.refOffsets;
    const b = this.tables.refBegin[t]!;
    const e = b + this.tables.refCount[t]!;
    for (let j = b; j < e; j++) visit(a + offsets[j]!);
  }
}
