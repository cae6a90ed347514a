/**
 * gpu-dfs, the host side of FastCollect (kernels/dfs.wgsl): sizes the linked
 * stack and the threads, and runs rounds of bounded dispatches until no thread
 * holds work.
 *
 * Each submit chains many (dfs_mark, dfs_advance) pairs in one compute pass and
 * reads back only the control words: a submit-and-wait round trip costs about
 * 15 µs on an H100, more than a small dispatch, and dispatches after the last
 * round with work return at once. The number of pairs per submit doubles while
 * work remains, so short traces need few and long ones few submits.
 */
import type { GpuContext } from '../device/device.js';
import { destroyAll, GrowableBuffer } from '../device/buffers.js';
import { chaseAheadSource } from './chase-ahead.js';
import { expandOnCpu, expandSableOnCpu, IntBuf } from './cpu-trace.js';
import type { DeviceWriter, EngineProgram, MirrorTarget, TraceJob, TraceResult } from './engine.js';
import { GpuEngineBase, paramsBlock, resultSegments, scanAreas, writeRoots } from './engine.js';
import { DFS } from '../kernels/constants.js';
import type { GpuOptions } from '../options.js';

const { CTL_LAST_BUSY, CTL_ROUNDS, CTL_LIVE, CTL_PENDING, CTL_DRAIN_OVERFLOW, CTL_GUESSED, DRAIN_CAP, SPLIT, THREAD_WORDS } = DFS;

/** Submits in a row that must end with few busy threads before the CPU takes
 *  over. Submits run 4, 8, 16, ... rounds, so three is 28 rounds: a long list
 *  (one chase) falls back after them, while the last few of the 2560 lists,
 *  heads that idle threads stole late from the thread that expanded the heads'
 *  array, finish on the GPU (after two, the CPU took over at 8-10 ms of CPU
 *  work and a 15 ms read-back on an H100, against 2.3 ms more kernel time). */
const NARROW_SUBMITS = 3;

/** Most submits' worth of (dfs_mark, dfs_advance) pairs: pairs double per submit
 *  while work remains, and those after the last round with work still launch
 *  (each returns at once, a few µs a dispatch on an H100). */
const MAX_PAIRS = 64;

export class DfsEngine extends GpuEngineBase {
  private readonly stack: GrowableBuffer;
  private readonly threads: GrowableBuffer;
  private readonly store: GrowableBuffer;
  private readonly roots: GrowableBuffer;
  private readonly wide: GrowableBuffer;
  /** The linked stack is all zero after a finished mark; not after a failed one. */
  private stackClean = true;

  constructor(ctx: GpuContext, target: MirrorTarget, opts: GpuOptions, writer?: DeviceWriter) {
    super(ctx, target, opts, 'dfs', writer);
    const d = ctx.device;
    const rw = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST;
    const max = ctx.limits.maxStorageBufferBindingSize;
    this.stack = new GrowableBuffer(d, rw, 'linked stack', max);
    this.threads = new GrowableBuffer(d, rw, 'thread state', max);
    this.store = new GrowableBuffer(d, rw, 'storage stack', max);
    this.roots = new GrowableBuffer(d, rw, 'roots', max);
    // COPY_SRC: the fallback's drain reads its pending nodes back from here.
    this.wide = new GrowableBuffer(d, rw | GPUBufferUsage.COPY_SRC, 'wide objects', max);
  }

  protected programSource(young: boolean): EngineProgram {
    const { opts, spec } = this;
    const wg = spec.workgroupSize;
    const lcap = opts.hybrid ? spec.lcap : 1;
    return {
      constants: {
        WG: wg,
        LCAP: lcap,
        LSTACK_WORDS: opts.hybrid ? wg * lcap : 1,
        STEP_BUDGET: spec.steps,
        CHAIN_STEPS: spec.chain,
        BROAD_CHAIN_STEPS: spec.broadChain,
        YOUNG: young,
        ATOMIC_OPT: opts.atomic,
        HYBRID: opts.hybrid,
        BALANCE: opts.balance,
        VECTOR: opts.vector,
        DIVERGENCE: opts.divergence,
        SCAN_BUDGET: spec.scan,
        PREFETCH: opts.vector && !this.refgraph,
        CHASE_LOOP: opts.dfsChase === 'loop',
        CHASE_AHEAD: spec.ahead,
        STORAGE_STACK: this.storageStack(young),
      },
      bindings: [
        { name: 'roots', kind: 'read-only-storage', type: 'array<u32>' },
        { name: 'stack', kind: 'storage', type: 'array<atomic<u32>>' },
        { name: 'threads', kind: 'storage', type: 'array<u32>' },
        { name: 'store', kind: 'storage', type: 'array<u32>' },
        { name: 'live', kind: 'storage', type: 'array<u32>' },
        { name: 'wide', kind: 'storage', type: 'array<u32>' },
      ],
      files: ['dfs'],
      // dfs.wgsl calls chaseAhead only at CHASE_AHEAD > 1, but WGSL resolves every call.
      generated: [chaseAheadSource(Math.max(2, spec.ahead))],
      entryPoints: ['dfs_init', 'dfs_mark', 'dfs_wide', 'dfs_advance', 'dfs_drain'],
    };
  }

  /** Young marks keep FastCollect's storage stack only when the live list
   *  comes back in mark order: in address order order.wgsl rebuilds it. */
  private storageStack(young: boolean): boolean {
    return young && !this.addressOrder;
  }

  async trace(job: TraceJob): Promise<TraceResult> {
    const tStart = performance.now();
    const { ctx, opts, bufs, spec } = this;
    const device = ctx.device;
    const young = job.kind === 'young';
    const wg = spec.workgroupSize;
    const refgraph = this.refgraph;

    const program = await this.program(young);

    // One thread per root, as the paper has it, but at least the adapter's
    // worth: idle threads take work from busy ones' stacks.
    const groups = Math.min(
      ctx.limits.maxComputeWorkgroupsPerDimension,
      Math.max(spec.workgroups, Math.ceil(Math.min(job.roots.length, spec.workgroups * wg * 4) / wg)),
    );
    const threadCount = groups * wg;
    const stackSize = Math.max(1, job.stackSize);
    const [, n0, , n1] = scanAreas(job, stackSize);
    const areaLen = Math.max(1, Math.ceil((n0 + n1) / threadCount));
    // Each wide object has more than SPLIT references: refBound / SPLIT bounds them.
    const wideCap = opts.divergence ? Math.ceil(job.refBound / SPLIT) + 1 : 1;

    const stack = this.stack.ensure(stackSize * 4);
    const threads = this.threads.ensure(threadCount * THREAD_WORDS * 4).buffer;
    const store = this.store.ensure(this.storageStack(young) ? stackSize * 4 : 16).buffer;
    const roots = this.roots.ensure(job.roots.length * 4).buffer;
    // The fallback's drain lists pending nodes into `wide` once the rounds stopped.
    const wide = this.wide.ensure(Math.max(wideCap, opts.fallback ? DRAIN_CAP : 0) * 4).buffer;
    if (stack.fresh) this.stackClean = true;

    device.queue.writeBuffer(bufs.params, 0, paramsBlock(job, { stackSize, threadCount, areaLen, wideCap, fallbackThreshold: opts.fallbackThreshold }));
    const rootsMs = await writeRoots(device, roots, job.roots, this.writer);
    const m = this.bind(job, program, { roots, stack: stack.buffer, threads, store, wide });
    const { group, marks, marksWords } = m;
    const pipe = (name: string): GPUComputePipeline => program.pipelines.get(name)!;

    const tSetup = performance.now() - tStart;
    const t0 = performance.now();
    let kernel = 0;
    let submits = 0;
    let pairs = 4;
    let ctl: Uint32Array;
    // Until this mark finishes, a failure would leave stack elements behind.
    const wasClean = this.stackClean;
    this.stackClean = false;
    // Narrow-tail fallback (our addition beyond FastCollect): consecutive
    // submits that ended with few busy threads after the minimum rounds.
    let narrow = 0;
    let fallbackOk = opts.fallback;
    let pending: Uint32Array | null = null;
    let drainMs = 0;
    let encodeMs = 0;
    for (let first = true; ; first = false) {
      const te = performance.now();
      const enc = device.createCommandEncoder({ label: 'gpu-dfs' });
      if (first) {
        enc.clearBuffer(bufs.ctl);
        enc.clearBuffer(threads, 0, threadCount * THREAD_WORDS * 4);
        this.clearMarks(enc, job, m);
        if (!wasClean) enc.clearBuffer(stack.buffer, 0, stackSize * 4);
      }
      const pass = enc.beginComputePass(bufs.passDescriptor('gpu-dfs rounds'));
      pass.setBindGroup(0, group);
      if (first) {
        pass.setPipeline(pipe('dfs_init'));
        pass.dispatchWorkgroups(groups);
        pass.setPipeline(pipe('dfs_advance'));
        pass.dispatchWorkgroups(1);
      }
      for (let i = 0; i < pairs; i++) {
        pass.setPipeline(pipe('dfs_mark'));
        pass.dispatchWorkgroups(groups);
        if (opts.divergence) {
          pass.setPipeline(pipe('dfs_wide'));
          pass.dispatchWorkgroups(groups);
        }
        pass.setPipeline(pipe('dfs_advance'));
        pass.dispatchWorkgroups(1);
      }
      pass.end();
      encodeMs += performance.now() - te;
      const r = await bufs.submitAndReadCtl(enc);
      encodeMs += r.submitMs;
      submits++;
      kernel += r.gpuMs;
      ctl = r.ctl;
      const busy = ctl[CTL_LAST_BUSY]!;
      if (busy === 0) break;
      if (fallbackOk && ctl[CTL_ROUNDS]! >= opts.fallbackMinIterations && busy <= opts.fallbackThreshold) {
        narrow++;
        if (narrow >= NARROW_SUBMITS) {
          const td = performance.now();
          pending = await this.drain(group, pipe('dfs_drain'), groups);
          drainMs = performance.now() - td;
          if (pending) break;
          fallbackOk = false;
        }
      } else {
        narrow = 0;
      }
      pairs = Math.min(pairs * 2, MAX_PAIRS);
    }
    const markMs = performance.now() - t0;
    const phases: Record<string, number> = { setup: tSetup - rootsMs, roots: rootsMs, rounds: markMs - drainMs, gpu: kernel, encode: encodeMs };
    const rootBytes = job.roots.length * 4;

    if (pending) {
      // The CPU finishes: read the marks (young: the young range) and the live
      // list, then expand the pending nodes. The stack keeps the pending
      // elements, so the next mark clears it.
      phases.drain = drainMs;
      const t1 = performance.now();
      const liveCount = young ? Math.min(ctl[CTL_LIVE]!, job.liveCap) : 0;
      const bitmapWords = Math.ceil(job.heapWords / 32);
      const nodeMarks = new Uint32Array(Math.max(marksWords, bitmapWords));
      // Marks by node id: refgraph's are all of them, sable's the result's words
      // that the mirror holds.
      const markSegs = refgraph ? [0, marksWords] : resultSegments(job, marksWords);
      const reads: { buffer: GPUBuffer; word: number; count: number }[] = [
        { buffer: m.live, word: 0, count: liveCount },
      ];
      for (let i = 0; i < markSegs.length; i += 2) {
        reads.push({ buffer: marks, word: markSegs[i]!, count: markSegs[i + 1]! - markSegs[i]! });
      }
      const segs = await bufs.readSegments(reads, (i, words) => {
        if (i === 0) return false;
        nodeMarks.set(words, reads[i]!.word);
        return true;
      });
      const liveGpu = segs[0];
      const readback = performance.now() - t1;
      const t2 = performance.now();
      // Without the storage stack (address order) the list is read off the
      // bitmap once the CPU is done; else the CPU appends to the GPU's list.
      const ordered = young && this.addressOrder;
      let liveList: IntBuf | null = null;
      if (young && !ordered) {
        liveList = new IntBuf(liveCount + 1024);
        liveList.data.set(liveGpu!.subarray(0, liveCount));
        liveList.length = liveCount;
      }
      if (job.sableWords && !refgraph) {
        expandSableOnCpu(job.sableWords, nodeMarks, pending, young, job.youngStart, job.youngEnd, liveList);
      } else {
        expandOnCpu(job.cpu, nodeMarks, pending, liveList);
      }
      // Over the words read back only: where objects lie.
      const live = ordered
        ? this.bufs.liveFromMarks(nodeMarks, markSegs, job.youngStart, job.youngEnd)
        : liveList?.view().slice();
      const bitmap = this.cpuResultBitmap(job, nodeMarks);
      const cpuFallback = performance.now() - t2;
      phases.readback = readback;
      phases.cpu = cpuFallback;
      return {
        bitmap,
        live,
        deviceLive: ordered ? 0 : liveCount,
        times: {
          mark: markMs + readback + cpuFallback,
          kernel: ctx.timestamps ? kernel : markMs,
          readback,
          cpuFallback,
          upload: rootsMs,
          uploadBytes: rootBytes,
        },
        rounds: ctl[CTL_ROUNDS]!,
        submits,
        fallbackFrontier: pending.length,
        chasedAhead: ctl[CTL_GUESSED]!,
        phases,
      };
    }
    this.stackClean = true;

    const liveCount = young ? Math.min(ctl[CTL_LIVE]!, job.liveCap) : 0;
    const t1 = performance.now();
    const result = await this.readGpuResult(job, m, liveCount);
    const readback = performance.now() - t1;
    phases.readback = readback;
    return {
      // A getter: a young result builds its bitmap only when asked (engine.ts youngResult).
      get bitmap() {
        return result.bitmap;
      },
      deviceLive: liveCount,
      live: young ? result.live : undefined,
      times: {
        mark: markMs + readback,
        kernel: ctx.timestamps ? kernel : markMs,
        readback,
        upload: rootsMs,
        uploadBytes: rootBytes,
      },
      rounds: ctl[CTL_ROUNDS]!,
      submits,
      fallbackFrontier: -1,
      chasedAhead: ctl[CTL_GUESSED]!,
      phases,
    };
  }

  /** Lists the nodes left in the threads' stacks (dfs_drain), or null when
   *  there are more than DRAIN_CAP of them. */
  private async drain(group: GPUBindGroup, pipeline: GPUComputePipeline, groups: number): Promise<Uint32Array | null> {
    const { ctx, bufs } = this;
    const enc = ctx.device.createCommandEncoder({ label: 'gpu-dfs drain' });
    enc.clearBuffer(bufs.ctl, CTL_PENDING * 4, 8);
    const pass = enc.beginComputePass({ label: 'gpu-dfs drain' });
    pass.setBindGroup(0, group);
    pass.setPipeline(pipeline);
    pass.dispatchWorkgroups(groups);
    pass.end();
    const r = await bufs.submitAndReadCtl(enc, false);
    if (r.ctl[CTL_DRAIN_OVERFLOW] !== 0) return null;
    const count = Math.min(r.ctl[CTL_PENDING]!, DRAIN_CAP);
    const [list] = await bufs.readSegments([{ buffer: this.wide.buffer, word: 0, count }]);
    return list!;
  }

  override destroy(): void {
    super.destroy();
    destroyAll(this.stack, this.threads, this.store, this.roots, this.wide);
  }
}
