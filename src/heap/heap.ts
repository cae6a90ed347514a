/**
 * The generational heap: one word-addressed Int32Array over a SharedArrayBuffer
 * (so a parallel collector's threads and the GPU can share the same words), split
 * into eden | survivor 0 | survivor 1 | tenured in that address order.
 *
 * Allocation bumps a pointer in eden; objects above the large-object threshold go
 * straight to tenured, which a circular first-fit free list serves (free-list.ts).
 * Allocation never collects: when it cannot be satisfied it records what collection
 * is needed and returns 0, and the interpreter's driver awaits `collectPending()`
 * (collections may wait on the GPU) and retries. The policy, as in HotSpot's serial
 * collector: eden full → young collection; tenured full → full collection; the
 * collector escalates a young collection whose promotions do not fit ("promotion
 * failed") to a full one; an allocation that fails right after a full collection
 * throws OutOfMemoryError. With a mirror log whose copy takes eden ahead of the
 * collection (mirror-log.ts `setEdenUpload`), the allocation that grows eden by a
 * step starts an upload and goes on.
 *
 * `HeapImpl` exposes its spaces and tables as public fields for the collectors in
 * gc/; the interpreter sees only the `Heap` interface of api.ts.
 */

import {
  LITTLE_ENDIAN,
  OutOfMemoryError,
  type ClassShape,
  type FieldKind,
  type Heap,
  type RootProvider,
} from './api.js';
import { CARD_SHIFT, CardTable } from './card-table.js';
import type { Collector } from './collector.js';
import { FreeList } from './free-list.js';
import { TypeTable, layoutByName, type Layout } from './layout.js';
import {
  HEADER_TAG,
  HEADER_WORDS,
  KIND_FLOAT_ARRAY,
  KIND_INSTANCE,
  KIND_REF_ARRAY,
  KIND_WORD_ARRAY,
  LAYOUT_WORD,
  LENGTH_WORD,
  TYPE_WORD,
} from './object-model.js';
import { MirrorLog } from './mirror-log.js';
import { formatHeapSize, planSpaces, type HeapOptions, type SpacePlan } from './options.js';
import { RefGraph } from './ref-graph.js';
import { RefSlots } from './ref-slots.js';
import {
  accumulate,
  emptyStats,
  formatGcRecord,
  type CollectionKind,
  type GcRecord,
  type GcStats,
} from './telemetry.js';

const NO_ROOTS: RootProvider = { visitRoots() {} };

/** A class shape as handed to the interpreter, with the layout's extra facts. */
export interface InstanceShape extends ClassShape {
  readonly name: string;
  readonly leftWords: number;
  readonly rightWords: number;
}

// In rising order: a pending request is replaced only by a larger one.
const PENDING_NONE = 0;
const PENDING_YOUNG = 1;
const PENDING_FULL = 2;
/** The cause of `--gc-stress` collections. */
const STRESS_CAUSE = 'gc stress';

export class HeapImpl implements Heap {
  readonly words: Int32Array;
  readonly arrayDataOffset = HEADER_WORDS;
  readonly typeWordOffset = TYPE_WORD;
  readonly lengthWordOffset = LENGTH_WORD;
  readonly stringTypeId: number;

  readonly options: Readonly<HeapOptions>;
  readonly plan: Readonly<SpacePlan>;
  readonly layout: Layout;
  readonly types = new TypeTable();
  /** Where each object's reference slots are (the one scanner). */
  readonly refSlots: RefSlots;
  /** The reference graphs (refgraph layout), else null. */
  readonly graph: RefGraph | null;

  // Spaces, in words. Young is [youngStart, youngEnd) = eden + both survivors.
  readonly youngStart: number;
  readonly youngEnd: number;
  readonly edenStart: number;
  readonly edenEnd: number;
  edenTop: number;
  /** The survivor space holding objects ("from" at the next young collection). */
  fromStart: number;
  fromEnd: number;
  fromTop: number;
  /** The empty survivor space ("to" at the next young collection). */
  toStart: number;
  toEnd: number;
  readonly tenuredStart: number;
  readonly tenuredEnd: number;
  readonly cards: CardTable;
  readonly freeList: FreeList;
  readonly tenureAge: number;
  readonly largeObjectWords: number;

  roots: RootProvider = NO_ROOTS;
  collector: Collector | null = null;
  /** The collection under way: how long it waited for uploads ahead (`landUploads`),
   *  and how long the program waited for them since the last collection, ms. */
  private landedMs = 0;
  private aheadWaitMs = 0;
  /** The most recent collection's record. */
  lastRecord: GcRecord | null = null;
  private collections = 0;
  private readonly totals: GcStats;
  /** Words allocated in eden before its last reset, and outside eden: with eden's
   *  fill, the words allocated (counted so, the fast path keeps no counter). */
  private edenWordsBefore = 0;
  private otherWords = 0;
  /**
   * An eden allocation ending at or below this takes the fast path: no stress tick
   * and no upload due. The slow path sets it (to eden's end, or the mirror's next
   * upload ahead); a collection or an upload sets it to 0, so the next allocation
   * takes the slow path and looks again (and clears `afterFull`). 0 under --gc-stress.
   */
  private fastEnd = 0;

  private pending = PENDING_NONE;
  private pendingCause = '';
  /** Set by a full collection, cleared by the next successful allocation. */
  private afterFull = false;
  private readonly stressInterval: number;
  private stressCount = 0;
  private stressYoungCount = 0;
  /** The allocation after a stress collection (its retry) is exempt, or N = 1 never ends. */
  private stressRetry = false;

  /** The change log of a copy of the heap kept by the collector (a GPU
   *  marker's mirror), when it has one (`attachMirrorLog`). */
  mirror: MirrorLog | null = null;

  /** The words as bytes, for floats (two words each, in the platform's byte order):
   *  V8 compiles a DataView access to one load or store, where assembling the two
   *  words through a scratch Float64Array costs five. */
  readonly floats: DataView;

  constructor(options: HeapOptions = {}) {
    this.options = { ...options };
    const p = planSpaces(options);
    this.plan = p;
    this.layout = layoutByName(options.layout ?? 'sable');
    this.refSlots = new RefSlots(this.types, this.layout.contiguousRefs);
    this.words = new Int32Array(new SharedArrayBuffer(p.totalWords * 4));
    this.floats = new DataView(this.words.buffer);
    this.edenStart = p.edenStart;
    this.edenEnd = p.edenEnd;
    this.edenTop = p.edenStart;
    this.fromStart = p.survivor0Start;
    this.fromEnd = p.survivor0Start + p.survivorWords;
    this.fromTop = this.fromStart;
    this.toStart = p.survivor1Start;
    this.toEnd = p.survivor1Start + p.survivorWords;
    this.youngStart = p.edenStart;
    this.youngEnd = p.tenuredStart;
    this.tenuredStart = p.tenuredStart;
    this.tenuredEnd = p.tenuredEnd;
    this.tenureAge = p.tenureAge;
    this.largeObjectWords = p.largeObjectWords;
    this.cards = new CardTable(p.tenuredStart, p.tenuredEnd);
    this.freeList = new FreeList(this.words);
    this.freeList.addFree(p.tenuredStart, p.tenuredEnd - p.tenuredStart);
    this.stressInterval = options.gcStress ?? 0;
    this.totals = emptyStats(this.layout.name);
    this.graph = this.layout.hasRefGraph ? new RefGraph(this) : null;
    this.stringTypeId = this.types.add('string', KIND_WORD_ARRAY);
    // The fuzzer's planted bug (its test checks that it is found): swapped in here,
    // so that the write barrier costs nothing more when the switch is off.
    if (process.env['MINIVM_PLANT'] === 'skip-barrier') this.writeRef = plantedWriteRef;
  }

  // ------------------------------------------------------------------ types

  defineClass(name: string, fields: readonly FieldKind[]): InstanceShape {
    const p = this.layout.placeFields(fields);
    const typeId = this.types.add(name, KIND_INSTANCE, p);
    return {
      typeId,
      name,
      offsets: p.offsets,
      edgeIndex: p.edgeIndex,
      leftWords: p.leftWords,
      rightWords: p.rightWords,
    };
  }

  defineArray(name: string, elem: FieldKind): number {
    const kind = elem === 'ref' ? KIND_REF_ARRAY : elem === 'float' ? KIND_FLOAT_ARRAY : KIND_WORD_ARRAY;
    return this.types.add(name, kind);
  }

  typeName(typeId: number): string {
    return this.types.names[typeId] ?? `<bad type ${typeId}>`;
  }

  // ------------------------------------------------------------- allocation

  allocInstance(shape: ClassShape): number {
    const t = shape.typeId;
    const types = this.types;
    const left = types.left[t]!;
    const size = left + HEADER_WORDS + types.right[t]!;
    let start = this.edenTop;
    if (start + size <= this.fastEnd && size <= this.largeObjectWords) this.edenTop = start + size;
    else if ((start = this.allocSlow(size)) === 0) return 0;
    const words = this.words;
    clearWords(words, start, start + size);
    const a = start + left;
    if (left !== 0) words[start] = left; // the sable lead word
    words[a] = HEADER_TAG;
    words[a + TYPE_WORD] = t;
    words[a + LENGTH_WORD] = 0;
    const graph = this.graph;
    if (graph === null) words[a + LAYOUT_WORD] = types.refCount[t]!;
    else words[a + LAYOUT_WORD] = graph.addVertex(a, types.refCount[t]!);
    return a;
  }

  allocArray(typeId: number, length: number): number {
    const kind = this.types.kind[typeId];
    if (kind === undefined || kind === KIND_INSTANCE || kind === 0) {
      throw new TypeError(`allocArray: type ${typeId} (${this.typeName(typeId)}) is not an array type`);
    }
    if (!(length >= 0) || Math.floor(length) !== length) throw new RangeError(`allocArray: bad length ${length}`);
    // An array larger than the whole heap can never be allocated: no collection helps.
    if (length > this.words.length) throw this.outOfMemory();
    // A length read from the value stack (a Float64Array) may arrive as a double;
    // kept so, it would make the heap's counters doubles, and V8 would then throw
    // away every collector function optimized for the heap's earlier shape (s35-05).
    length |= 0;
    const size = HEADER_WORDS + (kind === KIND_FLOAT_ARRAY ? 2 * length : length);
    let a = this.edenTop;
    if (a + size <= this.fastEnd && size <= this.largeObjectWords) this.edenTop = a + size;
    else if ((a = this.allocSlow(size)) === 0) return 0;
    const words = this.words;
    clearWords(words, a, a + size);
    words[a] = HEADER_TAG;
    words[a + TYPE_WORD] = typeId;
    words[a + LENGTH_WORD] = length;
    const refs = kind === KIND_REF_ARRAY ? length : 0;
    const graph = this.graph;
    if (graph === null) words[a + LAYOUT_WORD] = refs;
    else words[a + LAYOUT_WORD] = graph.addVertex(a, refs);
    return a;
  }

  /**
   * The allocation path that looks at everything (the stress tick, an upload due, a
   * full eden, large objects): finds `size` words in eden (or tenured for large
   * objects) and returns their start, or records the collection needed and returns 0.
   * The caller zeroes them.
   */
  private allocSlow(size: number): number {
    this.fastEnd = 0;
    if (this.stressInterval !== 0 && this.stressTick()) return 0;
    let start: number;
    if (size <= this.largeObjectWords) {
      start = this.edenTop;
      const end = start + size;
      if (end > this.edenEnd) return this.fail(PENDING_YOUNG, 'eden full');
      if (this.mirror !== null && this.mirror.uploadDue(start, end)) this.mirror.uploadEden(start);
      this.edenTop = end;
      if (this.stressInterval === 0) this.fastEnd = this.mirror === null ? this.edenEnd : Math.min(this.edenEnd, this.mirror.nextUploadEnd());
    } else {
      start = this.freeList.alloc(size);
      if (start === 0) return this.fail(PENDING_FULL, 'tenured full');
      this.cards.recordBlock(start, start + size);
      if (this.mirror !== null) {
        this.mirror.noteWrite(start, start + size);
        this.mirror.noteTenuredObject(start, start + size);
      }
      this.otherWords += size;
    }
    this.afterFull = false;
    return start;
  }

  private allocatedWords(): number {
    return this.edenWordsBefore + this.edenTop - this.edenStart + this.otherWords;
  }

  /** The one out-of-memory error, naming the heap size and how to raise it. */
  outOfMemory(): OutOfMemoryError {
    return new OutOfMemoryError(
      `out of memory: heap of ${formatHeapSize(this.plan.heapBytes)} exhausted (raise it with --heap)`,
    );
  }

  private fail(kind: number, cause: string): number {
    if (this.afterFull || this.collector === null || !this.collector.collects) throw this.outOfMemory();
    this.setPending(kind, cause);
    return 0;
  }

  /** `--gc-stress`: true (with a collection pending) on every Nth allocation. */
  private stressTick(): boolean {
    if (this.stressRetry) {
      this.stressRetry = false;
      return false;
    }
    if (++this.stressCount < this.stressInterval) return false;
    if (this.collector === null || !this.collector.collects) return false;
    this.stressCount = 0;
    this.stressRetry = true;
    this.stressYoungCount++;
    this.setPending(this.stressYoungCount % 4 === 0 ? PENDING_FULL : PENDING_YOUNG, STRESS_CAUSE);
    return true;
  }

  private setPending(kind: number, cause: string): void {
    if (kind > this.pending) {
      this.pending = kind;
      this.pendingCause = cause;
    }
  }

  /**
   * Promotion: `size` words in tenured for a collector, or 0. Not an allocation by the
   * program, so it neither counts towards `--gc-stress` nor requests collections. The
   * collector records the copy as written in the mirror log, if any, unless the
   * mirror replays it.
   */
  allocTenured(size: number): number {
    const s = this.freeList.alloc(size);
    if (s !== 0) {
      this.cards.recordBlock(s, s + size);
      this.mirror?.noteTenuredObject(s, s + size);
    }
    return s;
  }

  /** Returns [start, start + size), the unused end of tenured space a collector
   *  took (a promotion reserve), to the free list and the block offset table. */
  giveBackTenured(start: number, size: number): void {
    this.cards.recordJoined(start, start + size, this.freeList.giveBack(start, size));
  }

  /** Waits until the mirror's copy has every upload ahead (before a collection whose
   *  moves it replays, and at the heap's end); the wait is the collection's under way. */
  async landUploads(): Promise<void> {
    const landing = this.mirror?.landUploads();
    if (!landing) return;
    this.landedMs += landing.blockedMs;
    await landing.done;
  }

  get collectionPending(): boolean {
    return this.pending !== PENDING_NONE;
  }

  async collectPending(): Promise<void> {
    if (this.pending === PENDING_NONE) return;
    const kind: CollectionKind = this.pending === PENDING_FULL ? 'full' : 'young';
    const cause = this.pendingCause;
    this.pending = PENDING_NONE;
    this.pendingCause = '';
    if (this.collector === null) return;
    this.aheadWaitMs = this.mirror?.takeAheadWaitMs() ?? 0;
    const done = await this.collector.collect(kind, cause);
    // A stress collection between a full one and its retry must not hide that the
    // full one made no room, or an object that never fits would loop.
    if (done === 'full' || cause !== STRESS_CAUSE) this.afterFull = done === 'full';
    // The collection moved the fast path's limit, and `afterFull` is cleared by the
    // next allocation: it takes the slow path.
    this.fastEnd = 0;
  }

  requestCollection(kind: 'young' | 'full', cause: string): void {
    if (this.collector === null || !this.collector.collects) return;
    this.setPending(kind === 'full' ? PENDING_FULL : PENDING_YOUNG, cause);
  }

  setRoots(roots: RootProvider): void {
    this.roots = roots;
  }

  setCollector(collector: Collector): void {
    this.collector = collector;
  }

  /**
   * The change log for a copy of the heap that the collector keeps (a GPU
   * marker's mirror); made on the first call, which comes before the first
   * allocation so that the log has seen every word the copy must take.
   */
  attachMirrorLog(): MirrorLog {
    if (this.mirror !== null) return this.mirror;
    if (this.allocatedWords() !== 0 || this.collections !== 0) {
      throw new Error('attachMirrorLog: the heap has already allocated');
    }
    return (this.mirror = new MirrorLog(this));
  }

  // ----------------------------------------------------------- field access

  writeRef(obj: number, offset: number, edge: number, value: number): void {
    const slot = obj + offset;
    this.words[slot] = value;
    // A filtering barrier: only old-to-young stores matter to a young collection.
    if (obj >= this.tenuredStart && value >= this.youngStart && value < this.youngEnd) {
      this.cards.cards[(slot - this.tenuredStart) >> CARD_SHIFT] = 1;
    }
    if (this.mirror !== null) this.mirror.noteStore(obj, slot);
    if (this.graph !== null) this.graph.writeEdge(obj, edge, value);
  }

  readFloat(addr: number): number {
    return this.floats.getFloat64(addr * 4, LITTLE_ENDIAN);
  }

  writeFloat(addr: number, value: number): void {
    this.floats.setFloat64(addr * 4, value, LITTLE_ENDIAN);
    if (this.mirror !== null) {
      this.mirror.noteScalar(addr);
      this.mirror.noteScalar(addr + 1);
    }
  }

  // ------------------------------------------------------------- accounting

  /** The occupied young spaces as [start, end) pairs: eden and the survivor in use. */
  youngRanges(): number[] {
    return [this.edenStart, this.edenTop, this.fromStart, this.fromTop];
  }

  /** Every range an object can lie in now, as [start, end) pairs: the occupied young
   *  spaces and tenured up to its highest allocation. */
  occupiedRanges(): number[] {
    return [...this.youngRanges(), this.tenuredStart, Math.max(this.tenuredStart, this.freeList.top)];
  }

  /** The cards a remembered-set walk looks at: those below the free list's top, since
   *  no object, and so no dirty card, lies above it; a program that promotes little
   *  has little of a large card table to look at. */
  cardsInUse(): number {
    return this.cards.cardsBelow(this.freeList.top);
  }

  /** The memory the program and every collection write besides the words (for
   *  `--pretouch`): the card table, its block offset table, and the reference graphs. */
  sideArrays(): Int32Array[] {
    const tables = [new Int32Array(this.cards.cards.buffer), this.cards.blockStart];
    return this.graph === null ? tables : [...tables, ...this.graph.arrays()];
  }

  /** The end of the words a full mark can find objects in: young and tenured up to
   *  the highest space it ever allocated. A marker clears its bitmap up to here. */
  get markedEnd(): number {
    return Math.max(this.youngEnd, this.freeList.top);
  }

  isYoung(addr: number): boolean {
    return addr >= this.youngStart && addr < this.youngEnd;
  }

  /** Words in use in the young generation: eden and the occupied survivor up to their tops. */
  youngUsedWords(): number {
    return this.edenTop - this.edenStart + (this.fromTop - this.fromStart);
  }

  /** Bytes in use: the young generation's, and tenured minus free. */
  usedBytes(): number {
    const tenured = this.tenuredEnd - this.tenuredStart - this.freeList.freeWords;
    return 4 * (this.youngUsedWords() + tenured);
  }

  capacityBytes(): number {
    return this.plan.heapBytes;
  }

  /** After an evacuation: the to-space becomes the occupied survivor, eden is
   *  empty. `mirrored`: the mirror replayed this evacuation itself (see
   *  MirrorLog.afterEvacuation). */
  flipSurvivors(toTop: number, mirrored = false): void {
    const s = this.fromStart;
    const e = this.fromEnd;
    this.fromStart = this.toStart;
    this.fromEnd = this.toEnd;
    this.fromTop = toTop;
    this.toStart = s;
    this.toEnd = e;
    this.edenWordsBefore += this.edenTop - this.edenStart;
    this.edenTop = this.edenStart;
    this.fastEnd = 0;
    this.mirror?.afterEvacuation(mirrored);
  }

  /** Called by the collector once per collection: totals and `--log-gc`. */
  recordCollection(r: GcRecord): void {
    if (this.landedMs > 0) r.landedMs = this.landedMs;
    if (this.aheadWaitMs > 0) r.aheadWaitMs = this.aheadWaitMs;
    this.landedMs = 0;
    this.aheadWaitMs = 0;
    this.lastRecord = r;
    accumulate(this.totals, r);
    this.options.logGc?.(formatGcRecord(r), r);
  }

  nextCollectionNumber(): number {
    return ++this.collections;
  }

  /** Totals for `--stats` (see telemetry.ts formatGcStats). */
  get stats(): GcStats {
    const s = this.totals;
    s.bytesAllocated = this.allocatedWords() * 4;
    if (this.graph !== null) {
      s.layout.graphBytes = this.graph.bytesInUse();
      s.layout.edgeWrites = this.graph.edgeWrites;
      s.layout.vertexAppends = this.graph.vertexAppends;
    }
    return s;
  }
}

/** Zeroes a new object's words: a loop for the usual few, as a call to fill costs more. */
function clearWords(words: Int32Array, start: number, end: number): void {
  if (end - start <= 16) for (let i = start; i < end; i++) words[i] = 0;
  else words.fill(0, start, end);
}

/** Creates a heap; attach a collector with gc/index.ts createCollector. */
export function createHeap(options: HeapOptions = {}): HeapImpl {
  return new HeapImpl(options);
}

/** `writeRef` without its card mark for every fifth old-to-young store (MINIVM_PLANT). */
let plantedStores = 0;
function plantedWriteRef(this: HeapImpl, obj: number, offset: number, edge: number, value: number): void {
  if (obj >= this.tenuredStart && value >= this.youngStart && value < this.youngEnd && ++plantedStores % 5 === 0) {
    this.words[obj + offset] = value;
    if (this.graph !== null) this.graph.writeEdge(obj, edge, value);
    return;
  }
  HeapImpl.prototype.writeRef.call(this, obj, offset, edge, value);
}
