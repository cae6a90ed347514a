/**
 * Test helpers: a heap with a root array, and an allocation driver that does what
 * the interpreter's driver does (collect when allocation returns 0, then retry).
 */

import type { ClassShape, RootProvider } from '../../src/heap/api.js';
import { createHeap, type HeapImpl } from '../../src/heap/heap.js';
import type { HeapOptions } from '../../src/heap/options.js';
import { onTestFinished } from 'vitest';
import { createCollector } from '../../src/gc/index.js';
import { ParallelMarker } from '../../src/gc/parallel-marker.js';
import { ctlWords, DEQ_CAP, DEQ_STRIDE, STATS_WORDS, type PoolBuffers } from '../../src/gc/parallel/shared.js';

/** Root slots backed by an Int32Array, as the interpreter's reference stack would be. */
export class RootArray implements RootProvider {
  readonly slots: Int32Array;
  count = 0;
  constructor(capacity = 1024) {
    this.slots = new Int32Array(capacity);
  }
  visitRoots(visit: (slots: Int32Array, from: number, to: number) => void): void {
    visit(this.slots, 0, this.count);
  }
  /** Appends a root; returns its slot index. */
  push(a: number): number {
    this.slots[this.count] = a;
    return this.count++;
  }
  get(i: number): number {
    return this.slots[i]!;
  }
}

export function makeHeap(
  options: HeapOptions = {},
  collector = 'serial',
): { heap: HeapImpl; roots: RootArray } {
  const heap = createHeap({ heapBytes: 256 * 1024, ...options });
  const roots = new RootArray();
  heap.setRoots(roots);
  createCollector(collector, heap);
  return { heap, roots };
}

/**
 * A heap collected by a prepared parallel marker of `threads` threads, whose
 * workers are stopped when the calling test finishes.
 */
export async function makeParallelHeap(
  threads: number,
  options: HeapOptions,
  rootCapacity?: number,
): Promise<{ heap: HeapImpl; roots: RootArray; marker: ParallelMarker }> {
  const heap = createHeap(options);
  const roots = new RootArray(rootCapacity);
  heap.setRoots(roots);
  const marker = new ParallelMarker(heap, threads);
  onTestFinished(() => marker.dispose());
  createCollector('parallel', heap, { marker });
  await marker.prepare();
  return { heap, roots, marker };
}

/** Allocates an instance, collecting as often as the heap asks. */
export async function alloc(heap: HeapImpl, shape: ClassShape): Promise<number> {
  for (;;) {
    const a = heap.allocInstance(shape);
    if (a !== 0) return a;
    await heap.collectPending();
  }
}

export async function allocArray(heap: HeapImpl, typeId: number, length: number): Promise<number> {
  for (;;) {
    const a = heap.allocArray(typeId, length);
    if (a !== 0) return a;
    await heap.collectPending();
  }
}

/** Requests a collection of `kind` and runs it. */
export async function collect(heap: HeapImpl, kind: 'young' | 'full'): Promise<void> {
  heap.requestCollection(kind, kind === 'full' ? 'gc() call' : 'minorGc() call');
  await heap.collectPending();
}

/** Deterministic PRNG (the fuzzer's) so failures reproduce. */
export { rng } from '../../src/fuzz/generate.js';

/** Pool buffers for GC thread contexts driven by hand: control words, stats,
 *  deques and `outInts` result entries (the heap's buffers are token-sized). */
export function poolBuffers(threads: number, outInts: number): PoolBuffers {
  const sab = (ints: number) => new SharedArrayBuffer(4 * Math.max(1, ints));
  return {
    words: sab(16),
    ctl: sab(ctlWords(threads)),
    stats: sab(threads * STATS_WORDS),
    deqCtl: sab(2 * DEQ_STRIDE * threads),
    deqBuf: sab(DEQ_CAP * threads),
    bitmap: sab(16),
    roots: sab(16),
    ranges: sab(16),
    pieces: sab(16),
    out: sab(outInts),
    tails: sab(16),
    kind: sab(16),
    left: sab(16),
    right: sab(16),
    refBegin: sab(16),
    refCount: sab(16),
    refOffsets: sab(16),
    cards: sab(16),
    blockStart: sab(16),
  };
}
