/**
 * What the rest of the VM may know of the GPU without loading Dawn: the errors
 * that map to exit 69 and the adapter's description. The device itself
 * (device.ts) lives in the GPU worker thread (worker/gpu-worker.ts); the main thread
 * imports this file, never `webgpu`.
 */

/** Thrown when no WebGPU adapter is available; the message is one line. */
export class NoGpuAdapterError extends Error {
  constructor(detail?: string) {
    super(
      'no WebGPU adapter found: install a Vulkan driver (on Debian 12: sudo bash scripts/setup-vulkan.sh, ' +
        "which installs Mesa's lavapipe from bookworm-backports)" +
        (detail ? ` (${detail})` : ''),
    );
    this.name = 'NoGpuAdapterError';
  }
}

/** Thrown at start-up when the adapter cannot hold what the heap needs (a
 *  software adapter's 128 MiB storage bindings under a large heap); one line. */
export class GpuAdapterLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GpuAdapterLimitError';
  }
}

/** What `--stats` prints about the adapter. */
export interface GpuAdapterDescription {
  readonly name: string;
  readonly vendor: string;
  readonly architecture: string;
  readonly description: string;
  /** True for CPU implementations (lavapipe/llvmpipe, SwiftShader): kernels are sized down for them. */
  readonly software: boolean;
}

export interface GpuLimits {
  readonly maxStorageBufferBindingSize: number;
  readonly maxBufferSize: number;
  readonly maxComputeWorkgroupStorageSize: number;
  readonly maxComputeInvocationsPerWorkgroup: number;
  readonly maxComputeWorkgroupSizeX: number;
  readonly maxComputeWorkgroupsPerDimension: number;
  readonly maxStorageBuffersPerShaderStage: number;
  readonly minStorageBufferOffsetAlignment: number;
}

/** One line for `--stats`. */
export function describeAdapter(a: GpuAdapterDescription): string {
  return `${a.name} (vendor ${a.vendor}, architecture ${a.architecture}${a.software ? ', software' : ''})`;
}
