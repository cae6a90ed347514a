/**
 * The one trace skeleton of gpu-dfs and gpu-bfs (`GpuEngineBase.trace`):
 * compile the program for the mark's kind, size and bind the buffers, write
 * the parameters and the roots, run submits of chained dispatches that double
 * while work remains and read back only the control words after each, then
 * read the result the GPU finished, or hand what it left to the CPU and read
 * the result from the marks. An engine supplies its program and one `MarkRun`
 * per mark: its buffers, its dispatches, and what its control words say.
 */
import type { GpuContext } from '../device/device.js';
import type { BindingSpec, Program } from '../device/shader.js';
import { bindGroup, buildProgram, kernelSource } from '../device/shader.js';
import { specializationHeader, uniformBinding, type KernelFile } from '../kernels/constants.js';
import type { GpuOptions } from '../options.js';
import { expandOnCpu, expandSableOnCpu, IntBuf, translateOnCpu } from './cpu-trace.js';
import { EngineBuffers, maskRange, type Segment } from './engine-buffers.js';
import { resultSegments, writeRoots, type DeviceWriter, type GpuEngineImpl, type MirrorTarget, type TraceJob, type TraceResult } from './job.js';
import { AddressOrder } from './order.js';
import { specialize, type Specialization } from './specialize.js';
import { now } from '../../heap/clock.js';

/** What an engine's program adds to the shared parts (see `GpuEngineBase.program`). */
export interface EngineProgram {
  /** The specialization header's constants. */
  readonly constants: Record<string, number | boolean>;
  /** The engine's bindings, between the shared `params, marks, ctl` and
   *  refgraph's `addrBits` followed by the layout's. */
  readonly bindings: readonly BindingSpec[];
  /** Kernel files after common.wgsl (translate.wgsl follows for refgraph). */
  readonly files: readonly KernelFile[];
  /** WGSL generated for the specialization, after the files. */
  readonly generated?: readonly string[];
  /** Entry points (refgraph's `translate_marks` is added). */
  readonly entryPoints: readonly string[];
}

/** The buffers of one mark that every engine binds (see `GpuEngineBase.bind`). */
export interface MarkBinding {
  readonly program: Program;
  readonly group: GPUBindGroup;
  /** Mark bits by node id, `marksWords` words of them. */
  readonly marks: GPUBuffer;
  readonly marksWords: number;
  readonly live: GPUBuffer;
  /** refgraph: the mark bitmap over heap addresses; null for sable. */
  readonly addrBits: GPUBuffer | null;
}

/** One mark as an engine runs it inside the skeleton (`GpuEngineBase.begin`). */
export interface MarkRun {
  /** The parameter block (kernels/constants.ts PARAMS). */
  readonly params: Uint32Array<ArrayBuffer>;
  /** Where the roots go, at word 0. */
  readonly rootsBuffer: GPUBuffer;
  /** The control words to start from; absent: `start` clears them. */
  readonly ctlInit?: Uint32Array<ArrayBuffer>;
  /** The engine's own buffers, by binding name. */
  readonly buffers: Record<string, GPUBuffer>;
  /** Label of the submits' compute pass. */
  readonly label: string;
  /** Dispatch batches (rounds or levels) in the first submit, and at most in one;
   *  the count doubles from submit to submit while work remains. */
  readonly firstBatch: number;
  readonly maxBatch: number;
  /** Control-word slots: rounds (or levels) run, young objects listed, and
   *  (gpu-dfs) nodes marked by guessed pointer chases. */
  readonly roundsSlot: number;
  readonly liveSlot: number;
  readonly guessedSlot?: number;
  /** Clears of the first submit, beside the marks' (engine state, control words). */
  start?(enc: GPUCommandEncoder): void;
  /** One submit's dispatches: `batch` of them, after the set-up ones at `first`. */
  encode(pass: GPUComputePassEncoder, first: boolean, batch: number): void;
  /** After each submit: go on, the GPU finished, or what the CPU finishes. */
  next(ctl: Uint32Array, m: MarkBinding): Promise<'more' | 'done' | CpuFinish>;
  /** The mark finished on the GPU (the engine may trust its state again). */
  finished?(): void;
}

/** What the GPU left to the CPU (the CPU fallbacks, cpu-trace.ts). */
export interface CpuFinish {
  /** Nodes marked but not expanded (gpu-dfs's drained stacks). */
  readonly pending: ArrayLike<number>;
  /** Device words read in the same submit as the marks and the live list
   *  (gpu-bfs's frontier), handed to `frontier`. */
  readonly reads: readonly Segment[];
  /** Reference words the CPU visits first, marking them unless marked. */
  frontier(words: readonly Uint32Array[]): ArrayLike<number>;
  /** False when nothing on the device is usable (gpu-bfs's ring overflowed):
   *  the CPU marks from `frontier` alone. */
  readonly useDevice: boolean;
  /** For `TraceResult.fallbackFrontier`. */
  readonly fallbackFrontier: number;
  /** Host ms the engine spent finding the work (gpu-dfs's drain). */
  readonly ms: number;
}

/** What gpu-dfs and gpu-bfs share on the host: the programs (compiled once
 *  each for young and full marks), the shared bindings, the marks' clearing,
 *  and turning marks by node id into the result bitmap, on the GPU or the CPU. */
export abstract class GpuEngineBase implements GpuEngineImpl {
  protected readonly bufs: EngineBuffers;
  protected readonly spec: Specialization;
  protected readonly refgraph: boolean;
  private youngProgram: Promise<Program> | null = null;
  private fullProgram: Promise<Program> | null = null;
  /** Sable young marks: the live list rewritten in address order (order.ts). */
  private readonly order: AddressOrder | null;

  constructor(
    protected readonly ctx: GpuContext,
    protected readonly target: MirrorTarget,
    protected readonly opts: GpuOptions,
    engine: 'dfs' | 'bfs',
    protected readonly writer?: DeviceWriter,
  ) {
    this.bufs = new EngineBuffers(ctx);
    this.spec = specialize(ctx, opts, engine);
    this.refgraph = target.layout === 'refgraph';
    this.order = !this.refgraph && opts.liveOrder === 'address' ? new AddressOrder(ctx) : null;
  }

  /** Young marks come back in address order, rebuilt from the mark bitmap
   *  (order.ts), so the engine's own order of them has no reader. */
  protected get addressOrder(): boolean {
    return this.order !== null;
  }

  /** The engine's buffers, parameters and dispatches for `job` (`MarkRun`). */
  protected abstract begin(job: TraceJob, program: Program): MarkRun;

  async trace(job: TraceJob): Promise<TraceResult> {
    const tStart = now();
    const { ctx, bufs } = this;
    const device = ctx.device;
    const young = job.kind === 'young';
    const program = await this.program(young);
    const run = this.begin(job, program);
    device.queue.writeBuffer(bufs.params, 0, run.params);
    const rootsMs = await writeRoots(device, run.rootsBuffer, job.roots, this.writer);
    if (run.ctlInit) device.queue.writeBuffer(bufs.ctl, 0, run.ctlInit);
    const m = this.bind(job, program, run.buffers);

    const tSetup = now() - tStart;
    const t0 = now();
    let kernel = 0;
    let submits = 0;
    let encodeMs = 0;
    let batch = run.firstBatch;
    let ctl: Uint32Array;
    let outcome: 'more' | 'done' | CpuFinish;
    for (let first = true; ; first = false) {
      const te = now();
      const enc = device.createCommandEncoder({ label: run.label });
      if (first) {
        this.clearMarks(enc, job, m);
        run.start?.(enc);
      }
      const pass = enc.beginComputePass(bufs.passDescriptor(run.label));
      pass.setBindGroup(0, m.group);
      run.encode(pass, first, batch);
      pass.end();
      encodeMs += now() - te;
      const r = await bufs.submitAndReadCtl(enc);
      encodeMs += r.submitMs;
      submits++;
      kernel += r.gpuMs;
      ctl = r.ctl;
      outcome = await run.next(ctl, m);
      if (outcome !== 'more') break;
      batch = Math.min(batch * 2, run.maxBatch);
    }
    const markMs = now() - t0;
    const cpu = outcome === 'done' ? null : outcome;
    const phases: Record<string, number> = {
      setup: tSetup - rootsMs,
      roots: rootsMs,
      rounds: markMs - (cpu?.ms ?? 0),
      gpu: kernel,
      encode: encodeMs,
    };
    const liveCount = young ? Math.min(ctl[run.liveSlot]!, job.liveCap) : 0;
    const common = {
      rounds: ctl[run.roundsSlot]!,
      submits,
      chasedAhead: run.guessedSlot === undefined ? undefined : ctl[run.guessedSlot]!,
      phases,
    };
    const times = { kernel: ctx.timestamps ? kernel : markMs, upload: rootsMs, uploadBytes: job.roots.length * 4 };

    if (cpu) {
      phases.drain = cpu.ms;
      const r = await this.finishOnCpu(job, m, cpu, liveCount);
      phases.readback = r.readback;
      phases.cpu = r.cpuFallback;
      return {
        bitmap: r.bitmap,
        live: r.live,
        deviceLive: r.deviceLive,
        times: { ...times, mark: markMs + r.readback + r.cpuFallback, readback: r.readback, cpuFallback: r.cpuFallback },
        fallbackFrontier: cpu.fallbackFrontier,
        ...common,
      };
    }
    run.finished?.();
    const t1 = now();
    const order = this.order;
    if (young && job.keepLive === true && order !== null && !m.addrBits) {
      // The device evacuates next and reads the list where it is: it is put in
      // address order there, queued ahead of the evacuation, and nothing is read.
      await order.compile();
      const sort = (): void => {
        const enc = device.createCommandEncoder({ label: 'live list in address order' });
        order.encode(enc, m.marks, m.live, job.youngStart, job.youngEnd);
        device.queue.submit([enc.finish()]);
      };
      phases.readback = now() - t1;
      return {
        get bitmap(): Uint32Array {
          throw new Error('a young mark whose list stayed on the device: read the list back first');
        },
        deviceLive: liveCount,
        keptLive: { length: liveCount, order: sort },
        times: { ...times, mark: markMs + phases.readback, readback: 0 },
        fallbackFrontier: -1,
        ...common,
      };
    }
    const result = await this.readGpuResult(job, m, liveCount);
    const readback = now() - t1;
    phases.readback = readback;
    return {
      // A getter: a young result builds its bitmap only when asked (young-result.ts).
      get bitmap() {
        return result.bitmap;
      },
      deviceLive: liveCount,
      live: young ? result.live : undefined,
      times: { ...times, mark: markMs + readback, readback },
      fallbackFrontier: -1,
      ...common,
    };
  }

  /**
   * The CPU finishes a mark (cpu-trace.ts): reads the marks by node id (sable:
   * the result's words the mirror holds), the GPU's live list and the engine's
   * `cpu.reads` in one submit, expands `cpu.pending` and `cpu.frontier`, and
   * builds the result from the marks. The CPU appends to the GPU's live list,
   * or under address order reads the list off the bitmap once it is done.
   */
  private async finishOnCpu(
    job: TraceJob,
    m: MarkBinding,
    cpu: CpuFinish,
    liveCount: number,
  ): Promise<{ bitmap: Uint32Array; live?: Int32Array; deviceLive: number; readback: number; cpuFallback: number }> {
    const young = job.kind === 'young';
    const t1 = now();
    const nodeMarks = new Uint32Array(Math.max(m.marksWords, Math.ceil(job.heapWords / 32)));
    const markSegs = this.refgraph ? [0, m.marksWords] : resultSegments(job, m.marksWords);
    const gpuLive = cpu.useDevice ? liveCount : 0;
    const reads: Segment[] = [{ buffer: m.live, word: 0, count: gpuLive }, ...(cpu.useDevice ? cpu.reads : [])];
    const firstMark = reads.length;
    if (cpu.useDevice) {
      for (let i = 0; i < markSegs.length; i += 2) {
        reads.push({ buffer: m.marks, word: markSegs[i]!, count: markSegs[i + 1]! - markSegs[i]! });
      }
    }
    // The marks go straight from the mapped range into `nodeMarks`.
    const words = await this.bufs.readSegments(reads, (i, w) => {
      if (i < firstMark) return false;
      nodeMarks.set(w, reads[i]!.word);
      return true;
    });
    const readback = now() - t1;
    const t2 = now();
    const ordered = young && this.addressOrder;
    let liveList: IntBuf | null = null;
    if (young && !ordered) {
      liveList = new IntBuf(gpuLive + 1024);
      liveList.data.set(words[0]!.subarray(0, gpuLive));
      liveList.length = gpuLive;
    }
    const frontier = cpu.frontier(words.slice(1, firstMark));
    if (job.sableWords && !this.refgraph && frontier.length === 0) {
      expandSableOnCpu(job.sableWords, nodeMarks, cpu.pending, young, job.youngStart, job.youngEnd, liveList);
    } else {
      expandOnCpu(job.cpu, nodeMarks, cpu.pending, liveList, frontier);
    }
    // Over the words read back only: where objects lie.
    const live = ordered ? this.bufs.liveFromMarks(nodeMarks, markSegs, job.youngStart, job.youngEnd) : liveList?.view().slice();
    const bitmap = this.cpuResultBitmap(job, nodeMarks);
    const cpuFallback = now() - t2;
    return { bitmap, live, deviceLive: ordered || !cpu.useDevice ? 0 : liveCount, readback, cpuFallback };
  }

  /** The engine's part of the program for a young or a full mark. */
  protected abstract programSource(young: boolean): EngineProgram;

  /** The kernels for a young or a full mark (compiled once per engine). */
  protected program(young: boolean): Promise<Program> {
    const cached = young ? this.youngProgram : this.fullProgram;
    if (cached) return cached;
    const { target, opts, refgraph } = this;
    const src = this.programSource(young);
    const layoutFile: KernelFile = refgraph ? 'layout-refgraph' : 'layout-sable';
    const files: KernelFile[] = [layoutFile, 'common', ...src.files, ...(refgraph ? ['translate' as const] : [])];
    const p = buildProgram(this.ctx, {
      header: specializationHeader(files, src.constants),
      bindings: [
        uniformBinding('common'),
        { name: 'marks', kind: 'storage', type: 'array<atomic<u32>>' },
        { name: 'ctl', kind: 'storage', type: 'array<atomic<u32>>' },
        ...src.bindings,
        ...(refgraph ? [{ name: 'addrBits', kind: 'storage', type: 'array<atomic<u32>>' } as const] : []),
        ...target.bindings(opts.vector),
      ],
      // The layout's accessors and file, common.wgsl, the engine's files.
      body: [
        target.accessors(opts.vector),
        kernelSource(layoutFile),
        kernelSource('common'),
        ...src.files.map(kernelSource),
        ...(src.generated ?? []),
        ...(refgraph ? [kernelSource('translate')] : []),
      ],
      entryPoints: [...src.entryPoints, ...(refgraph ? ['translate_marks'] : [])],
    });
    if (young) this.youngProgram = p;
    else this.fullProgram = p;
    // A failed compilation is tried again by the next mark.
    p.catch(() => {
      if (this.youngProgram === p) this.youngProgram = null;
      if (this.fullProgram === p) this.fullProgram = null;
    });
    return p;
  }

  async prepare(): Promise<void> {
    await Promise.all([this.program(true), this.program(false), this.order?.compile()]);
  }

  reserveLiveReadback(count: number): Promise<void> {
    return this.bufs.reserveLiveReadback(count);
  }

  /** Sizes the marks, the live list and (refgraph) the address bitmap for `job`,
   *  and binds `program` to them, the engine's buffers `own` and the mirror. */
  protected bind(job: TraceJob, program: Program, own: Record<string, GPUBuffer>): MarkBinding {
    const { bufs } = this;
    const marksWords = Math.ceil(job.nodeCount / 32) + 1;
    const marks = bufs.marks.ensure(marksWords * 4).buffer;
    const live = bufs.live.ensure(job.kind === 'young' ? job.liveCap * 4 : 16).buffer;
    const addrBits = this.refgraph ? bufs.addrBits.ensure(Math.ceil(job.heapWords / 32) * 4).buffer : null;
    const group = bindGroup(this.ctx.device, program, {
      params: bufs.params,
      marks,
      ctl: bufs.ctl,
      live,
      ...own,
      ...(addrBits ? { addrBits } : {}),
      ...this.target.buffers(),
    });
    return { program, group, marks, marksWords, live, addrBits };
  }

  /** At a mark's first submit: clears the marks it sets, a young sable mark's
   *  young range (the rest of the bitmap is never read), else all of them. */
  protected clearMarks(enc: GPUCommandEncoder, job: TraceJob, m: MarkBinding): void {
    if (job.kind === 'young' && !this.refgraph) {
      const from = Math.floor(job.youngStart / 32);
      const to = Math.min(m.marksWords, Math.ceil(job.youngEnd / 32));
      if (to > from) enc.clearBuffer(m.marks, from * 4, (to - from) * 4);
    } else {
      enc.clearBuffer(m.marks, 0, m.marksWords * 4);
    }
  }

  /** The result of a mark the GPU finished (EngineBuffers.readResult); refgraph
   *  first translates its vertex marks to the address bitmap (`translate_marks`). */
  protected async readGpuResult(
    job: TraceJob,
    m: MarkBinding,
    liveCount: number,
  ): Promise<{ readonly bitmap: Uint32Array; readonly live?: Int32Array }> {
    const addrBits = m.addrBits;
    if (!addrBits) {
      const order = this.order;
      if (!order || job.kind !== 'young') return this.bufs.readResult(m.marks, job, liveCount);
      await order.compile();
      // The same set (a young mark's bits are its live list), in address order.
      return this.bufs.readResult(m.marks, job, liveCount, (enc) =>
        order.encode(enc, m.marks, m.live, job.youngStart, job.youngEnd),
      );
    }
    const { workgroups, workgroupSize } = this.spec;
    return this.bufs.readResult(addrBits, job, liveCount, (enc) => {
      enc.clearBuffer(addrBits, 0, Math.ceil(job.heapWords / 32) * 4);
      const pass = enc.beginComputePass({ label: 'translate marks' });
      pass.setBindGroup(0, m.group);
      pass.setPipeline(m.program.pipelines.get('translate_marks')!);
      pass.dispatchWorkgroups(Math.min(workgroups * 4, Math.ceil(m.marksWords / workgroupSize)) || 1);
      pass.end();
    });
  }

  /** The result bitmap of a mark the CPU finished from `nodeMarks` (bits by node
   *  id, at least the heap's bitmap words long under sable): refgraph translates
   *  them to addresses; sable's are the bitmap, masked to the result's range. */
  protected cpuResultBitmap(job: TraceJob, nodeMarks: Uint32Array): Uint32Array {
    const bitmapWords = Math.ceil(job.heapWords / 32);
    if (this.refgraph) {
      const bitmap = new Uint32Array(bitmapWords);
      translateOnCpu(job.cpu, nodeMarks, job.kind === 'young' ? job.youngVertices : job.nodeCount - 1, bitmap);
      return bitmap;
    }
    const bitmap = nodeMarks.length === bitmapWords ? nodeMarks : nodeMarks.subarray(0, bitmapWords);
    maskRange(bitmap, job.resultStart, job.resultEnd);
    return bitmap;
  }

  readLive(count: number): Promise<Int32Array> {
    return this.bufs.readLive(count);
  }

  liveBuffer(): GPUBuffer {
    return this.bufs.live.buffer;
  }

  destroy(): void {
    this.bufs.destroy();
    this.order?.destroy();
  }
}
