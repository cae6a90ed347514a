/**
 * The boundary between the interpreter (vm/) and memory management (heap/, gc/).
 *
 * The interpreter sees only this file: it allocates through `Heap`, reads and writes
 * the heap's words directly at offsets the layout gave it, stores references through
 * `writeRef` (the write barrier), and exposes its roots through `RootProvider`. It
 * never imports a collector: the CLI picks one and hands it to the heap.
 */

/** What a field or array element holds. `float` takes two words, the rest one. */
export type FieldKind = 'ref' | 'int' | 'bool' | 'float';

/** A float's two words hold its 8 bytes in the platform's byte order (what a
 *  Float64Array over them reads); `Heap.floats` is read with this flag. */
export const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Where a class's instances keep each field; computed by the layout at class definition. */
export interface ClassShape {
  readonly typeId: number;
  /** Word offset of each field (all fields, inherited first) relative to the object reference. */
  readonly offsets: readonly number[];
  /** For ref fields: ordinal among the instance's references (the refgraph edge index); -1 for scalars. */
  readonly edgeIndex: readonly number[];
}

/** The interpreter's roots. The collector may rewrite the slots (objects move). */
export interface RootProvider {
  /** Calls `visit` for every array of root slots with the live range [from, to). */
  visitRoots(visit: (slots: Int32Array, from: number, to: number) => void): void;
}

/** Thrown by allocation when the heap is still full after a full collection. */
export class OutOfMemoryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutOfMemoryError';
  }
}

/** What a store of a scalar word into the heap must tell a copy kept elsewhere
 *  (heap/mirror-log.ts MirrorLog). */
export interface ScalarStoreLog {
  noteScalar(slot: number): void;
}

export interface Heap {
  /** The whole heap, 32-bit words; a reference is a word offset, 0 is null. Never reallocated. */
  readonly words: Int32Array;
  /** The same memory as bytes: a float at word `a` is `floats.getFloat64(a * 4, LITTLE_ENDIAN)`. */
  readonly floats: DataView;
  /** Word offset of an array's or string's first element relative to its reference. */
  readonly arrayDataOffset: number;
  /** Word offset of the type id word relative to a reference (same for every object). */
  readonly typeWordOffset: number;
  /** Word offset of the length word of arrays and strings relative to a reference. */
  readonly lengthWordOffset: number;

  /** Registers a class; `fields` are all fields, inherited first. */
  defineClass(name: string, fields: readonly FieldKind[]): ClassShape;
  /** Registers an array type (one per distinct source type, e.g. `Node[]`, `int[][]`). */
  defineArray(name: string, elem: FieldKind): number;
  /** The type id of strings (an array of char codes, one word each). */
  readonly stringTypeId: number;
  typeName(typeId: number): string;

  /**
   * Allocates a zeroed instance, or returns 0 when the heap must collect first. Never
   * collects itself: collections may wait on the GPU, which Node only offers
   * asynchronously, so the interpreter unwinds to its driver, which awaits
   * `collectPending()` and then re-executes the allocating instruction (allocating
   * instructions are restartable). Throws OutOfMemoryError when the allocation still
   * fails right after a full collection.
   */
  allocInstance(shape: ClassShape): number;
  /** As allocInstance, for an array (or a string, with `stringTypeId`) of `length` elements. */
  allocArray(typeId: number, length: number): number;
  /** True when a collection is pending (a failed allocation, `--gc-stress`, gc()/minorGc()). */
  readonly collectionPending: boolean;
  /** Runs the pending collection (young, or full as the policy decides). */
  collectPending(): Promise<void>;

  /** Stores reference `value` into word `obj + offset`; `edge` is the field's edge index
   *  (for arrays: the element index). Dirties the card / writes the refgraph edge. */
  writeRef(obj: number, offset: number, edge: number, value: number): void;
  readFloat(addr: number): number;
  writeFloat(addr: number, value: number): void;
  /** The change log of a copy of the heap that the collector keeps (GPU collectors),
   *  or null: a scalar the mutator stores straight into `words` is noted there. */
  readonly mirror: ScalarStoreLog | null;

  setRoots(roots: RootProvider): void;
  /** `gc()` and `minorGc()` from programs: makes a collection pending; the interpreter
   *  then yields to its driver as for a failed allocation. */
  requestCollection(kind: 'young' | 'full', cause: string): void;
}
