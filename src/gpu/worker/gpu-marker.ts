/**
 * `GpuMarker`: the gc/ `Marker` that traces on the GPU, for either engine
 * (gpu-dfs: FastCollect; gpu-bfs: Maas et al.) and either layout (sable: the
 * heap words themselves; refgraph: the per-generation CSR reference graphs).
 *
 * Each mark: open the device (once per process), bring the mirror up to date
 * with what changed since the last mark, translate the roots into the layout's
 * reference words, trace, and return the bitmap over heap addresses (and, for a
 * young collection, the list of reachable young objects).
 */
import { positionsIn } from '../../gc/list-search.js';
import { fitsAhead, type Assigned, type DeviceAssignment, type DeviceEvacuated, type FinishAhead, type Refused, type MarkerConstraints, type MarkRequest, type MarkResult, type YoungEvacuatingMarker, type YoungSpaces } from '../../gc/marker.js';
import { DeviceEvacuation } from '../evacuate/device.js';
import { evacuationRefusal } from '../evacuate/refusal.js';
import { BfsEngine } from '../engines/bfs.js';
import { DfsEngine } from '../engines/dfs.js';
import type { GpuContext } from '../device/device.js';
import { GpuAdapterLimitError, openGpu } from '../device/device.js';
import type { GpuEngineImpl, MirrorTarget, TraceJob, TraceResult } from '../engines/job.js';
import { graphJob, sableJob } from '../engines/layout-jobs.js';
import type { DirtyRanges, GraphDirty, UploadStats } from '../mirror/mirror.js';
import { GraphMirror, HeapMirror, StagingUploader } from '../mirror/mirror.js';
import { RemsetScan, type RemsetResult } from '../mirror/remset.js';
import { rangeSlots } from '../../gc/roots.js';
import { compilesSettled, pipelinesCreated, stopIfAbandoned } from '../device/shader.js';
import { EvacuationReplay } from '../mirror/replay.js';
import type { GpuOptions } from '../options.js';
import { optionsLabel } from '../options.js';
import { gpuMarkerShape, keepsHeapMirror, type GpuMarkerConfig, type SableInput } from '../marker-shape.js';
import { heapWriters } from './heap-writers.js';
import { LiveList } from '../live-list.js';
import { now } from '../../heap/clock.js';

/** What the last mark did, for `--stats` and tests. */
export interface GpuMarkStats {
  readonly label: string;
  readonly rounds: number;
  readonly submits: number;
  readonly fallbackFrontier: number;
  /** gpu-dfs: nodes its pointer chases marked from guessed addresses (dfs.wgsl chaseAhead). */
  readonly chasedAhead?: number;
  /** Host milliseconds of the last mark by step: prepare (device, roots), upload,
   *  setup (program, buffers), rounds (the GPU loop, waits included), gpu (its
   *  timestamped kernel time), drain, readback, cpu (fallback), total. */
  readonly phases: Readonly<Record<string, number>>;
  /** Pipelines created by this marker's collection work (marks, replays, remembered
   *  sets, device evacuations) since its previous mark: `prepare` creates them all,
   *  so anything but 0 is a compilation in a pause. */
  readonly pipelinesCreated: number;
}

/** What `GpuMarker.prepare` spent, in host milliseconds: opening the device (and
 *  the mirror), compiling every pipeline and running each once, and (hardware)
 *  creating the heap-sized buffers; `pipelines`: how many it created. */
export interface GpuStartup {
  readonly deviceMs: number;
  readonly kernelsMs: number;
  readonly buffersMs: number;
  readonly pipelines: number;
}

/** The slots of (first slot, count) runs. */
function runSlots(runs: Int32Array): number {
  let n = 0;
  for (let i = 1; i < runs.length; i += 2) n += runs[i]!;
  return n;
}

export class GpuMarker implements YoungEvacuatingMarker {
  readonly name: string;
  readonly constraints: MarkerConstraints;
  readonly options: GpuOptions;
  lastStats: GpuMarkStats | null = null;
  /** The device, from `ready()`. */
  private ctx: GpuContext | null = null;
  private uploader: StagingUploader | null = null;
  private replay: EvacuationReplay | null = null;
  /** `evacuate=gpu`: young evacuations on the device (evacuate/device.ts). */
  private evacuation: DeviceEvacuation | null = null;
  private remset: RemsetScan | null = null;
  /** The last mark, for `replayEvacuation`: its young range and, for a young
   *  mark, its live list and how much of it the engine's device buffer holds (a
   *  full mark has no list: the plan lists its young objects from the bitmap). */
  private lastMark: { live: LiveList | null; deviceLive: number; youngStart: number; youngEnd: number } | null = null;
  /** What the engine marks: the heap mirror (sable) or the graphs (refgraph). */
  private mirror: HeapMirror | GraphMirror | null = null;
  /** The heap's words on the device, where evacuations move objects: the
   *  engine's mirror under sable; under refgraph one beside the graphs, kept
   *  only to evacuate there (marker-shape.ts keepsHeapMirror). */
  private heapMirror: HeapMirror | null = null;
  private engine: GpuEngineImpl | null = null;
  /** `update` was called since the last mark: mark uploads nothing more. */
  private pushed = false;
  /** Pipelines created by collection work since the last mark (GpuMarkStats.pipelinesCreated). */
  private lateCompiles = 0;
  /** What `prepare` spent; null before it ran. */
  startup: GpuStartup | null = null;

  constructor(private readonly config: GpuMarkerConfig) {
    const shape = gpuMarkerShape(config);
    this.name = shape.name;
    this.options = shape.options;
    this.constraints = shape.constraints;
  }

  /**
   * Pushes changes to the mirror ahead of the next mark, for callers that prefer
   * to push rather than be asked (`takeDirtyRanges`/`takeDirtyGraphs`): sable
   * takes word ranges of the heap, refgraph the ranges of each graph array. The
   * next mark then uploads nothing more. Without either, a mark uploads all.
   */
  async update(dirty: DirtyRanges | 'all' | GraphDirty): Promise<UploadStats> {
    await this.ready();
    const input = this.config.input;
    const stats =
      input.layout === 'sable'
        ? await (this.mirror as HeapMirror).update(input.words, dirty as DirtyRanges | 'all')
        : await (this.mirror as GraphMirror).update(input.graphs(), dirty === 'all' ? {} : (dirty as GraphDirty));
    this.pushed = true;
    this.pushedStats.bytes += stats.bytes;
    this.pushedStats.ms += stats.ms;
    return stats;
  }

  private pushedStats: UploadStats = { bytes: 0, ms: 0 };

  /** True when the heap may hand eden over ahead of the collection (`uploadAhead`). */
  get uploadsAhead(): boolean {
    return keepsHeapMirror(this.config.input, this.options) && this.options.edenUpload === 'ahead';
  }

  /** Uploaded ahead since the last mark (reported with the next mark, not in its pause). */
  private ahead: UploadStats = { bytes: 0, ms: 0 };

  /**
   * `upload=ahead` with a heap mirror: the heap's words [start, end) (eden allocated since the
   * mirror last took it: complete objects, whose later reference stores mark
   * mirror cards) go to the mirror now, while the program waits, through the
   * staging ring; nothing waits for the copies, which the next mark's submits
   * follow in queue order (as they follow a pending replay's).
   */
  async uploadAhead(start: number, end: number): Promise<void> {
    await this.ready();
    const st = await this.heapMirror!.stage(this.config.input.words, [start, end]);
    this.ahead.bytes += st.bytes;
    this.ahead.ms += st.ms;
  }

  /**
   * After an upload ahead, with eden to reach word `end` two uploads on (or its
   * end): grows what the next device evacuation reads back into, so that neither
   * its pause creates it nor the last upload before it, whose reserve would run
   * beside the collection (the worker calls this once it has replied).
   */
  reserveAhead(end: number): void {
    const young = this.config.input.youngRange;
    if (this.evacuation && young) this.evacuation.reserve(end - young[0]);
  }

  /**
   * Marks. `keepLive` (the worker, when the device evacuates this young
   * collection next): the engine may leave the live list on the device, in
   * address order once `lastYoungList.settle()` has run; the result then has no
   * list (`live` absent, and its bitmap throws), and `lastYoungList` reads it
   * back when someone needs it.
   */
  async mark(request: MarkRequest, keepLive = false): Promise<MarkResult> {
    const t0 = now();
    const created0 = pipelinesCreated();
    await this.ready();
    const input = this.config.input;
    const young = request.kind === 'young';
    let upload: UploadStats;
    let job: TraceJob;
    let dirtyMs = 0;
    let replayWait = 0;
    // Bringing the mirror up to date: reported with the mark, but not counted in
    // `prepare`; done already when the remembered set was scanned on the GPU.
    const tSync = now();
    if (input.layout === 'sable') {
      const sync = this.synced ?? (await this.syncHeap(this.pushed));
      this.synced = null;
      ({ upload, dirtyMs, replayWait } = sync);
    } else {
      upload = this.pushed
        ? this.pushedStats
        : await (this.mirror as GraphMirror).update(input.graphs(), input.takeDirtyGraphs ? input.takeDirtyGraphs() : {});
      this.pushed = false;
      this.pushedStats = { bytes: 0, ms: 0 };
      if (this.heapMirror) {
        // The words a young collection may evacuate on the device (synced already
        // when the remembered set was scanned on the GPU).
        const words = this.synced ?? (await this.syncHeap(false));
        this.synced = null;
        upload = { bytes: upload.bytes + words.upload.bytes, ms: upload.ms + words.upload.ms };
        dirtyMs = words.dirtyMs;
      }
    }
    const syncMs = now() - tSync;
    job =
      input.layout === 'sable'
        ? { ...sableJob(input.words, request, input.objectRanges?.(), this.options.stealAreas === 'occupied'), keepLive: keepLive && young && this.evacuation !== null }
        : graphJob(input.words, input.graphs(), request);
    const tTrace = now();
    this.lastMark = null;
    this.lastList = null;
    const r: TraceResult = await this.engine!.trace(job);
    const engine = this.engine!;
    const kept = r.keptLive;
    const list = !young ? null : kept !== undefined ? LiveList.onDevice(kept.length, () => engine.readLive(kept.length), kept.order) : LiveList.onHost(r.live ?? new Int32Array(0));
    this.lastList = list;
    if (this.heapMirror) {
      // The request's young range: a full job's covers the whole heap.
      const { youngStart, youngEnd } = request;
      this.lastMark = { live: list, deviceLive: list ? (r.deviceLive ?? 0) : 0, youngStart, youngEnd };
    }
    const total = now() - t0;
    const ahead = this.ahead.bytes > 0 ? { aheadBytes: this.ahead.bytes, aheadMs: this.ahead.ms } : {};
    this.ahead = { bytes: 0, ms: 0 };
    const phases = {
      replayWait,
      dirty: dirtyMs,
      prepare: tTrace - t0 - syncMs,
      upload: upload.ms,
      ...(r.phases ?? {}),
      total,
    };
    const compiled = this.lateCompiles + pipelinesCreated() - created0;
    this.lateCompiles = 0;
    this.lastStats = {
      label: optionsLabel(this.options, this.config.engine),
      rounds: r.rounds,
      submits: r.submits,
      fallbackFrontier: r.fallbackFrontier,
      chasedAhead: r.chasedAhead,
      phases,
      pipelinesCreated: compiled,
    };
    if (process.env.MINIVM_GPU_PHASES) {
      process.stderr.write(
        `gpu-phases ${this.name} ${request.kind} rounds=${r.rounds} submits=${r.submits} fallback=${r.fallbackFrontier} ahead=${r.chasedAhead ?? '-'} compiled=${compiled} ` +
          Object.entries(phases)
            .map(([k, v]) => `${k}=${v.toFixed(2)}`)
            .join(' ') +
          '\n',
      );
    }
    // In process (no worker), the evacuation asked for with the mark is made here.
    const ev = request.evacuate;
    const evacuation = ev !== undefined && young && this.evacuation !== null ? await this.assignYoung(list!, ev.spaces, ev.ahead) : undefined;
    return {
      get bitmap() {
        return r.bitmap;
      },
      ...(evacuation ? { evacuation } : {}),
      live: young ? (list!.host ?? undefined) : undefined,
      times: {
        ...r.times,
        mark: total,
        // Taking the dirty ranges (a scan of the heap's mirror cards) is part of the upload.
        // With the roots' upload (the engines time it) and the taking of the dirty ranges.
        upload: upload.ms + dirtyMs + replayWait + (r.times.upload ?? 0),
        uploadBytes: upload.bytes + (r.times.uploadBytes ?? 0),
        ...ahead,
      },
    };
  }

  /** The last young mark's live list (on the host, or left on the device), until
   *  the next mark: the one record of it in the worker (the main thread keeps only
   *  the view it handed to the plan, host/host.ts). Null after a full mark. */
  get lastYoungList(): LiveList | null {
    return this.lastList;
  }

  private lastList: LiveList | null = null;

  /**
   * The plan evacuated the live young objects of the last mark (`live`: a young
   * mark's own list, the same array in its order; after a full mark, the young
   * objects of its bitmap) to the header addresses `forward` and redirected the
   * tenured slots of `slotRuns`: the mirror makes the same changes (mirror/replay.ts),
   * and the heap need not send the moved objects or the slots again. A full
   * mark's list is not on the device, so it travels with `forward`, 8 bytes an
   * object instead of the objects (docs/decisions/r19g-0006). The plan calls it only
   * when `replaysEvacuation`; a call that cannot be replayed is a bug in the caller.
   */
  async replayEvacuation(live: Int32Array, forward: Int32Array, slotRuns: Int32Array = new Int32Array(0)): Promise<void> {
    const last = this.lastMark;
    this.lastMark = null;
    if (!last) throw new Error(`${this.name}: replayEvacuation without a mark to replay`);
    if (last.live !== null && !last.live.is(live)) {
      throw new Error(`${this.name}: replayEvacuation of a live list other than the last young mark's`);
    }
    if (!this.replay) throw new Error(`${this.name}: replayEvacuation, but this marker does not replay evacuations`);
    const input = this.config.input as SableInput;
    const replay = this.replay;
    await this.counted(() => replay.apply({
      liveBuffer: this.engine!.liveBuffer(),
      deviceLive: Math.min(last.deviceLive, live.length),
      live,
      forward,
      slotRuns,
      youngStart: last.youngStart,
      youngEnd: last.youngEnd,
      sizeTable: input.sizeTable!(),
    }));
    this.replayPending = true;
  }

  /** Step 1 of a device evacuation of the last young mark's `live` (evacuate/device.ts),
   *  and step 2 at once when its promotions fit the buffer carved `ahead`. */
  async assignYoung(live: Int32Array | LiveList, spaces: YoungSpaces, ahead?: FinishAhead): Promise<DeviceAssignment> {
    const a = await this.assignOnly(live, spaces);
    if (!a.ok || !fitsAhead(a.promotedWords, ahead)) return a;
    const { base, slotRuns, headers, referents, edgeStarts } = ahead;
    return { ...a, finished: await this.finishYoung(base, slotRuns, headers, referents, edgeStarts) };
  }

  /** Step 1 alone (the worker goes on to step 2 itself, into its shared buffers). */
  async assignOnly(live: Int32Array | LiveList, spaces: YoungSpaces): Promise<Assigned | Refused> {
    const refusal = evacuationRefusal(this.config.input, this.options);
    if (refusal) return { ok: false, reason: refusal };
    const last = this.lastMark;
    if (!this.evacuation || !last || last.live === null) {
      return { ok: false, reason: 'no young mark on the device' };
    }
    const list = last.live;
    if (!list.is(live)) throw new Error(`${this.name}: assignYoung of a live list other than the last young mark's`);
    list.settle();
    const input = this.config.input;
    const evacuation = this.evacuation;
    return this.counted(() => evacuation.assign({
      liveBuffer: this.engine!.liveBuffer(),
      deviceLive: Math.min(last.deviceLive, list.length),
      live: list,
      youngStart: last.youngStart,
      youngEnd: last.youngEnd,
      ...spaces,
      sizeTable: input.sizeTable!(),
      ...(input.layout === 'refgraph' ? { refTable: input.refTable!(), graphs: input.graphs() } : {}),
    }));
  }

  /** Step 2: moves the objects (the mirror stays the heap's copy: nothing to replay).
   *  `forward` and `remembered`: where the new addresses and (refgraph) the
   *  remembered slots' edges go (the worker's shared buffers); else new arrays. */
  async finishYoung(
    base: number,
    slotRuns: Int32Array,
    headers: boolean,
    referents: Int32Array | null,
    edgeStarts: Int32Array | null = null,
    forward?: Int32Array,
    remembered?: (slots: number) => Uint32Array,
  ): Promise<DeviceEvacuated> {
    const last = this.lastMark;
    this.lastMark = null;
    if (!this.evacuation || !last || last.live === null) throw new Error(`${this.name}: finishYoung without an assignment`);
    // The referents' places in the list; one the list lacks (not in address order) needs
    // forwarding headers. A list left on the device is in address order there, and
    // the device finds them itself.
    const list = last.live;
    const search = referents !== null && list.host === null;
    const picks = referents === null ? null : search ? referents : positionsIn(list.host!, referents);
    const out = forward ?? new Int32Array(list.length);
    // Refgraph: the remembered slots' new edges, one per slot.
    const slots = this.config.input.layout === 'refgraph' ? runSlots(slotRuns) : 0;
    const edges = slots > 0 ? (remembered?.(slots) ?? new Uint32Array(slots)) : undefined;
    const evacuation = this.evacuation;
    const done = await this.counted(() =>
      evacuation.finish({ base, slotRuns, headers, words: this.config.input.words, forward: out, picks, pickSearch: search, ...(edges ? { rememberedEdges: edges, edgeStarts } : {}) }),
    );
    const forwarded = out.subarray(0, done.picked ? picks!.length : list.length);
    // The device's search answers 0 for a referent its list lacks: the list was not in address order.
    if (search && done.picked && forwarded.includes(0)) throw new Error(`${this.name}: a root's referent is not in the live list the device searched`);
    return { ...done, forward: forwarded, ...(edges && done.graph?.rememberedEdges ? { rememberedEdges: edges.subarray(0, slots) } : {}) };
  }

  /**
   * Brings the heap mirror up to date for a mark: waits for a pending replay
   * (the GPU replays the last evacuation while the program runs; what is left
   * is counted as part of the upload, so that the kernel's timestamps time the
   * mark alone), then uploads what the heap wrote since (`takeDirtyRanges`),
   * unless `pushed` (`update` did).
   */
  private async syncHeap(pushed: boolean): Promise<{ upload: UploadStats; dirtyMs: number; replayWait: number }> {
    const input = this.config.input;
    let replayWait = 0;
    if (this.replayPending) {
      const tw = now();
      await this.ctx!.device.queue.onSubmittedWorkDone();
      replayWait = now() - tw;
      this.replayPending = false;
    }
    const td = now();
    const ranges = pushed ? [] : input.takeDirtyRanges ? input.takeDirtyRanges() : 'all';
    const dirtyMs = now() - td;
    const upload = pushed ? this.pushedStats : await this.heapMirror!.update(input.words, ranges);
    if (pushed) {
      this.pushed = false;
      this.pushedStats = { bytes: 0, ms: 0 };
    }
    return { upload, dirtyMs, replayWait };
  }

  /** The mirror synced for the coming mark by `scanRememberedSet`. */
  private synced: { upload: UploadStats; dirtyMs: number; replayWait: number } | null = null;

  /**
   * With a heap mirror: scans the remembered set on the GPU (mirror/remset.ts) from the slot
   * ranges of the dirty cards' objects, after bringing the mirror up to date (for
   * the mark that follows, in a young collection). Null when the results
   * overflowed the device lists (the plan then scans on the CPU).
   */
  async scanRememberedSet(
    ranges: Int32Array,
    youngStart: number,
    youngEnd: number,
    beforeMark = true,
    slots = rangeSlots(ranges),
  ): Promise<(RemsetResult & { syncMs: number }) | null> {
    if (!this.constraints.scansRememberedSet) throw new Error(`${this.name}: scanRememberedSet needs a heap mirror (sable, or refgraph evacuating on the GPU)`);
    // A round trip to the device costs more than the CPU's scan of a small
    // remembered set (docs/decisions/r19g-0009).
    if (slots < this.options.remsetMinSlots) return null;
    const t = now();
    await this.ready();
    // Under refgraph `pushed` speaks of the graphs, which the mark takes.
    const synced = await this.syncHeap(this.config.input.layout === 'sable' && this.pushed);
    // A full collection's scan comes after its mark: the next mark syncs for itself.
    this.synced = beforeMark ? synced : null;
    const syncMs = now() - t;
    const found = await this.counted(() => this.remset!.scan(ranges, youngStart, youngEnd));
    return found && { ...found, syncMs };
  }

  async verifyCopy(check: (copy: Uint32Array) => void): Promise<void> {
    const input = this.config.input;
    const mirror = this.heapMirror;
    if (!mirror || !this.engine) return;
    // The writes since the mark (remembered-slot fix-ups, sweeps, promotions not
    // replayed) go up now, as the next mark would send them; that mark then sends
    // only what the program writes after this.
    if (input.takeDirtyRanges) await mirror.update(input.words, input.takeDirtyRanges());
    check(await mirror.read());
  }

  /** Runs collection work `f`, counting the pipelines it created (the worker runs
   *  one request at a time, so they are all `f`'s). */
  private async counted<T>(f: () => Promise<T>): Promise<T> {
    const before = pipelinesCreated();
    try {
      return await f();
    } finally {
      this.lateCompiles += pipelinesCreated() - before;
    }
  }

  /** A replay was submitted and the next mark has not waited for it yet. */
  private replayPending = false;

  /** `open`'s time, for `startup`. */
  private openMs = 0;

  /** Opens the device and makes the marker's mirror and engines (no adapter, or
   *  one too small for the heap, fails here): the part of `prepare` a program
   *  cannot run without. */
  async open(): Promise<void> {
    if (this.engine) return;
    const t0 = now();
    await this.ready();
    this.openMs = now() - t0;
  }

  /**
   * Opens the device and compiles every kernel this marker can use, so that the
   * first collection does not pay for it (docs/decisions/r19g-0007). The CLI
   * calls it at start-up for a GPU collector, before the program runs or beside it
   * (docs/decisions/s65-01-the-device-starts-beside-the-program.md).
   */
  async prepare(): Promise<void> {
    await this.open();
    const t1 = now();
    const created0 = pipelinesCreated();
    // Each program runs its pipelines once as it is built (device/shader.ts runOnce).
    try {
      await Promise.all([this.engine!.prepare(), this.replay?.compile(), this.remset?.compile(), this.evacuation?.prepare()]);
    } catch (e) {
      await compilesSettled();
      throw e;
    }
    const t2 = now();
    stopIfAbandoned();
    await this.warmUp();
    this.startup = {
      deviceMs: this.openMs,
      kernelsMs: t2 - t1,
      buffersMs: now() - t2,
      pipelines: pipelinesCreated() - created0,
    };
  }

  /**
   * Sable: one rootless young mark and one rootless full mark create the
   * engine's heap-sized buffers (linked and storage stacks, marks, live list) at
   * start-up, as `prepare` compiles the kernels then, so that no collection
   * pays for them (docs/decisions/r19g-0007). The mirror and the marker's own state are left alone: the engine traces
   * nothing. The live list's read-back is made as long as the engine's live
   * buffer too. Not by default on a software adapter: there the buffers are
   * host memory that the driver fills with zeros, seconds that a program that
   * never collects would pay for nothing.
   */
  private async warmUp(): Promise<void> {
    const input = this.config.input;
    const wanted = this.config.warmUp ?? !this.ctx!.adapter.software;
    if (!wanted || input.layout !== 'sable' || !input.youngRange) return;
    const [youngStart, youngEnd] = input.youngRange;
    const roots = new Int32Array(0);
    for (const kind of ['young', 'full'] as const) {
      await this.engine!.trace(sableJob(input.words, { kind, roots, youngStart, youngEnd }, undefined, false));
    }
    // The rootless young mark read back an empty list: make the read-back as long
    // as the engine's live buffer (one entry per 4 young words, the most there can be).
    await this.engine!.reserveLiveReadback(Math.ceil((youngEnd - youngStart) / 4));
  }

  /**
   * gpu-dfs indexes its linked stack by address / 4 (sable), one word per four
   * heap words, in one binding: a 1 GiB heap needs 256 MiB, over a software
   * adapter's 128 MiB. Said at start-up (`prepare`) rather than at the
   * program's first full collection.
   */
  private checkLimits(ctx: GpuContext): void {
    const input = this.config.input;
    if (this.config.engine !== 'gpu-dfs' || input.layout !== 'sable') return;
    const need = Math.ceil(input.words.length / 4) * 4;
    const max = ctx.limits.maxStorageBufferBindingSize;
    if (need <= max) return;
    const mib = (b: number): string => `${Math.floor(b / 2 ** 20)} MiB`;
    throw new GpuAdapterLimitError(
      `gpu-dfs: a ${mib(input.words.length * 4)} heap needs a ${mib(need)} linked stack, over the ${mib(max)} ` +
        `storage binding limit of the adapter '${ctx.adapter.name}'; use --heap ${Math.floor((max * 4) / 2 ** 20)}m or less, ` +
        `or --layout refgraph, or gpu-bfs`,
    );
  }

  private async ready(): Promise<void> {
    if (this.engine) return;
    const ctx: GpuContext = await openGpu({ benchmark: this.config.benchmark });
    this.checkLimits(ctx);
    this.ctx = ctx;
    this.uploader = new StagingUploader(ctx.device, ctx.adapter.software ? 4 << 20 : 16 << 20);
    const input = this.config.input;
    let target: MirrorTarget;
    if (input.layout === 'sable') {
      const m = new HeapMirror(ctx, input.words.length, this.uploader, this.options.chunkWords);
      this.mirror = m;
      this.heapMirror = m;
      if (input.sizeTable) this.replay = new EvacuationReplay(ctx, m, this.uploader);
      if (input.sizeTable && this.options.evacuate === 'gpu') this.evacuation = new DeviceEvacuation(ctx, m, this.uploader, this.options.evacuateSlots === 'gpu', heapWriters(this.options.writers));
      this.remset = new RemsetScan(ctx, m, this.uploader);
      target = {
        layout: 'sable',
        bindings: (v) => m.bindings(v),
        buffers: () => m.buffers(),
        accessors: (v) => m.accessors(v),
      };
    } else {
      const m = new GraphMirror(ctx, this.uploader);
      this.mirror = m;
      if (keepsHeapMirror(input, this.options)) {
        const words = new HeapMirror(ctx, input.words.length, this.uploader, this.options.chunkWords);
        this.heapMirror = words;
        this.evacuation = new DeviceEvacuation(ctx, words, this.uploader, this.options.evacuateSlots === 'gpu', heapWriters(this.options.writers), m);
        this.remset = new RemsetScan(ctx, words, this.uploader);
      }
      target = {
        layout: 'refgraph',
        bindings: (v) => m.bindings(v),
        buffers: () => m.buffers(),
        accessors: (v) => m.accessors(v),
      };
    }
    const uploader = this.uploader;
    const writer = async (dst: GPUBuffer, words: Uint32Array<ArrayBuffer>): Promise<void> => {
      await uploader.write(dst, 0, words);
      await uploader.flush();
    };
    this.engine =
      this.config.engine === 'gpu-dfs'
        ? new DfsEngine(ctx, target, this.options, writer)
        : new BfsEngine(ctx, target, this.options, writer);
  }

  dispose(): void {
    this.engine?.destroy();
    this.replay?.destroy();
    this.replay = null;
    this.remset?.destroy();
    this.remset = null;
    this.evacuation?.destroy();
    this.evacuation = null;
    this.lastMark = null;
    this.lastList = null;
    if (this.heapMirror !== this.mirror) this.heapMirror?.destroy();
    this.mirror?.destroy();
    this.uploader?.destroy();
    this.engine = null;
    this.mirror = null;
    this.heapMirror = null;
    this.uploader = null;
    this.ctx = null;
  }
}
