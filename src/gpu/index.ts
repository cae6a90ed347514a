/**
 * gpu/: WebGPU marking engines behind gc/'s `Marker` interface. The rest of the
 * VM needs only this file: the device (for `--stats` and exit code 69), the
 * options parser for `--gpu-opt`, and `GpuMarker`.
 */
export { GpuAdapterLimitError, NoGpuAdapterError, openGpu, destroyGpu, currentGpu, describeGpu } from './device.js';
export type { GpuContext, GpuAdapterDescription, GpuOpenOptions } from './device.js';
export { GpuMarker } from './marker.js';
export type { GpuMarkerConfig, GpuMarkStats, SableInput, RefGraphInput } from './marker.js';
export type { CsrGraph, RefGraphs, GraphDirty, DirtyRanges, UploadStats } from './mirror.js';
export { parseGpuOptions, baselineOptions, optionsLabel, DEFAULT_GPU_OPTIONS } from './options.js';
export type { GpuEngine, GpuOptions } from './options.js';
