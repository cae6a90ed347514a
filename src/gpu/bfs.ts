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
import type { GpuContext } from './device.js';
import { GrowableBuffer } from './buffers.js';
import { finishOnCpu, translateOnCpu } from './cpu-trace.js';
import type { GpuEngineImpl, MirrorTarget, TraceJob, TraceResult } from './engine.js';
import type { DeviceWriter } from './engine.js';
import { writeRoots } from './engine.js';
import { EngineBuffers, maskRange, paramsBlock, programBody, programHeader, specialize } from './engine.js';
import type { GpuOptions } from './options.js';
import type { BindingSpec, Program } from './shader.js';
import { bindGroup, buildProgram } from './shader.js';

const Q_START = 0;
const Q_END = 1;
const Q_TAIL = 2;
const Q_LEVEL = 3;
const Q_LIVE = 4;
const Q_STOP = 5;
const Q_OVERFLOW = 6;

export class BfsEngine implements GpuEngineImpl {
  private readonly bufs: EngineBuffers;
  private readonly queue: GrowableBuffer;

  constructor(
    private readonly ctx: GpuContext,
    private readonly target: MirrorTarget,
    private readonly opts: GpuOptions,
    private readonly writer?: DeviceWriter,
  ) {
    this.bufs = new EngineBuffers(ctx);
    this.queue = new GrowableBuffer(
      ctx.device,
      GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC,
      'frontier queue',
      ctx.limits.maxStorageBufferBindingSize,
    );
  }

  /** The kernels for a young or a full mark (compiled once per process). */
  private program(young: boolean): Promise<Program> {
    const { ctx, opts } = this;
    const wg = specialize(ctx, opts, 'bfs').workgroupSize;
    const refgraph = this.target.layout === 'refgraph';
    const bindings: BindingSpec[] = [
      { name: 'params', kind: 'uniform', type: 'Params' },
      { name: 'marks', kind: 'storage', type: 'array<atomic<u32>>' },
      { name: 'ctl', kind: 'storage', type: 'array<atomic<u32>>' },
      { name: 'queue', kind: 'storage', type: 'array<u32>' },
      { name: 'live', kind: 'storage', type: 'array<u32>' },
      ...(refgraph ? [{ name: 'addrBits', kind: 'storage', type: 'array<atomic<u32>>' } as const] : []),
      ...this.target.bindings(opts.vector),
    ];
    return buildProgram(ctx, {
      header: programHeader({
        WG: wg,
        YOUNG: young,
        ATOMIC_OPT: opts.atomic,
        VECTOR: opts.vector,
        DIVERGENCE: opts.divergence,
        HISTOGRAM: opts.offsets === 'histogram',
        FALLBACK: opts.fallback,
      }),
      bindings,
      body: programBody(this.target, opts.vector, ['bfs']),
      entryPoints: ['bfs_level', 'bfs_advance', ...(refgraph ? ['translate_marks'] : [])],
    });

  }

  async prepare(): Promise<void> {
    await Promise.all([this.program(true), this.program(false)]);
  }

  async trace(job: TraceJob): Promise<TraceResult> {
    const { ctx, opts, bufs } = this;
    const device = ctx.device;
    const young = job.kind === 'young';
    const spec = specialize(ctx, opts, 'bfs');
    const wg = spec.workgroupSize;
    const refgraph = this.target.layout === 'refgraph';

    const program = await this.program(young);

    // Every expanded object appends all its references once, so roots plus the
    // references of the traced objects bound the queue; the ring only wraps
    // when that exceeds one binding.
    const maxQueue = Math.floor(ctx.limits.maxStorageBufferBindingSize / 4);
    const queueCap = Math.max(16, Math.min(maxQueue, job.roots.length + job.refBound + 4));
    if (job.roots.length > queueCap) throw new Error(`gpu-bfs: ${job.roots.length} roots exceed the queue's ${queueCap}`);
    const marksWords = Math.ceil(job.nodeCount / 32) + 1;
    const marks = bufs.marks.ensure(marksWords * 4).buffer;
    const queue = this.queue.ensure(queueCap * 4).buffer;
    const live = bufs.live.ensure(young ? job.liveCap * 4 : 16).buffer;
    const addrBits = refgraph ? bufs.addrBits.ensure(Math.ceil(job.heapWords / 32) * 4).buffer : null;

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
    const ctlInit = new Uint32Array(16);
    ctlInit[Q_END] = job.roots.length;
    ctlInit[Q_TAIL] = job.roots.length;
    device.queue.writeBuffer(bufs.ctl, 0, ctlInit);
    const group = bindGroup(device, program, {
      params: bufs.params,
      marks,
      ctl: bufs.ctl,
      queue,
      live,
      ...(addrBits ? { addrBits } : {}),
      ...this.target.buffers(),
    });
    const pipe = (name: string): GPUComputePipeline => program.pipelines.get(name)!;

    const t0 = performance.now();
    let kernel = 0;
    let submits = 0;
    let levels = 8;
    let ctl: Uint32Array;
    for (let first = true; ; first = false) {
      const enc = device.createCommandEncoder({ label: 'gpu-bfs' });
      if (first) {
        if (young && !refgraph) {
          const from = Math.floor(job.youngStart / 32);
          const to = Math.min(marksWords, Math.ceil(job.youngEnd / 32));
          if (to > from) enc.clearBuffer(marks, from * 4, (to - from) * 4);
        } else {
          enc.clearBuffer(marks, 0, marksWords * 4);
        }
      }
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
    const translate = (enc: GPUCommandEncoder): void => {
      if (!addrBits) return;
      enc.clearBuffer(addrBits, 0, Math.ceil(job.heapWords / 32) * 4);
      const pass = enc.beginComputePass({ label: 'translate marks' });
      pass.setBindGroup(0, group);
      pass.setPipeline(pipe('translate_marks'));
      pass.dispatchWorkgroups(Math.min(spec.workgroups * 4, Math.ceil(marksWords / wg)) || 1);
      pass.end();
    };

    if (ctl[Q_STOP] === 0 && ctl[Q_OVERFLOW] === 0) {
      const t1 = performance.now();
      const result = await bufs.readResult(addrBits ?? marks, job, liveCount, translate);
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
    const liveList: number[] | null = young ? Array.from(l!) : null;
    const frontier = overflow ? job.roots : concat(f1!, f2!);
    finishOnCpu(job.cpu, nodeMarks, frontier, liveList);
    let bitmap: Uint32Array;
    if (refgraph) {
      bitmap = new Uint32Array(Math.ceil(job.heapWords / 32));
      translateOnCpu(job.cpu, nodeMarks, young ? job.youngVertices : job.nodeCount - 1, bitmap);
    } else {
      bitmap = nodeMarks.length === Math.ceil(job.heapWords / 32) ? nodeMarks : nodeMarks.slice(0, Math.ceil(job.heapWords / 32));
      maskRange(bitmap, job.resultStart, job.resultEnd);
    }
    const cpuFallback = performance.now() - t2;
    return {
      bitmap,
      live: liveList ? Int32Array.from(liveList) : undefined,
      deviceLive: overflow ? 0 : liveCount,
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

  liveBuffer(): GPUBuffer {
    return this.bufs.live.buffer;
  }

  destroy(): void {
    this.bufs.destroy();
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
