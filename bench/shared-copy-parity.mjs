#!/usr/bin/env node
// How fast V8 copies 4-byte words into and out of a SharedArrayBuffer when the two
// ends have the same word parity and when they do not (docs/decisions/s39-01-*.md):
// TypedArray set and copyWithin, against plain memory, a JavaScript loop and
// heap/word-parity.ts's copyWords, and heap/native-copy.ts's one memcpy
// (docs/decisions/s60-01-*.md). With --mapped, also from a Dawn mapping (a GPU
// read-back) into shared and plain memory, as the GPU evacuation writes the heap.
// Best of 5 per row, GB/s. Build first (it imports dist/).
//   node bench/shared-copy-parity.mjs [MiB, default 40] [--mapped]
import { copyWordsInto } from '../dist/heap/native-copy.js';
import { copyWords } from '../dist/heap/word-parity.js';

const args = process.argv.slice(2);
const mapped = args.includes('--mapped');
const mib = Number(args.find((a) => !a.startsWith('--')) ?? 40);
const n = (mib << 20) >>> 2;
const shared = new Int32Array(new SharedArrayBuffer((n + 64) * 4)).fill(1);
const plain = new Int32Array(n + 64).fill(7);
const plain2 = new Int32Array(n + 64);

function best(label, fn) {
  let ms = Infinity;
  for (let r = 0; r < 5; r++) {
    const t = performance.now();
    fn();
    ms = Math.min(ms, performance.now() - t);
  }
  console.log(`${label.padEnd(42)} ${ms.toFixed(2).padStart(8)} ms ${((n * 4) / ms / 1e6).toFixed(2).padStart(6)} GB/s`);
}

function loop(d, at, s, from, count) {
  for (let i = 0; i < count; i++) d[at + i] = s[from + i];
}

best('plain -> shared, same parity', () => shared.set(plain.subarray(0, n), 0));
best('plain -> shared, parities differ', () => shared.set(plain.subarray(0, n), 1));
best('plain -> shared, both odd', () => shared.set(plain.subarray(1, n + 1), 1));
best('shared -> plain, same parity', () => plain2.set(shared.subarray(0, n), 0));
best('shared -> plain, parities differ', () => plain2.set(shared.subarray(0, n), 1));
best('shared copyWithin, even distance', () => shared.copyWithin(2, 0, n - 64));
best('shared copyWithin, odd distance', () => shared.copyWithin(1, 0, n - 64));
best('copyWords, odd distance (staged)', () => copyWords(shared, 1, 0, n - 64));
best('copyWords, odd distance, 4096-word objects', () => {
  for (let at = 0; at + 4097 < n - 64; at += 4096) copyWords(shared, at + 1, at, 4096);
});
best('plain -> plain, parities differ', () => plain2.set(plain.subarray(0, n), 1));
best('loop plain -> shared, parities differ', () => loop(shared, 1, plain, 0, n));
best('native plain -> shared, parities differ', () => copyWordsInto(shared, 1, plain, 0, n));
best('native shared -> plain, parities differ', () => copyWordsInto(plain2, 1, shared, 0, n));

if (mapped) await fromMapping();

/** Copies out of a mapped read-back buffer: TypedArray set against the native copy. */
async function fromMapping() {
  const { create, globals } = await import('webgpu');
  Object.assign(globalThis, globals);
  // Dawn answers mapAsync from its own event processing, which needs the loop alive.
  const alive = setInterval(() => {}, 1000);
  const gpu = create([]);
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) throw new Error('--mapped: no GPU adapter');
  const device = await adapter.requestDevice({ requiredLimits: { maxBufferSize: adapter.limits.maxBufferSize } });
  console.log(`adapter: ${adapter.info.vendor} ${adapter.info.device} ${adapter.info.description}`);
  const src = device.createBuffer({ size: n * 4, usage: GPUBufferUsage.COPY_SRC, mappedAtCreation: true });
  new Int32Array(src.getMappedRange()).fill(3);
  src.unmap();
  const rb = device.createBuffer({ size: n * 4, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  const enc = device.createCommandEncoder();
  enc.copyBufferToBuffer(src, 0, rb, 0, n * 4);
  device.queue.submit([enc.finish()]);
  await rb.mapAsync(GPUMapMode.READ);
  const map = new Int32Array(rb.getMappedRange());
  best('mapping -> shared, set', () => shared.set(map, 0));
  best('mapping -> shared, native', () => copyWordsInto(shared, 0, map, 0, n));
  best('mapping -> plain, set', () => plain2.set(map, 0));
  best('mapping -> plain, native', () => copyWordsInto(plain2, 0, map, 0, n));
  rb.unmap();
  // As a pause meets it: the first copy out of each new mapping, into heap memory
  // touched once before and not since.
  const heap = new Int32Array(new SharedArrayBuffer(n * 4 * 6));
  for (let i = 0; i < heap.length; i += 1024) heap[i] = 1;
  /** @type {{ label: string, copy: (m: Int32Array, r: number) => void }[]} */
  const fresh = [
    { label: 'fresh mapping -> shared, native', copy: (m) => copyWordsInto(shared, 0, m, 0, n) },
    { label: 'fresh mapping -> shared, set', copy: (m) => shared.set(m, 0) },
    { label: 'fresh mapping -> cold shared, native', copy: (m, r) => copyWordsInto(heap, r * n, m, 0, n) },
  ];
  for (const { label, copy } of fresh) {
    let ms = Infinity;
    for (let r = 0; r < 5; r++) {
      const e = device.createCommandEncoder();
      e.copyBufferToBuffer(src, 0, rb, 0, n * 4);
      device.queue.submit([e.finish()]);
      await rb.mapAsync(GPUMapMode.READ);
      const words = new Int32Array(rb.getMappedRange());
      const t = performance.now();
      copy(words, r);
      ms = Math.min(ms, performance.now() - t);
      rb.unmap();
    }
    console.log(`${label.padEnd(42)} ${ms.toFixed(2).padStart(8)} ms ${((n * 4) / ms / 1e6).toFixed(2).padStart(6)} GB/s`);
  }
  device.destroy();
  clearInterval(alive);
}
