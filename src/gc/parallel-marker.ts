/**
 * The parallel CPU marker, the analogue of HotSpot's Parallel GC marking: the same
 * generational plan as `serial`, with the trace spread over worker threads
 * (node:worker_threads) that share the heap's SharedArrayBuffer and a shared mark
 * bitmap, marked with Atomics.or. Work is distributed through per-worker stacks that
 * give chunks to a shared queue when others are idle, with a termination protocol
 * that is correct under any interleaving (parallel-worker.ts explains both).
 *
 * Workers start lazily on the first mark and are reused; `mark` posts the request to
 * every worker and awaits their completion messages, which carry each worker's live
 * young objects. The type table is copied into SharedArrayBuffers once and again
 * whenever types were defined since. Between collections the workers are unref'd,
 * so a forgotten `dispose` cannot keep the process alive; `dispose` terminates them.
 */

import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { HeapImpl } from '../heap/heap.js';
import { KIND_INSTANCE, KIND_REF_ARRAY } from '../heap/layout.js';
import { HEAP_READER, type MarkRequest, type MarkResult, type Marker } from './marker.js';
import { PARALLEL_WORKER_SOURCE } from './parallel-worker.js';

const CHUNK = 256;
const MAXCHUNKS = 4096;
const ROOTCUR = 3;

/** The default number of marking threads: every available core, at least 2. */
export function defaultThreads(): number {
  return Math.max(2, availableParallelism());
}

interface Done {
  ok: boolean;
  live: Int32Array | null;
  scanned: number;
  error?: string;
}

function shareInt32(src: ArrayLike<number>, length: number): SharedArrayBuffer {
  const buf = new SharedArrayBuffer(Math.max(1, length) * 4);
  const a = new Int32Array(buf);
  for (let i = 0; i < length; i++) a[i] = src[i]!;
  return buf;
}

export class ParallelMarker implements Marker {
  readonly constraints = HEAP_READER;
  readonly name = 'parallel';
  readonly threads: number;
  private readonly bitmap: Uint32Array;
  private readonly ctl = new Int32Array(new SharedArrayBuffer(16 * 4));
  private readonly queue = new SharedArrayBuffer(CHUNK * MAXCHUNKS * 4);
  private readonly qlen = new SharedArrayBuffer(MAXCHUNKS * 4);
  private roots = new Int32Array(new SharedArrayBuffer(4096 * 4));
  private live = new Int32Array(4096);
  private workers: Worker[] | null = null;
  /** Objects each worker scanned in the last mark that used the workers (load balance). */
  lastScanned: number[] = [];
  /** Types count and refOffsets array the workers last received. */
  private sharedTypes = -1;
  private sharedOffsets: Int32Array | null = null;
  private rootsSent = false;
  private pending: { resolve: (d: Done[]) => void; reject: (e: Error) => void; got: Done[] } | null = null;

  constructor(private readonly heap: HeapImpl, threads?: number) {
    this.threads = Math.max(1, Math.floor(threads ?? defaultThreads()));
    this.bitmap = new Uint32Array(new SharedArrayBuffer(((heap.words.length + 31) >>> 5) * 4));
  }

  private start(): Worker[] {
    const workers: Worker[] = [];
    for (let id = 0; id < this.threads; id++) {
      const w = new Worker(PARALLEL_WORKER_SOURCE, {
        eval: true,
        workerData: {
          id,
          nworkers: this.threads,
          CHUNK,
          MAXCHUNKS,
          KIND_INSTANCE,
          KIND_REF_ARRAY,
          words: this.heap.words.buffer,
          bitmap: this.bitmap.buffer,
          ctl: this.ctl.buffer,
          queue: this.queue,
          qlen: this.qlen,
        },
      });
      w.on('message', (d: Done) => this.onDone(d));
      w.on('error', (e) => this.fail(e instanceof Error ? e : new Error(String(e))));
      w.on('exit', (code) => {
        if (this.workers === workers) this.fail(new Error(`parallel marker: worker exited (${code})`));
      });
      workers.push(w);
    }
    this.workers = workers;
    this.sharedTypes = -1;
    this.rootsSent = false;
    return workers;
  }

  private onDone(d: Done): void {
    const p = this.pending;
    if (p === null) return;
    if (!d.ok) {
      this.fail(new Error(`parallel marker: worker failed: ${d.error}`));
      return;
    }
    p.got.push(d);
    if (p.got.length === this.threads) {
      this.pending = null;
      p.resolve(p.got);
    }
  }

  /** A failed worker leaves the others unable to finish: drop them all. */
  private fail(e: Error): void {
    const p = this.pending;
    this.pending = null;
    this.terminate();
    p?.reject(e);
  }

  private terminate(): void {
    const ws = this.workers;
    this.workers = null;
    if (ws) for (const w of ws) void w.terminate();
  }

  /** The returned bitmap and live list belong to the marker until its next `mark`. */
  async mark(request: MarkRequest): Promise<MarkResult> {
    const t0 = performance.now();
    const heap = this.heap;
    const young = request.kind === 'young';
    const lo = young ? request.youngStart : 0;
    const hi = young ? request.youngEnd : heap.words.length;
    const bitmap = this.bitmap;
    bitmap.fill(0, lo >>> 5, (hi + 31) >>> 5);
    const rootCount = request.roots.length;
    if (rootCount === 0) {
      return { bitmap, times: { mark: performance.now() - t0 }, ...(young ? { live: this.live.subarray(0, 0) } : {}) };
    }
    let workers = this.workers;
    if (workers === null) {
      // Wait until every worker runs, so that the first trace is shared too. (Workers
      // are referenced from here to the end of the mark, so that the process waits.)
      workers = this.start();
      try {
        await Promise.all(workers.map((w) => new Promise((resolve, reject) => {
          w.once('online', resolve);
          w.once('error', reject);
          w.once('exit', (code) => reject(new Error(`parallel marker: worker exited (${code}) while starting`)));
        })));
      } catch (e) {
        this.terminate();
        throw e;
      }
    } else {
      for (const w of workers) w.ref();
    }
    if (rootCount > this.roots.length) {
      let len = this.roots.length;
      while (len < rootCount) len *= 2;
      this.roots = new Int32Array(new SharedArrayBuffer(len * 4));
      this.rootsSent = false;
    }
    this.roots.set(request.roots);
    const types = heap.types;
    let typesMsg: Record<string, SharedArrayBuffer> | undefined;
    if (!heap.layout.contiguousRefs && (types.count !== this.sharedTypes || types.refOffsets !== this.sharedOffsets)) {
      const refOffsetsUsed = types.refCount.subarray(0, types.count).reduce((m, c, t) => Math.max(m, types.refBegin[t]! + c), 0);
      typesMsg = {
        kind: shareInt32(types.kind, types.count),
        refBegin: shareInt32(types.refBegin, types.count),
        refCount: shareInt32(types.refCount, types.count),
        refOffsets: shareInt32(types.refOffsets, refOffsetsUsed),
      };
      this.sharedTypes = types.count;
      this.sharedOffsets = types.refOffsets;
    }
    const ctl = this.ctl;
    for (let i = 0; i < ctl.length; i++) Atomics.store(ctl, i, 0);
    Atomics.store(ctl, ROOTCUR, 0);
    const msg = {
      lo,
      hi,
      young,
      sable: heap.layout.contiguousRefs,
      rootCount,
      ...(this.rootsSent ? {} : { roots: this.roots.buffer }),
      ...(typesMsg ? { types: typesMsg } : {}),
    };
    this.rootsSent = true;
    const done = new Promise<Done[]>((resolve, reject) => {
      this.pending = { resolve, reject, got: [] };
    });
    try {
      for (const w of workers) w.postMessage(msg);
      const results = await done;
      this.lastScanned = results.map((r) => r.scanned);
      const times = { mark: performance.now() - t0 };
      if (!young) return { bitmap, times };
      let total = 0;
      for (const r of results) total += r.live!.length;
      if (total > this.live.length) {
        let len = this.live.length;
        while (len < total) len *= 2;
        this.live = new Int32Array(len);
      }
      let k = 0;
      for (const r of results) {
        this.live.set(r.live!, k);
        k += r.live!.length;
      }
      return { bitmap, times, live: this.live.subarray(0, total) };
    } finally {
      if (this.workers === workers) for (const w of workers) w.unref();
    }
  }

  dispose(): void {
    this.terminate();
  }
}
