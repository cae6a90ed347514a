/**
 * The process's one WebGPU device, opened lazily on first use.
 *
 * Everything in gpu/ asks `openGpu()` for the device; the first call picks the
 * adapter, requests its limits explicitly (WebGPU hands out the spec's small
 * defaults unless asked, e.g. 8 storage buffers per stage and 16 KiB of
 * workgroup memory) and `timestamp-query` where the adapter has it. There is no
 * silent CPU fallback: without an adapter `NoGpuAdapterError` says how to get
 * one, and the CLI exits 69 (EX_UNAVAILABLE) with its one-line message.
 *
 * `webgpu` is imported when the device is first opened, so that a missing package or
 * a dawn.node that cannot load on this system is a GpuLibraryError (exit 69) saying
 * what to install, not a failure to start. MINIVM_WEBGPU_MODULE names another module
 * in its place (the tests use it to stand in for a broken install).
 */
import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import { deviceFaults } from '../faults.js';
import { describeAdapter, gpuLibraryError, NoGpuAdapterError, type GpuAdapterDescription, type GpuLimits } from './adapter.js';

export { NoGpuAdapterError, GpuAdapterLimitError, describeAdapter } from './adapter.js';
export type { GpuAdapterDescription, GpuLimits } from './adapter.js';

export interface GpuContext {
  readonly device: GPUDevice;
  readonly adapter: GpuAdapterDescription;
  readonly limits: GpuLimits;
  readonly timestamps: boolean;
  /** Opened with Dawn's validation and robustness off (see `GpuOpenOptions.benchmark`). */
  readonly benchmark: boolean;
}

export interface GpuOpenOptions {
  /** Benchmark runs turn off Dawn's validation, robust buffer access and workgroup
   *  zero-initialization, and keep timestamps unquantized. Correctness runs keep
   *  Dawn's defaults so that an out-of-bounds kernel is clamped, not a crash. */
  readonly benchmark?: boolean;
}

let opening: Promise<GpuContext> | null = null;
let opened: GpuContext | null = null;
// The GPU object returned by create() keeps Dawn alive (and Node from exiting):
// held here and dropped by destroyGpu().
let gpuRoot: GPU | null = null;
let globalsInstalled = false;

const LIMIT_NAMES = [
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupsPerDimension',
  'maxStorageBuffersPerShaderStage',
  'minStorageBufferOffsetAlignment',
] as const;

/** Opens the device on first call; later calls return the same one. Options only
 *  matter on the first call; asking for a different `benchmark` later throws. */
export function openGpu(options: GpuOpenOptions = {}): Promise<GpuContext> {
  const benchmark = options.benchmark ?? false;
  if (opening) {
    return opening.then((ctx) => {
      if (ctx.benchmark !== benchmark) {
        throw new Error(`the GPU device is already open with benchmark=${ctx.benchmark}`);
      }
      return ctx;
    });
  }
  opening = doOpen(benchmark).catch((e: unknown) => {
    opening = null;
    throw e;
  });
  return opening;
}

/** The open device, or null: for `--stats` without opening one. */
export function currentGpu(): GpuContext | null {
  return opened;
}

async function loadWebgpu(): Promise<typeof import('webgpu')> {
  const name = process.env['MINIVM_WEBGPU_MODULE'] || 'webgpu';
  try {
    return (await import(isAbsolute(name) ? pathToFileURL(name).href : name)) as typeof import('webgpu');
  } catch (e) {
    throw gpuLibraryError(e);
  }
}

async function doOpen(benchmark: boolean): Promise<GpuContext> {
  const { create, globals } = await loadWebgpu();
  if (!globalsInstalled) {
    // GPUBufferUsage, GPUMapMode, ... are globals in browsers; Dawn's node
    // bindings hand them out as an object.
    Object.assign(globalThis, globals);
    globalsInstalled = true;
  }
  const flags = benchmark
    ? [
        'enable-dawn-features=skip_validation,disable_robustness,disable_workgroup_init',
        'disable-dawn-features=timestamp_quantization',
      ]
    : [];
  let gpu: GPU;
  try {
    gpu = create(flags);
  } catch (e) {
    throw new NoGpuAdapterError(e instanceof Error ? e.message.split('\n')[0] : String(e));
  }
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) throw new NoGpuAdapterError();

  const requiredLimits: Record<string, number> = {};
  for (const name of LIMIT_NAMES) requiredLimits[name] = adapter.limits[name];
  const timestamps = adapter.features.has('timestamp-query');
  const device = await adapter.requestDevice({
    requiredFeatures: timestamps ? ['timestamp-query'] : [],
    requiredLimits,
  });
  // A loss is reported by the request that meets it, and the run goes on on the CPU.
  deviceFaults().watch(device);

  const info = adapter.info;
  const describe = info.description || info.device || '';
  const software =
    /llvmpipe|lavapipe|swiftshader/i.test(`${describe} ${info.device}`) || info.architecture === 'software';
  const limits = Object.fromEntries(LIMIT_NAMES.map((n) => [n, device.limits[n]])) as unknown as GpuLimits;
  gpuRoot = gpu;
  opened = {
    device,
    adapter: {
      name: info.device || describe || 'unknown',
      vendor: info.vendor || 'unknown',
      architecture: info.architecture || 'unknown',
      description: describe,
      software,
    },
    limits,
    timestamps,
    benchmark,
  };
  return opened;
}

/** Destroys the device and lets Node exit; the next openGpu() opens a fresh one. */
export async function destroyGpu(): Promise<void> {
  const ctx = opening ? await opening.catch(() => null) : null;
  opening = null;
  opened = null;
  ctx?.device.destroy();
  gpuRoot = null;
}

/** One line for `--stats`. */
export function describeGpu(ctx: GpuContext): string {
  return describeAdapter(ctx.adapter);
}

// Keeps `gpuRoot` referenced for the linter's sake: it exists only to pin Dawn.
export function gpuAlive(): boolean {
  return gpuRoot !== null;
}
