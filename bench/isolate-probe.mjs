#!/usr/bin/env node
// Does a detached ArrayBuffer slow this isolate's typed-array loops, and does one
// detached in a worker's isolate? Dawn detaches a mapped range's ArrayBuffer on
// every unmap, which invalidates V8's detaching protector for the isolate that
// holds it (docs/decisions/r19d-02-gpu-device-in-a-worker.md). Times a loop shaped like the
// evacuation's (read a list, read and write a SharedArrayBuffer heap), then:
//   node bench/isolate-probe.mjs main     detaches a buffer on this thread
//   node bench/isolate-probe.mjs worker   opens the GPU in a worker, maps and unmaps there
import { Worker, isMainThread, parentPort } from 'node:worker_threads';

if (isMainThread) {
  const mode = process.argv[2] ?? 'worker';
  const n = 20_000_000;
  const heap = new Int32Array(new SharedArrayBuffer(n * 4));
  const live = new Int32Array(n / 8);
  for (let i = 0; i < live.length; i++) live[i] = i * 6;
  const pass = () => {
    let s = 0;
    for (let i = 0; i < live.length; i++) {
      const a = live[i];
      s += heap[a];
      heap[a + 1] = a;
    }
    return s;
  };
  const time = (label) => {
    for (let k = 0; k < 3; k++) pass();
    const t = performance.now();
    for (let k = 0; k < 10; k++) pass();
    console.log(`${label}: ${((performance.now() - t) / 10).toFixed(2)} ms a pass`);
  };
  time('before');
  if (mode === 'main') {
    const ab = new ArrayBuffer(8);
    structuredClone(ab, { transfer: [ab] });
  } else {
    const worker = new Worker(new URL(import.meta.url));
    console.log(await new Promise((resolve, reject) => {
      worker.on('message', resolve);
      worker.on('error', reject);
    }));
    await worker.terminate();
  }
  time(`after a detach (${mode})`);
} else {
  const { create, globals } = await import('webgpu');
  Object.assign(globalThis, globals);
  const adapter = await create([]).requestAdapter();
  if (!adapter) throw new Error('no WebGPU adapter');
  const device = await adapter.requestDevice();
  const buf = device.createBuffer({ size: 1 << 20, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  for (let i = 0; i < 5; i++) {
    await buf.mapAsync(GPUMapMode.READ);
    new Uint32Array(buf.getMappedRange());
    buf.unmap();
  }
  device.destroy();
  parentPort?.postMessage(`worker: mapped and unmapped 5 times on ${adapter.info.device || adapter.info.description}`);
}
