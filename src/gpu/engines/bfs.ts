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
import { expandOnCpu, IntBuf } from './cpu-trace.js';
import type { DeviceWriter, EngineProgram, MirrorTarget, TraceJob, TraceResult } from './engine.js';
import { GpuEngineBase, paramsBlock, writeRoots } from './engine.js';
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

  async trace(job: TraceJob): Promise<TraceResult> {
    const { ctx, opts, bufs, spec } = this;
    const device = ctx.device;
    const young = job.kind === 'young';
    const refgraph = this.refgraph;

    const program = await this.program(young);

    // Every expanded object appends all its references once, so roots plus the
    // references of the traced objects bound the queue; the ring only wraps
    // when that exceeds one binding.
    const maxQueue = Math.floor(ctx.limits.maxStorageBufferBindingSize / 4);
    const queueCap = Math.max(16, Math.min(maxQueue, job.roots.length + job.refBound + 4));
    if (job.roots.length > queueCap) throw new Error(`gpu-bfs: ${job.roots.length} roots exceed the queue's ${queueCap}`);
    const queue = this.queue.ensure(queueCap * 4).buffer;

    device.queue.writeBuffer(
      bufs.params,
      0,
      paramsBlock(job, {
        queueCap,
        fallbackThreshold: opts.fallbackThreshold,
        fallbackMinIterations: opts.fallbackMinIterations,
      }),
    );
    const rootsMs = await writeRoots(device, queue, job.roots, this.writer);
    const rootBytes = job.roots.length * 4;
    const ctlInit = new Uint32Array(CTL_WORDS);
    ctlInit[Q_END] = job.roots.length;
    ctlInit[Q_TAIL] = job.roots.length;
    device.queue.writeBuffer(bufs.ctl, 0, ctlInit);
    const m = this.bind(job, program, { queue });
    const { group, marks, marksWords, live } = m;
    const pipe = (name: string): GPUComputePipeline => program.pipelines.get(name)!;

    const t0 = performance.now();
    let kernel = 0;
    let submits = 0;
    let levels = 8;
    let ctl: Uint32Array;
    for (let first = true; ; first = false) {
      const enc = device.createCommandEncoder({ label: 'gpu-bfs' });
      if (first) this.clearMarks(enc, job, m);
      const pass = enc.beginComputePass(bufs.passDescriptor('gpu-bfs levels'));
      pass.setBindGroup(0, group);
      for (let i = 0; i < levels; i++) {
        pass.setPipeline(pipe('bfs_level'));
        pass.dispatchWorkgroups(spec.workgroups);
        pass.setPipeline(pipe('bfs_advance'));
        pass.dispatchWorkgroups(1);
      }
      pass.end();
      const r = await bufs.submitAndReadCtl(enc);
      submits++;
      kernel += r.gpuMs;
      ctl = r.ctl;
      if (ctl[Q_START] === ctl[Q_END] || ctl[Q_STOP] !== 0 || ctl[Q_OVERFLOW] !== 0) break;
      levels = Math.min(levels * 2, 256);
    }
    const gpuMs = performance.now() - t0;
    const liveCount = young ? Math.min(ctl[Q_LIVE]!, job.liveCap) : 0;

    if (ctl[Q_STOP] === 0 && ctl[Q_OVERFLOW] === 0) {
      const t1 = performance.now();
      const result = await this.readGpuResult(job, m, liveCount);
      const readback = performance.now() - t1;
      return {
        // A getter: a young result builds its bitmap only when asked (engine.ts youngResult).
        get bitmap() {
          return result.bitmap;
        },
        deviceLive: liveCount,
        live: young ? result.live : undefined,
        times: { mark: gpuMs + readback, kernel: ctx.timestamps ? kernel : gpuMs, readback, upload: rootsMs, uploadBytes: rootBytes },
        rounds: ctl[Q_LEVEL]!,
        submits,
        fallbackFrontier: -1,
      };
    }

    // The CPU finishes from the frontier left in the ring (or, after an
    // overflow, marks everything from the roots).
    const overflow = ctl[Q_OVERFLOW] !== 0;
    const t1 = performance.now();
    const qs = ctl[Q_START]!;
    const qe = ctl[Q_END]!;
    const a = qs % queueCap;
    const firstLen = Math.min(qe - qs, queueCap - a);
    const markFrom = refgraph ? 0 : Math.floor(job.resultStart / 32);
    const markTo = refgraph ? marksWords : Math.min(marksWords, Math.ceil(job.resultEnd / 32));
    const nodeMarks = new Uint32Array(marksWords);
    const [, f1, f2, l] = await bufs.readSegments(
      overflow
        ? [
            { buffer: marks, word: 0, count: 0 },
            { buffer: queue, word: 0, count: 0 },
            { buffer: queue, word: 0, count: 0 },
            { buffer: live, word: 0, count: 0 },
          ]
        : [
            { buffer: marks, word: markFrom, count: markTo - markFrom },
            { buffer: queue, word: a, count: firstLen },
            { buffer: queue, word: 0, count: qe - qs - firstLen },
            { buffer: live, word: 0, count: liveCount },
          ],
      (i, words) => {
        if (i !== 0) return false;
        nodeMarks.set(words, markFrom);
        return true;
      },
    );
    const readback = performance.now() - t1;
    const t2 = performance.now();
    // In address order the list is read off the bitmap once the CPU is done (as
    // gpu-dfs's fallback does); else the CPU appends to the GPU's frontier order.
    const ordered = young && this.addressOrder;
    let liveList: IntBuf | null = null;
    if (young && !ordered) {
      liveList = new IntBuf(l!.length + 1024);
      liveList.data.set(l!);
      liveList.length = l!.length;
    }
    const frontier = overflow ? job.roots : concat(f1!, f2!);
    expandOnCpu(job.cpu, nodeMarks, [], liveList, frontier);
    const liveOut = ordered
      ? this.bufs.liveFromMarks(nodeMarks, [markFrom, markTo], job.youngStart, job.youngEnd)
      : liveList?.view().slice();
    const bitmap = this.cpuResultBitmap(job, nodeMarks);
    const cpuFallback = performance.now() - t2;
    return {
      bitmap,
      live: liveOut,
      deviceLive: overflow || ordered ? 0 : liveCount,
      times: {
        mark: gpuMs + readback + cpuFallback,
        kernel: ctx.timestamps ? kernel : gpuMs,
        readback,
        cpuFallback,
        upload: rootsMs,
        uploadBytes: rootBytes,
      },
      rounds: ctl[Q_LEVEL]!,
      submits,
      fallbackFrontier: overflow ? -2 : qe - qs,
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
