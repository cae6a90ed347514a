#!/usr/bin/env node
// What the GPU worker's per-request 'out-of-memory' error scope costs
// (src/gpu/faults.ts, docs/decisions/s28f-01-gpu-faults-fall-back-to-the-cpu.md):
// every request the program's run makes pushes one and awaits its pop. Times,
// on the device this machine opens, a push and pop alone and a pop after a
// small submit and its completion (as a request's pop follows its work).
//   node bench/error-scope-probe.mjs
import { create, globals } from 'webgpu';

Object.assign(globalThis, globals);
// Held to the end: the GPU object keeps Dawn alive (dropped, Dawn crashes).
const gpu = create([]);
globalThis.gpuRoot = gpu;
const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
if (!adapter) throw new Error('no GPU adapter');
const d = await adapter.requestDevice();
const quantiles = (t) => {
  t.sort((a, b) => a - b);
  const q = (p) => t[Math.min(t.length - 1, Math.floor(p * t.length))].toFixed(3);
  return `median ${q(0.5)} ms, p90 ${q(0.9)} ms, max ${t[t.length - 1].toFixed(3)} ms over ${t.length}`;
};
const alone = [];
for (let i = 0; i < 500; i++) {
  const t0 = performance.now();
  d.pushErrorScope('out-of-memory');
  await d.popErrorScope();
  alone.push(performance.now() - t0);
}
const buf = d.createBuffer({ size: 1 << 20, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
const data = new Uint32Array(1 << 18);
const after = [];
for (let i = 0; i < 500; i++) {
  d.pushErrorScope('out-of-memory');
  d.queue.writeBuffer(buf, 0, data);
  await d.queue.onSubmittedWorkDone();
  const t0 = performance.now();
  await d.popErrorScope();
  after.push(performance.now() - t0);
}
console.log(`adapter: ${adapter.info.device || adapter.info.description} (${adapter.info.vendor})`);
console.log(`push + pop: ${quantiles(alone)}`);
console.log(`pop after a 1 MiB write and its completion: ${quantiles(after)}`);
buf.destroy();
d.destroy();
