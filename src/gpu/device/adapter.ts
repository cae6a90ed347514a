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

/** Thrown when the WebGPU library cannot be loaded (the `webgpu` package missing, or
 *  Dawn's native dawn.node refusing to load on this system): a kind of "no adapter"
 *  (exit 69) whose one line says what to install here. */
export class GpuLibraryError extends NoGpuAdapterError {
  constructor(message: string) {
    super();
    this.message = message;
    this.name = 'GpuLibraryError';
  }
}

/** The one-line diagnosis of a failed `import('webgpu')`. */
export function gpuLibraryError(e: unknown, platform: string = process.platform): GpuLibraryError {
  const err = e as NodeJS.ErrnoException;
  const first = (err instanceof Error ? err.message : String(e)).split('\n')[0]!.trim();
  if (err?.code === 'ERR_MODULE_NOT_FOUND' && /'webgpu'|webgpu/.test(first) && !/dawn\.node/.test(first)) {
    return new GpuLibraryError(
      "the GPU collectors need the 'webgpu' package, which is not installed: run npm install in minivm's folder " +
        '(the CPU collectors serial, parallel and none do not need it)',
    );
  }
  const glibc = /GLIBC_[\d.]+|GLIBCXX_[\d.]+/.exec(first)?.[0];
  const install =
    glibc !== undefined
      ? `it needs ${glibc}, which this system's C/C++ library lacks: use Debian 12, Ubuntu 22.04, Fedora 36 or later ` +
        '(RHEL 9 and Ubuntu 20.04 are too old), or the CPU collectors (--gc serial or parallel)'
      : platform === 'linux'
        ? 'install the Vulkan loader and a driver (Debian/Ubuntu: sudo apt install libvulkan1 mesa-vulkan-drivers; ' +
          'Fedora/RHEL: sudo dnf install vulkan-loader mesa-vulkan-drivers)'
        : platform === 'darwin'
          ? 'it needs macOS 11 or later (Metal)'
          : platform === 'win32'
            ? 'install a current GPU driver with Direct3D 12 or Vulkan'
            : `there is no build of it for ${platform}`;
  return new GpuLibraryError(`the GPU library (Dawn's dawn.node, from the 'webgpu' package) cannot be loaded: ${install} (${first})`);
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
