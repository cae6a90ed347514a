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
