/**
 * GPU buffer helpers shared by the mirror and the engines: buffers that grow and
 * are reused across collections, and a reused MAP_READ buffer for read-backs.
 *
 * Creating buffers per collection would cost allocations and zero-fills on the
 * device, so every buffer lives as long as its marker and only grows (by half
 * again, to amortize growth over collections of a growing heap).
 */
import type { GpuContext } from './device.js';
import { mapForRead } from '../faults.js';

/** WebGPU refuses zero-sized bindings and wants sizes in multiples of 4; 16 also
 *  keeps vec4 views whole. */
export function bufferSize(bytes: number): number {
  return Math.max(16, Math.ceil(bytes / 16) * 16);
}

/** The largest power of two not above `n` (1 for n below 1). */
export function floorPow2(n: number): number {
  return 2 ** Math.floor(Math.log2(Math.max(1, n)));
}

/** Workgroup size of the helper kernels (replay, remset, order): a software
 *  adapter runs every thread on a few CPU cores. */
export function helperWorkgroupSize(ctx: GpuContext): number {
  return ctx.adapter.software ? 64 : 256;
}

/** Workgroups of a helper kernel with a thread per item (at least one; the
 *  kernels loop by grid stride past the dimension's limit). */
export function helperGroups(ctx: GpuContext, items: number): number {
  return Math.max(1, Math.min(ctx.limits.maxComputeWorkgroupsPerDimension, Math.ceil(items / helperWorkgroupSize(ctx))));
}

/** Workgroups of a helper kernel with a workgroup per listed big object. */
export function helperBigGroups(ctx: GpuContext): number {
  return Math.max(1, Math.min(ctx.limits.maxComputeWorkgroupsPerDimension, ctx.adapter.software ? 4 : 1024));
}

/** A helper kernel's parameters: a 32-byte uniform buffer, written before each use. */
export function paramsBuffer(device: GPUDevice, label: string): GPUBuffer {
  return device.createBuffer({ size: 32, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST, label });
}

/** Destroys every buffer, query set or helper given (a marker's resources all go at once). */
export function destroyAll(...resources: ({ destroy(): void } | null | undefined)[]): void {
  for (const r of resources) r?.destroy();
}

/** The same words seen as u32, not copied (addresses and counts are never negative). */
export function u32View(a: Int32Array | Uint32Array): Uint32Array<ArrayBuffer> {
  return (a instanceof Uint32Array ? a : new Uint32Array(a.buffer, a.byteOffset, a.length)) as Uint32Array<ArrayBuffer>;
}

export class GrowableBuffer {
  private buf: GPUBuffer | null = null;
  private size = 0;

  constructor(
    private readonly device: GPUDevice,
    private readonly usage: GPUBufferUsageFlags,
    private readonly label: string,
    private readonly maxBytes = Infinity,
  ) {}

  /** The buffer, at least `bytes` long. A replaced buffer comes back zero-filled
   *  (WebGPU zero-initializes), and `true` in `fresh`. */
  ensure(bytes: number): { buffer: GPUBuffer; fresh: boolean } {
    const need = bufferSize(bytes);
    if (this.buf && this.size >= need) return { buffer: this.buf, fresh: false };
    if (need > this.maxBytes) {
      throw new Error(`${this.label}: ${need} bytes exceed the device's binding limit of ${this.maxBytes}`);
    }
    this.buf?.destroy();
    this.size = Math.min(this.maxBytes, bufferSize(Math.max(need, this.size * 1.5)));
    this.buf = this.device.createBuffer({ size: this.size, usage: this.usage, label: this.label });
    return { buffer: this.buf, fresh: true };
  }

  get buffer(): GPUBuffer {
    if (!this.buf) throw new Error(`${this.label}: used before ensure()`);
    return this.buf;
  }

  destroy(): void {
    this.buf?.destroy();
    this.buf = null;
    this.size = 0;
  }
}

/** A reused MAP_READ buffer: copy into it, submit, then `read`. */
export class Readback {
  private readonly grow: GrowableBuffer;
  /** Mapped by `hold` and left so until the buffer is next used. */
  private held = false;

  constructor(device: GPUDevice, label: string) {
    this.grow = new GrowableBuffer(device, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST, label);
  }

  /** The buffer to copy into, at least `bytes` long. A view that `hold` gave
   *  out dies here (the buffer is unmapped). */
  target(bytes: number): GPUBuffer {
    this.release();
    return this.grow.ensure(bytes).buffer;
  }

  /** Maps the buffer (after the copies were submitted) and returns a view of the
   *  first `bytes` of the mapped range itself, valid until the next `target` or
   *  `destroy`: no copy out of the mapping. */
  async hold(bytes: number): Promise<Uint32Array> {
    const buffer = this.grow.buffer;
    const size = bufferSize(bytes);
    await mapForRead(buffer, 0, size);
    this.held = true;
    return new Uint32Array(buffer.getMappedRange(0, size), 0, bytes >>> 2);
  }

  private release(): void {
    if (this.held) this.grow.buffer.unmap();
    this.held = false;
  }

  /** Maps the buffer (after the copies were submitted) and returns a copy of `bytes` from 0. */
  async read(bytes: number): Promise<Uint32Array> {
    return this.readWith(bytes, (words) => words.slice());
  }

  /** Maps the buffer and hands `fn` a view of the first `bytes` (valid only
   *  during the call, awaited), then unmaps: callers copy straight to where they need it. */
  async readWith<T>(bytes: number, fn: (words: Uint32Array) => T | Promise<T>): Promise<T> {
    const buffer = this.grow.buffer;
    const size = bufferSize(bytes);
    await mapForRead(buffer, 0, size);
    try {
      return await fn(new Uint32Array(buffer.getMappedRange(0, size), 0, bytes >>> 2));
    } finally {
      buffer.unmap();
    }
  }

  destroy(): void {
    this.held = false;
    this.grow.destroy();
  }
}

/** Bytes of the largest buffers of a `ChunkedReadback`: small enough that adding one
 *  after an upload ahead is done before the program asks the worker for more. */
export const READBACK_CHUNK_BYTES = 16 << 20;
/** Bytes of its first buffer: the sizes double from here, so a small read-back creates little. */
export const READBACK_FIRST_CHUNK_BYTES = 1 << 20;

/**
 * A large read-back through MAP_READ buffers, kept and only added to. Creating a
 * MAP_READ buffer costs time in proportion to its size (the device clears it:
 * docs/decisions/s43-01), so a read-back that grows in one buffer pays that
 * inside the pause that first needs it; in chunks, `reserve` adds them a few at a time ahead
 * of need, and the pause creates only what no reservation foresaw. The chunks
 * double in size from `firstBytes` up to `maxBytes`, so a small read-back makes
 * a small one. The copies into it see one run of bytes; `read` hands its
 * callback each chunk's words in order.
 */
export class ChunkedReadback {
  private readonly chunks: GPUBuffer[] = [];
  /** Each chunk's first byte in the read-back, and the byte after the last chunk. */
  private readonly starts: number[] = [0];

  constructor(
    private readonly device: GPUDevice,
    private readonly label: string,
    readonly maxBytes = READBACK_CHUNK_BYTES,
    readonly firstBytes = Math.min(READBACK_FIRST_CHUNK_BYTES, maxBytes),
  ) {
    if (firstBytes % 16 !== 0 || maxBytes % 16 !== 0) throw new Error(`${label}: chunks of ${firstBytes} to ${maxBytes} bytes, not multiples of 16`);
  }

  /** Bytes it holds without creating a buffer. */
  get capacity(): number {
    return this.starts[this.chunks.length]!;
  }

  /** Adds chunks until `bytes` fit. */
  reserve(bytes: number): void {
    while (this.capacity < bytes) {
      const c = this.chunks.length;
      const size = c === 0 ? this.firstBytes : Math.min(this.maxBytes, 2 * this.chunks[c - 1]!.size);
      const end = this.capacity + size;
      this.chunks.push(this.device.createBuffer({ size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST, label: `${this.label} ${c}` }));
      this.starts.push(end);
    }
  }

  /** The chunk holding read-back byte `at`. */
  private chunkAt(at: number): number {
    let c = 0;
    while (this.starts[c + 1]! <= at) c++;
    return c;
  }

  /** Encodes the copy of `src`'s bytes [srcByte, srcByte + bytes) to byte `at` of the read-back (reserved first). */
  copy(enc: GPUCommandEncoder, src: GPUBuffer, srcByte: number, at: number, bytes: number): void {
    this.reserve(at + bytes);
    let c = this.chunkAt(at);
    while (bytes > 0) {
      const off = at - this.starts[c]!;
      const n = Math.min(bytes, this.starts[c + 1]! - at);
      enc.copyBufferToBuffer(src, srcByte, this.chunks[c]!, off, n);
      srcByte += n;
      at += n;
      bytes -= n;
      c++;
    }
  }

  /**
   * Maps the chunks holding the first `bytes` (after the copies were submitted)
   * and, once all are mapped and `mapped` has returned, calls `each` with each
   * chunk's words and the number of its first word, in order, unmapping each
   * chunk as soon as `each` returns. The views are valid only during `each`.
   * V8 counts a mapped range as external memory from `getMappedRange` until the
   * unmap detaches it, and past 64 MB of growth it collects garbage in the
   * middle of the pause: one chunk at a time stays under that
   * (docs/decisions/s62-03-read-back-unmapped-chunk-by-chunk.md).
   */
  async read(bytes: number, mapped: () => Promise<void>, each: (words: Uint32Array, first: number) => void): Promise<void> {
    this.reserve(bytes);
    const count = bytes === 0 ? 0 : this.chunkAt(bytes - 1) + 1;
    const used = this.chunks.slice(0, count);
    const held = used.map((_, c) => Math.min(this.starts[c + 1]!, bytes) - this.starts[c]!);
    let unmapped = 0;
    try {
      const maps = await Promise.allSettled(used.map((b, c) => mapForRead(b, 0, bufferSize(held[c]!))));
      for (const m of maps) if (m.status === 'rejected') throw m.reason;
      await mapped();
      for (let c = 0; c < count; c++) {
        each(new Uint32Array(used[c]!.getMappedRange(0, bufferSize(held[c]!)), 0, held[c]! >>> 2), this.starts[c]! >>> 2);
        used[c]!.unmap();
        unmapped = c + 1;
      }
    } finally {
      for (let c = unmapped; c < count; c++) used[c]!.unmap();
    }
  }

  destroy(): void {
    for (const b of this.chunks) b.destroy();
    this.chunks.length = 0;
    this.starts.length = 1;
  }
}
