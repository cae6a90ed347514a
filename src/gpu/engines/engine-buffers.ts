/**
 * The device buffers every engine has and their read-backs: the parameter
 * block, the control words read after each submit (with the pass's
 * timestamps), and a mark's result, bitmap or live list, read back in one submit.
 */
import { appendSetBits, IntList } from '../../gc/int-list.js';
import { destroyAll, GrowableBuffer, Readback } from '../device/buffers.js';
import type { GpuContext } from '../device/device.js';
import { CTL_WORDS, PARAMS } from '../kernels/constants.js';
import { youngResult } from '../young-result.js';
import { resultSegments, type TraceJob } from './job.js';
import { now } from '../../heap/clock.js';

/** Buffers every engine has: parameters, control words, marks, live list, the
 *  refgraph address bitmap, and the read-backs. */
export class EngineBuffers {
  readonly params: GPUBuffer;
  readonly ctl: GPUBuffer;
  readonly marks: GrowableBuffer;
  readonly live: GrowableBuffer;
  readonly addrBits: GrowableBuffer;
  readonly ctlReadback: Readback;
  readonly resultReadback: Readback;
  private readonly liveReadback: Readback;
  private readonly querySet: GPUQuerySet | null;
  private readonly queryResolve: GPUBuffer | null;

  constructor(private readonly ctx: GpuContext) {
    const d = ctx.device;
    const rw = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
    this.params = d.createBuffer({ size: PARAMS.length * 4, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST, label: 'params' });
    this.ctl = d.createBuffer({ size: CTL_WORDS * 4, usage: rw, label: 'ctl' });
    this.marks = new GrowableBuffer(d, rw, 'marks', ctx.limits.maxStorageBufferBindingSize);
    this.live = new GrowableBuffer(d, rw, 'live', ctx.limits.maxStorageBufferBindingSize);
    this.addrBits = new GrowableBuffer(d, rw, 'address bitmap', ctx.limits.maxStorageBufferBindingSize);
    this.ctlReadback = new Readback(d, 'ctl read-back');
    this.resultReadback = new Readback(d, 'result read-back');
    this.liveReadback = new Readback(d, 'live list read-back');
    if (ctx.timestamps) {
      this.querySet = d.createQuerySet({ type: 'timestamp', count: 2 });
      this.queryResolve = d.createBuffer({ size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
    } else {
      this.querySet = null;
      this.queryResolve = null;
    }
  }

  /** Timestamp writes for the one compute pass of a submit, if the adapter has them. */
  passDescriptor(label: string): GPUComputePassDescriptor {
    return this.querySet
      ? { label, timestampWrites: { querySet: this.querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 } }
      : { label };
  }

  /** Ends a submit: copies the control words (and pass timestamps) to the
   *  read-back, submits, and returns the control words and the pass's GPU ms. */
  async submitAndReadCtl(
    enc: GPUCommandEncoder,
    timed = true,
  ): Promise<{ ctl: Uint32Array; gpuMs: number; submitMs: number }> {
    const ts = now();
    const target = this.ctlReadback.target(CTL_WORDS * 4 + 16);
    enc.copyBufferToBuffer(this.ctl, 0, target, 0, CTL_WORDS * 4);
    if (timed && this.querySet && this.queryResolve) {
      enc.resolveQuerySet(this.querySet, 0, 2, this.queryResolve, 0);
      enc.copyBufferToBuffer(this.queryResolve, 0, target, CTL_WORDS * 4, 16);
    }
    this.ctx.device.queue.submit([enc.finish()]);
    const submitMs = now() - ts;
    const words = await this.ctlReadback.read(CTL_WORDS * 4 + 16);
    let gpuMs = 0;
    if (timed && this.querySet) {
      const t = new BigUint64Array(words.buffer, CTL_WORDS * 4, 2);
      gpuMs = Number(t[1]! - t[0]!) / 1e6;
    }
    return { ctl: words.subarray(0, CTL_WORDS), gpuMs, submitMs };
  }

  /** Reads a mark's result in one submit. A young mark reads back its live list
   *  (`liveCount` entries) only: the plan evacuates from the list, and the
   *  bitmap (for --verify-gc) is built from it when asked for, which spares
   *  every young collection a heap-sized bitmap (r19g-0009). A full mark reads the job's result words of
   *  `bitmapBuf` into a full-size heap bitmap (bits outside them zero), after
   *  `prelude` (refgraph's translation of vertex marks to addresses). */
  async readResult(
    bitmapBuf: GPUBuffer,
    job: TraceJob,
    liveCount: number,
    prelude?: (enc: GPUCommandEncoder) => void,
  ): Promise<{ readonly bitmap: Uint32Array; readonly live?: Int32Array }> {
    if (job.kind === 'young') return youngResult(await this.readLive(liveCount, prelude), job.heapWords);
    const bitmap = new Uint32Array(Math.ceil(job.heapWords / 32));
    const segs = resultSegments(job, bitmap.length);
    let n = 0;
    for (let i = 0; i < segs.length; i += 2) n += segs[i + 1]! - segs[i]!;
    const bytes = n * 4;
    if (bytes === 0) return { bitmap };
    const copies: Copy[] = [];
    for (let i = 0, at = 0; i < segs.length; i += 2) {
      const len = segs[i + 1]! - segs[i]!;
      copies.push({ buffer: bitmapBuf, word: segs[i]!, count: len, at });
      at += len;
    }
    this.submitCopies('mark read-back', this.resultReadback.target(bytes), copies, prelude);
    // Straight from the mapped range into the result: no intermediate copy.
    await this.resultReadback.readWith(bytes, (words) => {
      for (let i = 0, at = 0; i < segs.length; i += 2) {
        const len = segs[i + 1]! - segs[i]!;
        bitmap.set(words.subarray(at, at + len), segs[i]!);
        at += len;
      }
    });
    maskRange(bitmap, job.resultStart, job.resultEnd);
    return { bitmap };
  }

  /** A young mark's live list (`count` entries of `live`, after `prelude`),
   *  read in its own submit and handed out as the mapped read-back range
   *  itself. It lives until the next young mark's read-back, as MarkResult
   *  allows; full marks and the fallback read through `resultReadback`, so a
   *  young list outlives them. Not copied out of the mapping, since a copy
   *  costs a large part of the read-back (r19g-0009). */
  async readLive(count: number, prelude?: (enc: GPUCommandEncoder) => void): Promise<Int32Array> {
    const target = this.liveReadback.target(count * 4);
    this.submitCopies('live list read-back', target, [{ buffer: this.live.buffer, word: 0, count, at: 0 }], prelude);
    const view = await this.liveReadback.hold(count * 4);
    return new Int32Array(view.buffer, view.byteOffset, count);
  }

  /**
   * Makes the live list's read-back `count` entries long and maps it once, at
   * start-up (GpuMarker.warmUp), since the mark that makes it pays ten times a
   * later read-back (docs/decisions/r19g-0007).
   * Capped at the device's largest buffer; a longer list grows it then.
   */
  async reserveLiveReadback(count: number): Promise<void> {
    const bytes = Math.min(count * 4, this.ctx.limits.maxBufferSize);
    this.liveReadback.target(bytes);
    await this.liveReadback.hold(bytes);
  }

  /** One submit: `prelude`, then each copy of `count` words from `word` of its
   *  buffer to word `at` of the read-back `target`. */
  private submitCopies(label: string, target: GPUBuffer, copies: readonly Copy[], prelude?: (enc: GPUCommandEncoder) => void): void {
    const enc = this.ctx.device.createCommandEncoder({ label });
    prelude?.(enc);
    for (const c of copies) {
      if (c.count > 0) enc.copyBufferToBuffer(c.buffer, c.word * 4, target, c.at * 4, c.count * 4);
    }
    this.ctx.device.queue.submit([enc.finish()]);
  }

  /** A host list reused from mark to mark, for a live list the CPU builds. */
  private readonly liveHost = new IntList();

  /**
   * A young mark's live list in address order, read off `nodeMarks` (sable:
   * bits by address) over the word ranges `segs` ((first, end) bitmap-word
   * pairs: those read back, where objects lie) within [youngStart, youngEnd).
   * The CPU fallbacks of both engines build their list so under order=address.
   * Valid until the next call.
   */
  liveFromMarks(nodeMarks: Uint32Array, segs: readonly number[], youngStart: number, youngEnd: number): Int32Array {
    const out = this.liveHost;
    out.clear();
    for (let i = 0; i + 1 < segs.length; i += 2) {
      appendSetBits(out, nodeMarks, Math.max(youngStart, segs[i]! * 32), Math.min(youngEnd, segs[i + 1]! * 32));
    }
    return out.view();
  }

  /** Reads word ranges of device buffers in one submit. A `sink` takes segment i
   *  straight from the mapped range (the view dies on return; that segment then
   *  comes back empty), which saves a copy of large segments. */
  async readSegments(
    segs: readonly Segment[],
    sink?: (i: number, words: Uint32Array) => boolean | void,
    prelude?: (enc: GPUCommandEncoder) => void,
  ): Promise<Uint32Array[]> {
    const offsets: number[] = [];
    let total = 0;
    for (const s of segs) {
      offsets.push(total);
      total += Math.ceil(s.count / 4) * 4;
    }
    if (total === 0) return segs.map(() => new Uint32Array(0));
    const target = this.resultReadback.target(total * 4);
    this.submitCopies('segment read-back', target, segs.map((s, i) => ({ ...s, at: offsets[i]! })), prelude);
    return this.resultReadback.readWith(total * 4, (words) =>
      segs.map((s, i) => {
        const view = words.subarray(offsets[i]!, offsets[i]! + s.count);
        if (sink && sink(i, view) !== false) return new Uint32Array(0);
        return view.slice();
      }),
    );
  }

  destroy(): void {
    destroyAll(this.params, this.ctl, this.marks, this.live, this.addrBits, this.ctlReadback, this.resultReadback, this.liveReadback);
    destroyAll(this.querySet, this.queryResolve);
  }
}

/** `count` words from word `word` of a device buffer. */
export interface Segment {
  readonly buffer: GPUBuffer;
  readonly word: number;
  readonly count: number;
}

/** A segment's copy to word `at` of a read-back. */
interface Copy extends Segment {
  readonly at: number;
}


/** Clears the bits for addresses outside [start, end) in the two words that
 *  straddle its ends (the words beyond were never read back). */
export function maskRange(bitmap: Uint32Array, start: number, end: number): void {
  if (end <= start) return;
  const first = start >>> 5;
  const last = (end - 1) >>> 5;
  if (first < bitmap.length && (start & 31) !== 0) bitmap[first] = bitmap[first]! & ~((1 << (start & 31)) - 1);
  if (last < bitmap.length && (end & 31) !== 0) bitmap[last] = bitmap[last]! & ((1 << (end & 31)) - 1);
}
