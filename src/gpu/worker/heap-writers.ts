/**
 * Threads that write a device read-back into the shared heap beside the GPU
 * worker (docs/decisions/s38-01-read-back-written-by-several-threads.md).
 *
 * Only the GPU worker can read Dawn's mapping (Node copies a mapped buffer
 * posted to another thread). With writers, it stages the mapping, a block at a
 * time, into plain buffers that it transfers to the writer threads, and they
 * write the blocks into the heap in parallel, behind the staging. Segments are
 * queued with `copy` and are all in the heap when `flush` returns; with no
 * writers, `copy` writes at once.
 *
 * Staging costs the GPU worker about what writing the heap would (both are one
 * memcpy: heap/native-copy.ts), so a writer pays where one thread cannot take
 * the memory's bandwidth alone (docs/decisions/s60-01-native-copy-into-the-heap.md).
 * The GPU worker stages a share of the words and writes the rest into the heap
 * itself while the writers write what it staged, so that it does not wait for
 * them (docs/decisions/s58-03-device-thread-writes-a-share.md). The share
 * starts from the writer count and follows how long this thread waited in the
 * last write.
 *
 * A block holds segments one after another, each starting at its destination
 * word's parity (heap/word-parity.ts); its message lists them as (destination,
 * word, count, word in the block) quadruples. A writer hands the buffer back on
 * its port and then counts the block done in shared memory, so the GPU worker
 * can wait without its event loop (it is inside a device callback) and take
 * buffers back with receiveMessageOnPort.
 */

import { availableParallelism } from 'node:os';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { copyWordsInto } from '../../heap/native-copy.js';
import { atParityOf, bufferWord } from '../../heap/word-parity.js';
import { workerScript } from '../../heap/worker-script.js';
import { now } from '../../heap/clock.js';

/** Words of a staged block. */
export const BLOCK_WORDS = 1 << 19;
/** With the default writers, a write of fewer bytes is done at once by the
 *  device's thread: handing a block to a writer and waiting for it costs more
 *  than the copy. */
export const DIRECT_WRITE_BYTES = 1 << 20;
/** Blocks in flight per writer: one being written while the next is staged. */
const BLOCKS_PER_WRITER = 2;
/** How many times as fast this thread stages words (reads a mapping into plain
 *  memory) as a thread writes them into shared memory: both are one memcpy. */
export const STAGE_SPEED = 1;
/** A write of fewer words than this many blocks says little about the share. */
const SHARE_MIN_BLOCKS = 4;
/** Waiting less than this fraction of a write, this thread kept the writers busy. */
const SHARE_IDLE = 0.05;
/** How much more of the next write this thread stages when it did not wait. */
const SHARE_STEP = 0.05;
/** A flush that does not end within this many ms has lost a writer. */
const FLUSH_TIMEOUT_MS = 60_000;
/** Control words: blocks written, and the first failed writer's id + 1. */
export const DONE = 0;
export const FAILED = 1;

/** What a writer thread starts with. */
export interface WriterStart {
  readonly id: number;
  readonly port: MessagePort;
  readonly ctl: Int32Array;
}

/** A staged block: `segs` are (index into `dsts`, word, count, word in `buf`) quadruples. */
export interface WriterBlock {
  readonly buf: ArrayBuffer;
  readonly dsts: SharedArrayBuffer[];
  readonly segs: number[];
}

/** A writer's reply: its block's buffer back, or why it failed. */
export type WriterReply = { readonly buf: ArrayBuffer } | { readonly error: string };

/** Copies `src`'s words [from, from + n) to `dst` at word `at` on this thread. */
export function writeAtOnce(src: Uint32Array, from: number, dst: Uint32Array, at: number, n: number): void {
  copyWordsInto(dst, at, src, from, n);
}

/**
 * The share of a write's words this thread stages for `writers` threads, so that
 * it and they finish together: it stages f and writes 1 - f itself, taking
 * f/STAGE_SPEED + (1 - f) of the time a writer takes for the whole, while the
 * writers take f/writers. Equal when f = 1/(1 + 1/writers - 1/speed), or 1 when
 * that is more: with staging no faster than writing, all of it, and the waits
 * then lower the share.
 */
export function stagedShare(writers: number, speed = STAGE_SPEED): number {
  if (writers <= 0) return 0;
  const f = 1 / (1 + 1 / writers - 1 / speed);
  return f > 0 && f < 1 ? f : 1;
}

/** The writer threads `--gpu-opt writers` asks for; below 0, one on a machine of
 *  at least 4 cores, none on a smaller one: the main thread waits in a pause, the
 *  GPU worker and one writer keep two cores busy, and a second writer paid on no
 *  host measured (docs/decisions/s60-01-native-copy-into-the-heap.md). */
export function writerCount(asked: number, cores = availableParallelism()): number {
  if (asked >= 0) return Math.floor(asked);
  return cores < 4 ? 0 : 1;
}

export class HeapWriters {
  private readonly ports: MessagePort[] = [];
  private readonly workers: Worker[] = [];
  private readonly free: ArrayBuffer[] = [];
  private readonly ctl = new Int32Array(new SharedArrayBuffer(8));
  /** Blocks posted since the start; `ctl[DONE]` counts those written. */
  private posted = 0;
  private turn = 0;
  /** The block being staged: its words, the next free word, and its segments. */
  private block: Uint32Array | null = null;
  private fill = 0;
  private segs: number[] = [];
  private dsts: SharedArrayBuffer[] = [];
  /** Milliseconds this thread waited since the last `flush`, for a staging
   *  buffer or for the writers to finish: the rest of a write is its own staging. */
  private waited = 0;
  /** The share of the words `copy` stages; this thread writes the rest itself. */
  share: number;
  /** Of the words the last `flush` ended, the share this thread wrote itself. */
  lastOwnShare = 0;
  /** Words staged and written here since the last `flush`, and when its first copy came. */
  private staged = 0;
  private direct = 0;
  private began = -1;

  private constructor(
    readonly threads: number,
    private readonly blockWords: number,
    private readonly directBelow: number,
  ) {
    this.share = stagedShare(threads);
  }

  /** Starts `threads` writers running `script` (none: every copy is written at
   *  once, as are writes of fewer than `directBelow` bytes). */
  static async start(script: string, threads: number, blockWords = BLOCK_WORDS, directBelow = 0): Promise<HeapWriters> {
    const w = new HeapWriters(threads, blockWords, directBelow);
    const online: Promise<void>[] = [];
    for (let id = 0; id < threads; id++) {
      const { port1, port2 } = new MessageChannel();
      const data: WriterStart = { id, port: port2, ctl: w.ctl };
      const worker = new Worker(script, { workerData: data, transferList: [port2] });
      w.workers.push(worker);
      w.ports.push(port1);
      online.push(
        new Promise((resolve, reject) => {
          worker.once('online', () => resolve());
          worker.once('error', reject);
        }),
      );
    }
    try {
      await Promise.all(online);
    } catch (e) {
      w.dispose();
      throw e;
    }
    for (const [id, worker] of w.workers.entries()) {
      worker.unref();
      // A writer that dies fails the next wait instead of leaving it to its timeout.
      worker.on('error', () => Atomics.compareExchange(w.ctl, FAILED, 0, id + 1));
      worker.on('exit', () => Atomics.compareExchange(w.ctl, FAILED, 0, id + 1));
    }
    for (const p of w.ports) p.unref();
    // The buffers' pages are mapped now, not at a pause's first staging.
    for (let i = 0; i < BLOCKS_PER_WRITER * threads; i++) {
      const buf = new ArrayBuffer(blockWords * 4);
      new Uint32Array(buf).fill(1).fill(0);
      w.free.push(buf);
    }
    return w;
  }

  /** The writer threads a write of `bytes` in all is worth: none for a small
   *  one, which the caller then writes with `writeAtOnce`. */
  threadsFor(bytes: number): number {
    return bytes < this.directBelow ? 0 : this.threads;
  }

  /** Queues the copy of `src`'s words [from, from + n) to `dst` at word `at` (written at once unless `dst` is shared memory). */
  copy(src: Uint32Array, from: number, dst: Uint32Array, at: number, n: number): void {
    const shared = dst.buffer;
    // Other threads can write only shared memory.
    if (this.threads === 0 || !(shared instanceof SharedArrayBuffer)) {
      writeAtOnce(src, from, dst, at, n);
      return;
    }
    if (this.began < 0) this.began = now();
    const offset = bufferWord(dst, 0);
    while (n > 0) {
      // Between blocks, while behind its share, this thread writes a block's worth itself.
      if (this.block === null && this.direct < (1 - this.share) * (this.direct + this.staged)) {
        const k = Math.min(n, this.blockWords);
        writeAtOnce(src, from, dst, at, k);
        this.direct += k;
        from += k;
        at += k;
        n -= k;
        continue;
      }
      if (this.block === null) this.block = new Uint32Array(this.takeBuffer());
      // Staged at the destination's parity, the writer's copy goes eight bytes at a time.
      const word = offset + at;
      const put = atParityOf(this.fill, word);
      if (put >= this.blockWords) {
        this.post();
        continue;
      }
      const k = Math.min(n, this.blockWords - put);
      copyWordsInto(this.block, put, src, from, k);
      let d = this.dsts.indexOf(shared);
      if (d < 0) d = this.dsts.push(shared) - 1;
      this.segs.push(d, word, k, put);
      this.fill = put + k;
      this.staged += k;
      from += k;
      at += k;
      n -= k;
      if (this.fill === this.blockWords) this.post();
    }
  }

  /** Returns once every queued copy is in its destination, with the milliseconds
   *  this thread waited for the writers since the last flush. */
  flush(): number {
    if (this.threads === 0) return 0;
    if (this.block !== null && this.segs.length > 0) this.post();
    const t0 = now();
    for (let d = Atomics.load(this.ctl, DONE); d < this.posted; d = Atomics.load(this.ctl, DONE)) {
      Atomics.wait(this.ctl, DONE, d, 100);
      this.check();
      if (now() - t0 > FLUSH_TIMEOUT_MS) throw new Error(`heap writers: ${this.posted - d} block(s) not written within ${FLUSH_TIMEOUT_MS} ms`);
    }
    const waited = this.waited + now() - t0;
    this.waited = 0;
    this.check();
    this.drain();
    this.adjustShare(waited, now() - this.began);
    return waited;
  }

  /** After a write that took `ms`, `waited` of them waiting for the writers: this
   *  thread takes more of the next write itself if it waited, stages more if it never did. */
  private adjustShare(waited: number, ms: number): void {
    const words = this.staged + this.direct;
    this.lastOwnShare = words > 0 ? this.direct / words : 0;
    this.staged = this.direct = 0;
    this.began = -1;
    if (words < SHARE_MIN_BLOCKS * this.blockWords || !(ms > 0)) return;
    const idle = waited / ms;
    if (idle > SHARE_IDLE) this.share = Math.max(0, this.share - idle / 2);
    else this.share = Math.min(1, this.share + SHARE_STEP);
  }

  private post(): void {
    const block: WriterBlock = { buf: this.block!.buffer as ArrayBuffer, dsts: this.dsts, segs: this.segs };
    this.ports[this.turn]!.postMessage(block, [block.buf]);
    this.turn = (this.turn + 1) % this.threads;
    this.posted++;
    this.block = null;
    this.fill = 0;
    this.segs = [];
    this.dsts = [];
  }

  /** A staging buffer: a free one, or the next one a writer hands back. */
  private takeBuffer(): ArrayBuffer {
    const start = now();
    for (;;) {
      this.drain();
      const b = this.free.pop();
      if (b !== undefined) return b;
      const t0 = now();
      const d = Atomics.load(this.ctl, DONE);
      Atomics.wait(this.ctl, DONE, d, 100);
      this.waited += now() - t0;
      this.check();
      if (t0 - start > FLUSH_TIMEOUT_MS) throw new Error(`heap writers: no staging buffer came back within ${FLUSH_TIMEOUT_MS} ms`);
    }
  }

  /** Takes the buffers the writers handed back. */
  private drain(): void {
    for (const port of this.ports) {
      for (let m = receiveMessageOnPort(port); m !== undefined; m = receiveMessageOnPort(port)) {
        const reply = m.message as WriterReply;
        if ('error' in reply) throw new Error(`heap writer failed: ${reply.error}`);
        this.free.push(reply.buf);
      }
    }
  }

  private check(): void {
    const failed = Atomics.load(this.ctl, FAILED);
    if (failed === 0) return;
    this.drain();
    throw new Error(`heap writer ${failed - 1} failed`);
  }

  dispose(): void {
    for (const w of this.workers) {
      w.removeAllListeners('exit');
      void w.terminate();
    }
    for (const p of this.ports) p.close();
    this.workers.length = 0;
    this.ports.length = 0;
  }
}

/** The writer thread's script. */
export function writerScript(): string {
  return workerScript('gpu/worker/heap-writer.js', 'the heap writer script');
}

/** This thread's writers by count and choice, shared by the markers it runs (they write one at a time). */
const started = new Map<string, Promise<HeapWriters>>();

/** Writers for `--gpu-opt writers=asked`, started once per count on this
 *  thread. Writers asked for by count write every read-back; the default ones
 *  leave small read-backs to the device's thread. */
export function heapWriters(asked: number): Promise<HeapWriters> {
  const n = writerCount(asked);
  const directBelow = asked < 0 ? DIRECT_WRITE_BYTES : 0;
  const key = `${n}/${directBelow}`;
  let w = started.get(key);
  if (w === undefined) {
    w = HeapWriters.start(n === 0 ? '' : writerScript(), n, BLOCK_WORDS, directBelow);
    started.set(key, w);
  }
  return w;
}

/** Stops this thread's writers (the GPU worker closing). */
export async function disposeHeapWriters(): Promise<void> {
  const all = [...started.values()];
  started.clear();
  for (const w of await Promise.allSettled(all)) if (w.status === 'fulfilled') w.value.dispose();
}
