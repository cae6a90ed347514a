/**
 * gpu-bfs, the host side of Maas et al.'s frontier-queue BFS (kernels/bfs.wgsl).
 *
 * Levels chain on the device: each submit holds many (bfs_level, bfs_advance)
 * pairs, the level dispatch striding over the live queue bounds that the
 * previous advance left in `ctl` (cheaper than dispatchWorkgroupsIndirect, which
 * would need a dispatch to compute the sizes), and the host reads the control
 * words once per submit. Three ways out: the queue emptied (done), the frontier
 * stayed narrow (the CPU finishes, §5.4), or the ring overflowed (the CPU marks
 * everything; the queue is sized so that this cannot happen below the binding
 * limit).
 */
import type { GpuContext } from '../device/device.js';
import { GrowableBuffer } from '../device/buffers.js';
import type { Program } from '../device/shader.js';
import { GpuEngineBase, type EngineProgram, type MarkRun } from './engine.js';
import { paramsBlock, type DeviceWriter, type MirrorTarget, type TraceJob } from './job.js';
import { BFS_CTL, CTL_WORDS } from '../kernels/constants.js';
import type { GpuOptions } from '../options.js';

const { Q_START, Q_END, Q_TAIL, Q_LEVEL, Q_LIVE, Q_STOP, Q_OVERFLOW } = BFS_CTL;

export class BfsEngine extends GpuEngineBase {
  private readonly queue: GrowableBuffer;

  constructor(ctx: GpuContext, target: MirrorTarget, opts: GpuOptions, writer?: DeviceWriter) {
    super(ctx, target, opts, 'bfs', writer);
    this.queue = new GrowableBuffer(
      ctx.device,
      GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC,
      'frontier queue',
      ctx.limits.maxStorageBufferBindingSize,
    );
  }

  protected programSource(young: boolean): EngineProgram {
    const { opts } = this;
    return {
      constants: {
        WG: this.spec.workgroupSize,
        YOUNG: young,
        ATOMIC_OPT: opts.atomic,
        VECTOR: opts.vector,
        DIVERGENCE: opts.divergence,
        HISTOGRAM: opts.offsets === 'histogram',
        FALLBACK: opts.fallback,
      },
      bindings: [
        { name: 'queue', kind: 'storage', type: 'array<u32>' },
        { name: 'live', kind: 'storage', type: 'array<u32>' },
      ],
      files: ['scan', 'bfs'],
      entryPoints: ['bfs_level', 'bfs_advance'],
    };
  }

  protected begin(job: TraceJob, program: Program): MarkRun {
    const { ctx, opts, spec } = this;

    // Every expanded object appends all its references once, so roots plus the
    // references of the traced objects bound the queue; the ring only wraps
    // when that exceeds one binding.
    const maxQueue = Math.floor(ctx.limits.maxStorageBufferBindingSize / 4);
    const queueCap = Math.max(16, Math.min(maxQueue, job.roots.length + job.refBound + 4));
    if (job.roots.length > queueCap) throw new Error(`gpu-bfs: ${job.roots.length} roots exceed the queue's ${queueCap}`);
    const queue = this.queue.ensure(queueCap * 4).buffer;
    const ctlInit = new Uint32Array(CTL_WORDS);
    ctlInit[Q_END] = job.roots.length;
    ctlInit[Q_TAIL] = job.roots.length;
    const pipe = (name: string): GPUComputePipeline => program.pipelines.get(name)!;
    return {
      params: paramsBlock(job, {
        queueCap,
        fallbackThreshold: opts.fallbackThreshold,
        fallbackMinIterations: opts.fallbackMinIterations,
      }),
      rootsBuffer: queue,
      ctlInit,
      buffers: { queue },
      label: 'gpu-bfs levels',
      firstBatch: 8,
      maxBatch: 256,
      roundsSlot: Q_LEVEL,
      liveSlot: Q_LIVE,
      encode: (pass, _first, levels) => {
        for (let i = 0; i < levels; i++) {
          pass.setPipeline(pipe('bfs_level'));
          pass.dispatchWorkgroups(spec.workgroups);
          pass.setPipeline(pipe('bfs_advance'));
          pass.dispatchWorkgroups(1);
        }
      },
      next: async (ctl) => {
        const overflow = ctl[Q_OVERFLOW] !== 0;
        if (ctl[Q_STOP] === 0 && !overflow) return ctl[Q_START] === ctl[Q_END] ? 'done' : 'more';
        // The CPU finishes from the frontier left in the ring (or, after an
        // overflow, marks everything from the roots).
        const qs = ctl[Q_START]!;
        const qe = ctl[Q_END]!;
        const at = qs % queueCap;
        const firstLen = Math.min(qe - qs, queueCap - at);
        return {
          pending: [],
          reads: [
            { buffer: queue, word: at, count: firstLen },
            { buffer: queue, word: 0, count: qe - qs - firstLen },
          ],
          frontier: (words) => (overflow ? job.roots : concat(words[0]!, words[1]!)),
          useDevice: !overflow,
          fallbackFrontier: overflow ? -2 : qe - qs,
          ms: 0,
        };
      },
    };
  }

  override destroy(): void {
    super.destroy();
    this.queue.destroy();
  }
}

function concat(a: Uint32Array, b: Uint32Array): Uint32Array {
  if (b.length === 0) return a;
  const out = new Uint32Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
