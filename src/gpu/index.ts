/**
 * gpu/: WebGPU marking engines behind gc/'s `Marker` interface. The rest of the
 * VM needs only this file: the errors that map to exit 69, the adapter's
 * description for `--stats`, the options parser for `--gpu-opt`, and
 * `WorkerGpuMarker`, whose marks run in the GPU worker thread that owns the
 * device (host/host.ts). Nothing exported here loads Dawn on the caller's thread.
 */
export { GpuAdapterLimitError, NoGpuAdapterError, describeAdapter } from './device/adapter.js';
export type { GpuAdapterDescription } from './device/adapter.js';
export { WorkerGpuMarker, gpuHost, closeGpuHost, openedAdapter } from './host/host.js';
export type { Outcome, Sent } from './host/host.js';
export type { GpuMarkerConfig, SableInput, RefGraphInput } from './marker-shape.js';
export type { GpuMarkStats, GpuStartup } from './worker/gpu-marker.js';
export type { CsrGraph, RefGraphs, GraphDirty, DirtyRanges, UploadStats } from './mirror/mirror.js';
export { parseGpuOptions, baselineOptions, optionsLabel, DEFAULT_GPU_OPTIONS } from './options.js';
export type { GpuEngine, GpuOptions } from './options.js';
export { parseGpuFaults } from './faults.js';
