/**
 * What gpu-dfs and gpu-bfs share: the trace job handed down by GpuMarker, the
 * specialization of kernels to the adapter, the per-mark parameter block, the
 * control-word read-back with timestamps, and the final read-back of the mark
 * bitmap and the live list.
 *
 * An engine sees only node ids and reference words (see kernels/layout-*.wgsl);
 * the layout (`MirrorTarget`) supplies the bindings and accessors to read nodes.
 */
import { appendSetBits, IntList } from '../../gc/int-list.js';
import type { MarkTimes } from '../../gc/marker.js';
import type { GpuContext } from '../device/device.js';
import { destroyAll, floorPow2, GrowableBuffer, Readback } from '../device/buffers.js';
import { translateOnCpu } from './cpu-trace.js';
import type { GpuOptions } from '../options.js';
import { AddressOrder } from './order.js';
import type { BindingSpec, Program } from '../device/shader.js';
import { bindGroup, buildProgram, kernelSource } from '../device/shader.js';
import { CTL_WORDS, PARAMS, specializationHeader, structWords, type KernelFile, uniformBinding } from '../kernels/constants.js';

/** The layout side of a mark: the mirror's bindings and WGSL accessors. */
export interface MirrorTarget {
  readonly layout: 'sable' | 'refgraph';
  bindings(vector: boolean): BindingSpec[];
  buffers(): Record<string, GPUBuffer>;
  accessors(vector: boolean): string;
}

/** A CPU view of the same nodes, for the gpu-bfs fallback (cpu-trace.ts). */
export interface CpuNodes {
  /** As the kernels' decodeRef: a reference word to a node id, or 0 when not traced. */
  decode(raw: number): number;
  /** Calls `visit` with each reference word of node n. */
  refs(n: number, visit: (raw: number) => void): void;
  address(n: number): number;
}

export interface TraceJob {
  readonly kind: 'young' | 'full';
  /** Root reference words (sable: addresses; refgraph: edge values). */
  readonly roots: Uint32Array<ArrayBuffer>;
  readonly heapWords: number;
  /** sable: the young range of addresses (both 0 for refgraph). */
  readonly youngStart: number;
  readonly youngEnd: number;
  /** Bound on node ids: every id is below it (sable: heap words; refgraph: vertices + 1). */
  readonly nodeCount: number;
  /** refgraph: young vertices (tenured ids start after them); 0 for sable. */
  readonly youngVertices: number;
  /** Young collections: most live objects there can be. */
  readonly liveCap: number;
  /** Most reference words the trace can expand (sizes the bfs queue). */
  readonly refBound: number;
  /** Linked-stack elements needed (gpu-dfs) and the node id of element 0 (sable). */
  readonly stackSize: number;
  /** gpu-dfs: at most two [start, end) ranges of stack elements that idle threads
   *  scan for work (sable young marks: the occupied young spaces); absent: all. */
  readonly scanRanges?: readonly number[];
  readonly nodeBase: number;
  /** Addresses whose bits the result can hold: read back only their bitmap words. */
  readonly resultStart: number;
  readonly resultEnd: number;
  /** sable: bitmap-word ranges ([from, to) pairs, sorted) of the heap that the
   *  mirror ever received; words never uploaded are zero on the device and hold
   *  no object, so only these ranges of the bitmap are read back. */
  readonly resultWords?: readonly number[];
  readonly cpu: CpuNodes;
  /** sable: the heap's words, for the closure-free CPU fallback (cpu-trace.ts). */
  readonly sableWords?: Int32Array;
}

export interface TraceResult {
  /** The MarkResult bitmap over heap addresses. */
  readonly bitmap: Uint32Array;
  readonly live?: Int32Array;
  /** Young marks: how many leading entries of `live` the engine's live buffer
   *  (`liveBuffer()`) holds on the device, for replaying the evacuation there. */
  readonly deviceLive?: number;
  readonly times: MarkTimes;
  /** Rounds (gpu-dfs) or levels (gpu-bfs) run on the GPU. */
  readonly rounds: number;
  readonly submits: number;
  /** The frontier (gpu-bfs) or pending nodes (gpu-dfs) handed to the CPU, -1 when the GPU finished. */
  readonly fallbackFrontier: number;
  /** gpu-dfs: nodes its pointer chases marked from guessed addresses (dfs.wgsl chaseAhead). */
  readonly chasedAhead?: number;
  /** Host milliseconds by step, for `GpuMarkStats` (setup, rounds, gpu, drain, readback, cpu). */
  readonly phases?: Record<string, number>;
}

/** Copies words to a device buffer (large root sets go through the mirror's
 *  staging ring, ~5x faster than queue.writeBuffer); resolves when they are there. */
export type DeviceWriter = (dst: GPUBuffer, words: Uint32Array<ArrayBuffer>) => Promise<void>;

/** Roots beyond this many go through the staging ring rather than writeBuffer. */
export const STAGED_ROOTS = 1 << 16;

/** Writes the roots to `dst` at word 0, returning host ms (for MarkTimes.upload). */
export async function writeRoots(
  device: GPUDevice,
  dst: GPUBuffer,
  roots: Uint32Array<ArrayBuffer>,
  writer?: DeviceWriter,
): Promise<number> {
  if (roots.length === 0) return 0;
  const t = performance.now();
  if (writer && roots.length > STAGED_ROOTS) await writer(dst, roots);
  else device.queue.writeBuffer(dst, 0, roots);
  return performance.now() - t;
}

/** [from, to) bitmap words of the job's result, cut to the ranges the mirror
 *  holds (`resultWords`) when it says. */
export function resultSegments(job: TraceJob, bitmapWords: number): number[] {
  const from = Math.floor(job.resultStart / 32);
  const to = Math.min(bitmapWords, Math.ceil(job.resultEnd / 32));
  if (to <= from) return [];
  if (!job.resultWords) return [from, to];
  const out: number[] = [];
  const r = job.resultWords;
  for (let i = 0; i + 1 < r.length; i += 2) {
    const s = Math.max(from, r[i]!);
    const e = Math.min(to, r[i + 1]!);
    if (e > s) out.push(s, e);
  }
  return out;
}

export interface GpuEngineImpl {
  trace(job: TraceJob): Promise<TraceResult>;
  /** Compiles the young and full kernels ahead of the first mark. */
  prepare(): Promise<void>;
  /** The device buffer of the last young trace's live list (see TraceResult.deviceLive). */
  liveBuffer(): GPUBuffer;
  /** Sizes the live list's read-back ahead of the first young mark (see GpuEngineBase). */
  reserveLiveReadback(count: number): Promise<void>;
  destroy(): void;
}

/** Workgroup sizes, counts and budgets for the adapter, unless the options set them. */
export interface Specialization {
  readonly workgroupSize: number;
  readonly workgroups: number;
  /** Hybrid stack elements per thread (gpu-dfs). */
  readonly lcap: number;
  readonly steps: number;
  /** gpu-dfs: stack elements an idle thread scans per dispatch. */
  readonly scan: number;
  /** gpu-dfs: the step discount of a pointer chase (GpuOptions.dfsChain). */
  readonly chain: number;
  /** gpu-dfs: the same after a round that ended broad (GpuOptions.dfsBroadChain). */
  readonly broadChain: number;
  /** gpu-dfs: nodes a pointer chase loads and marks per round trip (GpuOptions.dfsAhead). */
  readonly ahead: number;
}

/** Chooses sizes for the adapter, as TornadoVM specializes to the device's local memory.
 *  FastCollect found 128 threads per workgroup best (with a 128-element local
 *  stack from 64 KiB); Maas et al. ran 256. A software rasterizer runs every
 *  thread on two or so CPU cores, so it gets few, small workgroups. */
export function specialize(ctx: GpuContext, o: GpuOptions, engine: 'dfs' | 'bfs'): Specialization {
  const soft = ctx.adapter.software;
  const maxWg = floorPow2(Math.min(ctx.limits.maxComputeInvocationsPerWorkgroup, ctx.limits.maxComputeWorkgroupSizeX));
  const wantWg = o.workgroupSize || (soft ? 64 : engine === 'dfs' ? 128 : 256);
  const workgroupSize = Math.min(maxWg, floorPow2(wantWg));
  const workgroups = Math.min(
    ctx.limits.maxComputeWorkgroupsPerDimension,
    o.workgroups || (soft ? 4 : engine === 'dfs' ? 1024 : 512),
  );
  // The hybrid stack takes its share of workgroup memory; the rest is left for
  // the compiler's own use. At most 256 elements: deeper local stacks only delay
  // spilling, which is what makes work visible to idle threads.
  const share = Math.min(1, Math.max(0, o.hybridShare));
  const lcap = Math.max(
    1,
    Math.min(256, Math.floor((share * ctx.limits.maxComputeWorkgroupStorageSize) / (workgroupSize * 4))),
  );
  // Shorter rounds spill hybrid stacks to where idle threads can find them
  // sooner. On an H100 a depth-19 binary tree took 15 ms of kernel time at 512
  // expansions per round, 5.3 at 128 and 1.9 at 32, while a 50,000-element list
  // (no parallelism to find) went from 47 to 53 and 68 ms: 64 splits the difference.
  const steps = o.dfsSteps || 64;
  const scan = o.dfsScan || 64;
  // The budget above exists to spill work where idle threads can take it; a
  // thread chasing a list holds none. On an H100 the 2560 lists' young marks
  // took 3.0 ms of kernel at 64 steps and 1.6 at 256, CompleteGraph's 0.6 and
  // 1.6: a chase step at a quarter of the price gives lists the longer rounds
  // and leaves branching graphs as they were.
  const chain = o.dfsChain || 4;
  // A broad round (more busy threads than the narrow-tail threshold) has no
  // tail for the CPU to take over, so its chases run longer (dfs.wgsl dfs_advance).
  const broadChain = Math.max(chain, o.dfsBroadChain || 16);
  // Nodes a chase marks per round trip (dfs.wgsl chaseAhead). On an H100 the
  // 2560 lists' young kernels took 2.0 ms at 1, 0.81-0.84 at 4, 0.63-0.65 at 8
  // and 0.58-0.59 at 16; the 256 lists' 5.2 ms at 8, 4.0-4.7 at 16, and at 32
  // their full marks slowed to 14-16 ms (registers). lavapipe's compiler took
  // 14.6 s over the kernels at 16 against 1.6 at 8, so a software adapter runs 8.
  const ahead = Math.min(32, Math.max(1, Math.floor(o.dfsAhead) || (soft ? 8 : 16)));
  return { workgroupSize, workgroups, lcap, steps, scan, chain, broadChain, ahead };
}

/** gpu-dfs: the stack elements idle threads scan for work, as (first, count) of
 *  each of two ranges: `job.scanRanges`, or the whole stack of `stackSize`. */
export function scanAreas(job: TraceJob, stackSize: number): [number, number, number, number] {
  const r = job.scanRanges ?? [0, stackSize];
  return [r[0] ?? 0, (r[1] ?? 0) - (r[0] ?? 0), r[2] ?? 0, (r[3] ?? 0) - (r[2] ?? 0)];
}

export function paramsBlock(job: TraceJob, extra: Partial<Record<'rootCount' | 'stackSize' | 'threadCount' | 'areaLen' | 'queueCap' | 'fallbackThreshold' | 'fallbackMinIterations' | 'wideCap', number>>): Uint32Array<ArrayBuffer> {
  const [scanLo0, scanN0, scanLo1, scanN1] = scanAreas(job, extra.stackSize ?? 0);
  return structWords(PARAMS, {
    youngStart: job.youngStart,
    youngEnd: job.youngEnd,
    nodeBase: job.nodeBase,
    rootCount: job.roots.length,
    youngVertices: job.youngVertices,
    nodeCount: job.nodeCount,
    liveCap: job.liveCap,
    heapWords: job.heapWords,
    ...extra,
    scanLo0,
    scanN0,
    scanLo1,
    scanN1,
  });
}

/** Buffers every engine has: parameters, control words, marks, live list, the
 *  refgraph address bitmap, and the read-backs. */
export class EngineBuffers {
  readonly params: GPUBuffer;
  readonly ctl: GPUBuffer;
  readonly marks: GrowableBuffer;
  readonly live: GrowableBuffer;
  readonly addrBits: GrowableBuffer;
  readonly ctlReadback: Readback;
  readonly resultReadback: Readback;
  private readonly liveReadback: Readback;
  private readonly querySet: GPUQuerySet | null;
  private readonly queryResolve: GPUBuffer | null;

  constructor(private readonly ctx: GpuContext) {
    const d = ctx.device;
    const rw = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
    this.params = d.createBuffer({ size: PARAMS.length * 4, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST, label: 'params' });
    this.ctl = d.createBuffer({ size: CTL_WORDS * 4, usage: rw, label: 'ctl' });
    this.marks = new GrowableBuffer(d, rw, 'marks', ctx.limits.maxStorageBufferBindingSize);
    this.live = new GrowableBuffer(d, rw, 'live', ctx.limits.maxStorageBufferBindingSize);
    this.addrBits = new GrowableBuffer(d, rw, 'address bitmap', ctx.limits.maxStorageBufferBindingSize);
    this.ctlReadback = new Readback(d, 'ctl read-back');
    this.resultReadback = new Readback(d, 'result read-back');
    this.liveReadback = new Readback(d, 'live list read-back');
    if (ctx.timestamps) {
      this.querySet = d.createQuerySet({ type: 'timestamp', count: 2 });
      this.queryResolve = d.createBuffer({ size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
    } else {
      this.querySet = null;
      this.queryResolve = null;
    }
  }

  /** Timestamp writes for the one compute pass of a submit, if the adapter has them. */
  passDescriptor(label: string): GPUComputePassDescriptor {
    return this.querySet
      ? { label, timestampWrites: { querySet: this.querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 } }
      : { label };
  }

  /** Ends a submit: copies the control words (and pass timestamps) to the
   *  read-back, submits, and returns the control words and the pass's GPU ms. */
  async submitAndReadCtl(
    enc: GPUCommandEncoder,
    timed = true,
  ): Promise<{ ctl: Uint32Array; gpuMs: number; submitMs: number }> {
    const ts = performance.now();
    const target = this.ctlReadback.target(CTL_WORDS * 4 + 16);
    enc.copyBufferToBuffer(this.ctl, 0, target, 0, CTL_WORDS * 4);
    if (timed && this.querySet && this.queryResolve) {
      enc.resolveQuerySet(this.querySet, 0, 2, this.queryResolve, 0);
      enc.copyBufferToBuffer(this.queryResolve, 0, target, CTL_WORDS * 4, 16);
    }
    this.ctx.device.queue.submit([enc.finish()]);
    const submitMs = performance.now() - ts;
    const words = await this.ctlReadback.read(CTL_WORDS * 4 + 16);
    let gpuMs = 0;
    if (timed && this.querySet) {
      const t = new BigUint64Array(words.buffer, CTL_WORDS * 4, 2);
      gpuMs = Number(t[1]! - t[0]!) / 1e6;
    }
    return { ctl: words.subarray(0, CTL_WORDS), gpuMs, submitMs };
  }

  /** Reads a mark's result in one submit. A young mark reads back its live list
   *  (`liveCount` entries) only: the plan evacuates from the list, and the
   *  bitmap (for --verify-gc) is built from it when asked for. Reading the
   *  young range's bitmap and zeroing a heap-sized one cost ~5 ms of a 1 GiB
   *  heap's young collection. A full mark reads the job's result words of
   *  `bitmapBuf` into a full-size heap bitmap (bits outside them zero), after
   *  `prelude` (refgraph's translation of vertex marks to addresses). */
  async readResult(
    bitmapBuf: GPUBuffer,
    job: TraceJob,
    liveCount: number,
    prelude?: (enc: GPUCommandEncoder) => void,
  ): Promise<{ readonly bitmap: Uint32Array; readonly live?: Int32Array }> {
    if (job.kind === 'young') return youngResult(await this.readLive(liveCount, prelude), job.heapWords);
    const bitmap = new Uint32Array(Math.ceil(job.heapWords / 32));
    const segs = resultSegments(job, bitmap.length);
    let n = 0;
    for (let i = 0; i < segs.length; i += 2) n += segs[i + 1]! - segs[i]!;
    const bytes = n * 4;
    if (bytes === 0) return { bitmap };
    const copies: Copy[] = [];
    for (let i = 0, at = 0; i < segs.length; i += 2) {
      const len = segs[i + 1]! - segs[i]!;
      copies.push({ buffer: bitmapBuf, word: segs[i]!, count: len, at });
      at += len;
    }
    this.submitCopies('mark read-back', this.resultReadback.target(bytes), copies, prelude);
    // Straight from the mapped range into the result: no intermediate copy.
    await this.resultReadback.readWith(bytes, (words) => {
      for (let i = 0, at = 0; i < segs.length; i += 2) {
        const len = segs[i + 1]! - segs[i]!;
        bitmap.set(words.subarray(at, at + len), segs[i]!);
        at += len;
      }
    });
    maskRange(bitmap, job.resultStart, job.resultEnd);
    return { bitmap };
  }

  /** A young mark's live list (`count` entries of `live`, after `prelude`),
   *  read in its own submit and handed out as the mapped read-back range
   *  itself. It lives until the next young mark's read-back, as MarkResult
   *  allows; full marks and the fallback read through `resultReadback`, so a
   *  young list outlives them. Copying the 2560 lists' 5 MB out of the mapping
   *  into a reused host array took part of a 1.3 ms read-back on an H100 (a fresh
   *  array per mark also cost page faults and V8's external-memory scavenges). */
  private async readLive(count: number, prelude?: (enc: GPUCommandEncoder) => void): Promise<Int32Array> {
    const target = this.liveReadback.target(count * 4);
    this.submitCopies('live list read-back', target, [{ buffer: this.live.buffer, word: 0, count, at: 0 }], prelude);
    const view = await this.liveReadback.hold(count * 4);
    return new Int32Array(view.buffer, view.byteOffset, count);
  }

  /**
   * Makes the live list's read-back `count` entries long and maps it once, at
   * start-up (GpuMarker.warmUp): on an H100 the 2560 lists' first young mark,
   * which made it, read its 10 MB back in 4.3-4.6 ms, the later ones in 0.4.
   * Capped at the device's largest buffer; a longer list grows it then.
   */
  async reserveLiveReadback(count: number): Promise<void> {
    const bytes = Math.min(count * 4, this.ctx.limits.maxBufferSize);
    this.liveReadback.target(bytes);
    await this.liveReadback.hold(bytes);
  }

  /** One submit: `prelude`, then each copy of `count` words from `word` of its
   *  buffer to word `at` of the read-back `target`. */
  private submitCopies(label: string, target: GPUBuffer, copies: readonly Copy[], prelude?: (enc: GPUCommandEncoder) => void): void {
    const enc = this.ctx.device.createCommandEncoder({ label });
    prelude?.(enc);
    for (const c of copies) {
      if (c.count > 0) enc.copyBufferToBuffer(c.buffer, c.word * 4, target, c.at * 4, c.count * 4);
    }
    this.ctx.device.queue.submit([enc.finish()]);
  }

  /** A host list reused from mark to mark, for a live list the CPU builds. */
  private readonly liveHost = new IntList();

  /**
   * A young mark's live list in address order, read off `nodeMarks` (sable:
   * bits by address) over the word ranges `segs` ((first, end) bitmap-word
   * pairs: those read back, where objects lie) within [youngStart, youngEnd).
   * The CPU fallbacks of both engines build their list so under order=address.
   * Valid until the next call.
   */
  liveFromMarks(nodeMarks: Uint32Array, segs: readonly number[], youngStart: number, youngEnd: number): Int32Array {
    const out = this.liveHost;
    out.clear();
    for (let i = 0; i + 1 < segs.length; i += 2) {
      appendSetBits(out, nodeMarks, Math.max(youngStart, segs[i]! * 32), Math.min(youngEnd, segs[i + 1]! * 32));
    }
    return out.view();
  }

  /** Reads word ranges of device buffers in one submit. A `sink` takes segment i
   *  straight from the mapped range (the view dies on return; that segment then
   *  comes back empty), which saves a copy of large segments. */
  async readSegments(
    segs: readonly { buffer: GPUBuffer; word: number; count: number }[],
    sink?: (i: number, words: Uint32Array) => boolean | void,
    prelude?: (enc: GPUCommandEncoder) => void,
  ): Promise<Uint32Array[]> {
    const offsets: number[] = [];
    let total = 0;
    for (const s of segs) {
      offsets.push(total);
      total += Math.ceil(s.count / 4) * 4;
    }
    if (total === 0) return segs.map(() => new Uint32Array(0));
    const target = this.resultReadback.target(total * 4);
    this.submitCopies('segment read-back', target, segs.map((s, i) => ({ ...s, at: offsets[i]! })), prelude);
    return this.resultReadback.readWith(total * 4, (words) =>
      segs.map((s, i) => {
        const view = words.subarray(offsets[i]!, offsets[i]! + s.count);
        if (sink && sink(i, view) !== false) return new Uint32Array(0);
        return view.slice();
      }),
    );
  }

  destroy(): void {
    destroyAll(this.params, this.ctl, this.marks, this.live, this.addrBits, this.ctlReadback, this.resultReadback, this.liveReadback);
    destroyAll(this.querySet, this.queryResolve);
  }
}

/** A copy of `count` words from word `word` of `buffer` to word `at` of a read-back. */
interface Copy {
  readonly buffer: GPUBuffer;
  readonly word: number;
  readonly count: number;
  readonly at: number;
}

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

  abstract trace(job: TraceJob): Promise<TraceResult>;

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

  liveBuffer(): GPUBuffer {
    return this.bufs.live.buffer;
  }

  destroy(): void {
    this.bufs.destroy();
    this.order?.destroy();
  }
}

/** A young mark's result: the live list, and the bitmap of the same objects
 *  built from it on first use. */
export function youngResult(live: Int32Array, heapWords: number): { readonly bitmap: Uint32Array; readonly live: Int32Array } {
  let bits: Uint32Array | null = null;
  return {
    live,
    get bitmap(): Uint32Array {
      if (bits === null) {
        bits = new Uint32Array(Math.ceil(heapWords / 32));
        for (let i = 0; i < live.length; i++) {
          const a = live[i]!;
          bits[a >>> 5] = bits[a >>> 5]! | (1 << (a & 31));
        }
      }
      return bits;
    },
  };
}

/** Clears the bits for addresses outside [start, end) in the two words that
 *  straddle its ends (the words beyond were never read back). */
export function maskRange(bitmap: Uint32Array, start: number, end: number): void {
  if (end <= start) return;
  const first = start >>> 5;
  const last = (end - 1) >>> 5;
  if (first < bitmap.length && (start & 31) !== 0) bitmap[first] = bitmap[first]! & ~((1 << (start & 31)) - 1);
  if (last < bitmap.length && (end & 31) !== 0) bitmap[last] = bitmap[last]! & ((1 << (end & 31)) - 1);
}
