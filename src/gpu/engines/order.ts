/**
 * A young mark's live list in address order (sable layout): kernels/order.wgsl
 * compacts the young range of the mark bitmap into the live list, in the same
 * submit that reads the list back. See that file for why.
 */
import { destroyAll, GrowableBuffer, helperWorkgroupSize, paramsBuffer } from '../device/buffers.js';
import type { GpuContext } from '../device/device.js';
import type { Program } from '../device/shader.js';
import { bindGroup, buildProgram, kernelSource } from '../device/shader.js';
import { ORDER, ORDER_PARAMS, specializationHeader, structWords, uniformBinding } from '../kernels/constants.js';

export class AddressOrder {
  private program: Program | null = null;
  private readonly params: GPUBuffer;
  private readonly sums: GrowableBuffer;
  private readonly wg: number;

  constructor(private readonly ctx: GpuContext) {
    const d = ctx.device;
    this.wg = helperWorkgroupSize(ctx);
    this.params = paramsBuffer(d, 'order params');
    this.sums = new GrowableBuffer(d, GPUBufferUsage.STORAGE, 'order block sums', ctx.limits.maxStorageBufferBindingSize);
  }

  /** Compiles the kernels (at start-up, with the engine's). */
  async compile(): Promise<void> {
    this.program ??= await buildProgram(this.ctx, {
      header: specializationHeader(['scan', 'order'], { WG: this.wg }),
      bindings: [
        uniformBinding('order'),
        { name: 'marks', kind: 'read-only-storage', type: 'array<u32>' },
        { name: 'sums', kind: 'storage', type: 'array<u32>' },
        { name: 'live', kind: 'storage', type: 'array<u32>' },
      ],
      body: [kernelSource('scan'), kernelSource('order')],
      entryPoints: ['order_count', 'order_scan', 'order_emit'],
    });
  }

  /**
   * Encodes the passes that rewrite `live` with the addresses in [lo, hi) whose
   * bits are set in `marks`, in address order. `compile` must have finished.
   */
  encode(enc: GPUCommandEncoder, marks: GPUBuffer, live: GPUBuffer, lo: number, hi: number): void {
    const program = this.program;
    if (!program) throw new Error('address order: encode before compile');
    if (hi <= lo) return;
    const firstWord = Math.floor(lo / 32);
    const words = Math.ceil(hi / 32) - firstWord;
    const blocks = Math.ceil(words / (this.wg * ORDER.PER));
    const p = structWords(ORDER_PARAMS, { firstWord, words, blocks, lo, hi });
    this.ctx.device.queue.writeBuffer(this.params, 0, p);
    const sums = this.sums.ensure(blocks * 4).buffer;
    const group = bindGroup(this.ctx.device, program, { op: this.params, marks, sums, live });
    const grid = Math.min(blocks, this.ctx.limits.maxComputeWorkgroupsPerDimension, 8192);
    const pass = enc.beginComputePass({ label: 'live list in address order' });
    pass.setBindGroup(0, group);
    pass.setPipeline(program.pipelines.get('order_count')!);
    pass.dispatchWorkgroups(grid);
    pass.setPipeline(program.pipelines.get('order_scan')!);
    pass.dispatchWorkgroups(1);
    pass.setPipeline(program.pipelines.get('order_emit')!);
    pass.dispatchWorkgroups(grid);
    pass.end();
  }

  destroy(): void {
    destroyAll(this.params, this.sums);
  }
}
