/**
 * gpu-dfs, the host side of FastCollect (kernels/dfs.wgsl): sizes the linked
 * stack and the threads, and runs rounds of bounded dispatches until no thread
 * holds work.
 *
 * Each submit chains many (dfs_mark, dfs_advance) pairs in one compute pass
 * (engine.ts's skeleton reads back only the control words after it), because a
 * submit-and-wait round trip costs more than a small dispatch and dispatches
 * after the last round with work return at once (docs/decisions/r19g-0004).
 */
import type { GpuContext } from '../device/device.js';
import { destroyAll, GrowableBuffer } from '../device/buffers.js';
import { chaseAheadSource } from './chase-ahead.js';
import type { Program } from '../device/shader.js';
import { GpuEngineBase, type EngineProgram, type MarkRun } from './engine.js';
import { paramsBlock, scanAreas, type DeviceWriter, type MirrorTarget, type TraceJob } from './job.js';
import { DFS } from '../kernels/constants.js';
import type { GpuOptions } from '../options.js';
import { now } from '../../heap/clock.js';

const { CTL_LAST_BUSY, CTL_ROUNDS, CTL_LIVE, CTL_PENDING, CTL_DRAIN_OVERFLOW, CTL_GUESSED, DRAIN_CAP, SPLIT, THREAD_WORDS } = DFS;

/** Submits in a row that must end with few busy threads before the CPU takes
 *  over: enough (4 + 8 + 16 rounds) that a long list's one chase falls back
 *  while the last few chases of many lists finish on the GPU (r19g-0004). */
const NARROW_SUBMITS = 3;

/** Most (dfs_mark, dfs_advance) pairs in one submit: pairs double per submit
 *  while work remains, and those after the last round with work still launch. */
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

  protected begin(job: TraceJob, program: Program): MarkRun {
    const { ctx, opts, spec } = this;
    const young = job.kind === 'young';
    const wg = spec.workgroupSize;

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
    // Until this mark finishes, a failure would leave stack elements behind.
    const wasClean = this.stackClean;
    this.stackClean = false;
    const pipe = (name: string): GPUComputePipeline => program.pipelines.get(name)!;

    // Narrow-tail fallback (our addition beyond FastCollect): consecutive
    // submits that ended with few busy threads after the minimum rounds.
    let narrow = 0;
    let fallbackOk = opts.fallback;
    return {
      params: paramsBlock(job, { stackSize, threadCount, areaLen, wideCap, fallbackThreshold: opts.fallbackThreshold }),
      rootsBuffer: roots,
      buffers: { roots, stack: stack.buffer, threads, store, wide },
      label: 'gpu-dfs rounds',
      firstBatch: 4,
      maxBatch: MAX_PAIRS,
      roundsSlot: CTL_ROUNDS,
      liveSlot: CTL_LIVE,
      guessedSlot: CTL_GUESSED,
      start: (enc) => {
        enc.clearBuffer(this.bufs.ctl);
        enc.clearBuffer(threads, 0, threadCount * THREAD_WORDS * 4);
        if (!wasClean) enc.clearBuffer(stack.buffer, 0, stackSize * 4);
      },
      encode: (pass, first, pairs) => {
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
      },
      next: async (ctl, m) => {
        const busy = ctl[CTL_LAST_BUSY]!;
        if (busy === 0) return 'done';
        if (!(fallbackOk && ctl[CTL_ROUNDS]! >= opts.fallbackMinIterations && busy <= opts.fallbackThreshold)) {
          narrow = 0;
          return 'more';
        }
        if (++narrow < NARROW_SUBMITS) return 'more';
        const td = now();
        const pending = await this.drain(m.group, pipe('dfs_drain'), groups);
        if (!pending) {
          fallbackOk = false;
          return 'more';
        }
        // The stack keeps the pending elements, so the next mark clears it.
        return {
          pending,
          reads: [],
          frontier: () => [],
          useDevice: true,
          fallbackFrontier: pending.length,
          ms: now() - td,
        };
      },
      finished: () => {
        this.stackClean = true;
      },
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
