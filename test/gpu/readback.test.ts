// A device evacuation's read-back (gpu/device/buffers.ts ChunkedReadback, and
// gpu/evacuate/readback-parts.ts): copies that cross chunk boundaries come back
// whole and in order, `reserve` adds chunks ahead of the read-back that needs
// them, and the parts of a read-back reach their destinations however the
// chunks cut them.
import { afterAll, describe, expect, it } from 'vitest';
import { destroyGpu, openGpu } from '../../src/gpu/device/device.js';
import { ChunkedReadback } from '../../src/gpu/device/buffers.js';
import { ReadbackParts } from '../../src/gpu/evacuate/readback-parts.js';

afterAll(() => destroyGpu());

/** Copies as the heap writers do with no writer threads: at once. */
const copy = (src: Uint32Array, from: number, dst: Uint32Array, at: number, n: number): void => dst.set(src.subarray(from, from + n), at);

describe('ChunkedReadback', () => {
  it('reads back copies that cross chunks, in order, each chunk with its first word', async () => {
    const ctx = await openGpu();
    const device = ctx.device;
    const words = new Uint32Array(100).map((_, i) => i * 3 + 1);
    const src = device.createBuffer({ size: 400, usage: GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(src, 0, words);
    // 64-byte chunks: 16 words each.
    const rb = new ChunkedReadback(device, 'chunked test', 64);
    const enc = device.createCommandEncoder();
    // Words 10..59 of the source to read-back word 5, then words 0..9 right after.
    rb.copy(enc, src, 40, 20, 200);
    rb.copy(enc, src, 0, 220, 40);
    device.queue.submit([enc.finish()]);
    expect(rb.capacity).toBe(5 * 64);
    const got = new Uint32Array(65);
    const firsts: number[] = [];
    let mapped = 0;
    await rb.read(
      260,
      async () => void mapped++,
      (view, first) => {
        firsts.push(first);
        got.set(view, first);
      },
    );
    expect(mapped).toBe(1);
    expect(firsts).toEqual([0, 16, 32, 48, 64]);
    expect(Array.from(got.subarray(5, 55))).toEqual(Array.from(words.subarray(10, 60)));
    expect(Array.from(got.subarray(55, 65))).toEqual(Array.from(words.subarray(0, 10)));
    rb.destroy();
    src.destroy();
  });

  it('reserve adds whole chunks, and a read-back within them creates none', () => {
    return openGpu().then((ctx) => {
      const rb = new ChunkedReadback(ctx.device, 'reserve test', 64);
      rb.reserve(100);
      expect(rb.capacity).toBe(128);
      rb.reserve(128);
      expect(rb.capacity).toBe(128);
      const enc = ctx.device.createCommandEncoder();
      const src = ctx.device.createBuffer({ size: 128, usage: GPUBufferUsage.COPY_SRC });
      rb.copy(enc, src, 0, 0, 128);
      expect(rb.capacity).toBe(128);
      rb.copy(enc, src, 0, 128, 4);
      expect(rb.capacity).toBe(192);
      enc.finish();
      rb.destroy();
      src.destroy();
    });
  });

  it('doubles its chunks from the first size up to the largest, and reads across them', async () => {
    const ctx = await openGpu();
    const device = ctx.device;
    const rb = new ChunkedReadback(device, 'doubling test', 256, 64);
    rb.reserve(1);
    expect(rb.capacity).toBe(64);
    rb.reserve(500);
    // 64 + 128 + 256 = 448 bytes, then another of 256.
    expect(rb.capacity).toBe(704);
    const words = new Uint32Array(160).map((_, i) => 7 * i + 3);
    const src = device.createBuffer({ size: 640, usage: GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(src, 0, words);
    const enc = device.createCommandEncoder();
    rb.copy(enc, src, 0, 8, 632);
    device.queue.submit([enc.finish()]);
    const got = new Uint32Array(160);
    const firsts: number[] = [];
    await rb.read(640, async () => undefined, (view, first) => {
      firsts.push(first);
      got.set(view, first);
    });
    // Chunks start at bytes 0, 64, 192 and 448.
    expect(firsts).toEqual([0, 16, 48, 112]);
    expect(Array.from(got.subarray(2))).toEqual(Array.from(words.subarray(0, 158)));
    rb.destroy();
    src.destroy();
  });

  it('refuses chunks that are not a multiple of 16 bytes', async () => {
    const ctx = await openGpu();
    expect(() => new ChunkedReadback(ctx.device, 'odd', 40)).toThrow(/multiples of 16/);
    expect(() => new ChunkedReadback(ctx.device, 'odd first', 64, 24)).toThrow(/multiples of 16/);
  });
});

describe('ReadbackParts', () => {
  // A read-back of 40 words, word i holding 1000 + i.
  const back = new Uint32Array(40).map((_, i) => 1000 + i);
  function feed(parts: ReadbackParts, chunk: number): void {
    for (let first = 0; first < back.length; first += chunk) parts.take(back.subarray(first, first + chunk), first, copy);
  }

  for (const chunk of [1, 3, 7, 40]) {
    it(`parts reach their destinations in chunks of ${chunk} word(s)`, () => {
      const a = new Uint32Array(20);
      const b = new Uint32Array(50);
      const parts = new ReadbackParts();
      parts.add(a, 2, 0, 9);
      parts.add(b, 10, 9, 0);
      parts.add(b, 30, 10, 5);
      parts.add(b, 0, 27, 13);
      expect(parts.done).toBe(false);
      feed(parts, chunk);
      expect(parts.done).toBe(true);
      expect(Array.from(a.subarray(2, 11))).toEqual(Array.from(back.subarray(0, 9)));
      expect(Array.from(b.subarray(30, 35))).toEqual(Array.from(back.subarray(10, 15)));
      expect(Array.from(b.subarray(0, 13))).toEqual(Array.from(back.subarray(27, 40)));
      // Nothing outside the parts was written.
      expect(a[1]).toBe(0);
      expect(a[11]).toBe(0);
      expect(b[13]).toBe(0);
    });
  }

  it('is not done while a part with words is still to come, and is with only empty ones', () => {
    const parts = new ReadbackParts();
    parts.add(new Uint32Array(4), 0, 0, 0);
    expect(parts.done).toBe(true);
    parts.add(new Uint32Array(4), 0, 2, 2);
    expect(parts.done).toBe(false);
    parts.take(back.subarray(0, 3), 0, copy);
    expect(parts.done).toBe(false);
    parts.take(back.subarray(3, 4), 3, copy);
    expect(parts.done).toBe(true);
  });

  it('refuses a part that overlaps the one before it', () => {
    const parts = new ReadbackParts();
    parts.add(new Uint32Array(10), 0, 5, 5);
    expect(() => parts.add(new Uint32Array(10), 0, 8, 1)).toThrow(/overlaps/);
  });
});
