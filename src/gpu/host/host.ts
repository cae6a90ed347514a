/**
 * The main thread's side of the GPU worker thread (worker/gpu-worker.ts), which owns
 * the process's one WebGPU device (protocol.ts says why it is a worker):
 * `gpuHost()` starts the worker on first use, `closeGpuHost()` destroys the
 * device and ends it, and `WorkerGpuMarker` is the gc/ `Marker` that the CLI
 * uses for gpu-dfs and gpu-bfs, standing for a `GpuMarker` in the worker.
 *
 * Nothing here loads Dawn: the main thread's isolate never maps a GPU buffer.
 */
import type { MessagePort, Worker } from 'node:worker_threads';
import { workerThreads } from '../../heap/worker-threads.js';
import { workerScript } from '../../heap/worker-script.js';
import { evacuationMs } from '../../gc/device-evacuation.js';
import { rangeSlots } from '../../gc/roots.js';
import { MarkerFaultError, type DeviceAssignment, type DeviceEvacuated, type FinishAhead, type MarkerConstraints, type MarkRequest, type MarkResult, type YoungEvacuatingMarker, type YoungSpaces } from '../../gc/marker.js';
import { evacuationRefusal } from '../evacuate/refusal.js';
import { GpuAdapterLimitError, GpuLibraryError, NoGpuAdapterError, type GpuAdapterDescription } from '../device/adapter.js';
import { youngResult } from '../young-result.js';
import type { GpuMarkStats, GpuStartup } from '../worker/gpu-marker.js';
import type { GpuMarkerConfig } from '../marker-shape.js';
import type { RefGraphs } from '../mirror/mirror.js';
import { gpuMarkerShape, keepsHeapMirror } from '../marker-shape.js';
import type { GpuOptions } from '../options.js';
import { sharedCapacity, type Changes, type EvacAssignReply, type EvacuateArgs, type EvacFinishReply, type FinishArgs, type HostReply, type HostRequest, type InputSpec, type MarkReply, type PrepareReply, type RemsetReply, type SharedInts } from '../protocol.js';
import { now } from '../../heap/clock.js';

/** An error from the worker as the class the CLI maps to an exit status. */
function rebuild(e: { name: string; message: string; stack?: string; fault?: string }): Error {
  let err: Error;
  if (e.fault !== undefined) {
    err = new MarkerFaultError(e.fault, e.message);
  } else if (e.name === 'GpuLibraryError') {
    err = new GpuLibraryError(e.message);
  } else if (e.name === 'NoGpuAdapterError') {
    err = new NoGpuAdapterError();
    err.message = e.message;
  } else if (e.name === 'GpuAdapterLimitError') {
    err = new GpuAdapterLimitError(e.message);
  } else {
    err = new Error(e.message);
    err.name = e.name;
  }
  if (e.stack) err.stack = `${err.stack}\n    in the GPU worker: ${e.stack}`;
  return err;
}

/**
 * How long the main thread blocks for a reply to a request that a collection
 * (or the allocation uploading eden ahead) waits for, before leaving it to the
 * event loop, since a futex wake takes microseconds and the event loop's
 * delivery up to a large part of a young mark (docs/decisions/r19d-02). Bounded, so that a slow
 * adapter's marks (seconds on lavapipe) and a dead worker still end in the
 * event loop, where the worker's 'exit' is heard.
 */
const WAIT_HERE_MS = 50;

/** A request's reply as it came: its value, or the error it failed with. */
export type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: Error };

/** A request sent (`GpuHost.send`): its reply; `land`, which blocks this thread until
 *  the reply has come (up to WAIT_HERE_MS) and gives the ms it blocked; and
 *  `outcome`, the reply if it has come, looked for without waiting. */
export interface Sent<T> {
  readonly reply: Promise<T>;
  land(): number;
  outcome(): Outcome<T> | undefined;
}

class GpuHost {
  private readonly worker: Worker;
  /** Replies come on their own channel, so that this thread can take them synchronously. */
  private readonly replies: MessagePort;
  /** Bumped by the worker after each reply it posts. */
  private readonly replied = new Int32Array(new SharedArrayBuffer(4));
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private failure: Error | null = null;
  private closing: Promise<void> | null = null;
  private adapterInfo: GpuAdapterDescription | null = null;

  constructor() {
    const { MessageChannel, Worker } = workerThreads();
    const { port1, port2 } = new MessageChannel();
    this.worker = new Worker(workerScript('gpu/worker/gpu-worker.js', 'the GPU worker script'), { workerData: { replies: port2, replied: this.replied }, transferList: [port2] });
    this.replies = port1;
    this.replies.on('message', (msg: HostReply) => this.settle(msg));
    this.hold(false);
    this.worker.on('error', (e: unknown) => this.fail(e instanceof Error ? e : new Error(String(e))));
    this.worker.on('exit', (code) => this.fail(new Error(`the GPU worker thread exited (code ${code})`)));
  }

  /** The worker keeps the process alive only while a request is out or it is closing. */
  private fail(e: Error): void {
    this.failure ??= e;
    for (const p of this.pending.values()) p.reject(this.failure);
    this.pending.clear();
    if (host === this) host = null;
  }

  /** The worker and its reply channel keep the process alive only while a request is out or it is closing. */
  private hold(on: boolean): void {
    if (on) {
      this.worker.ref();
      this.replies.ref();
    } else {
      this.worker.unref();
      this.replies.unref();
    }
  }

  private settle(msg: HostReply): void {
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    if (this.pending.size === 0 && !this.closing) this.hold(false);
    if (msg.ok) p.resolve(msg.value);
    else p.reject(rebuild(msg.error));
  }

  /** Sends `req`. `waitHere`: block this thread for the reply, up to WAIT_HERE_MS,
   *  for a request the caller awaits at once inside a collection. */
  request<T>(req: HostRequest, waitHere = false): Promise<T> {
    const sent = this.send<T>(req);
    if (waitHere) sent.land();
    return sent.reply;
  }

  /** Sends `req` and lets this thread go on (see `Sent`). */
  send<T>(req: HostRequest): Sent<T> {
    if (this.failure) {
      const error = this.failure;
      return { reply: Promise.reject(error), land: () => 0, outcome: () => ({ ok: false, error }) };
    }
    const id = this.nextId++;
    const seen = Atomics.load(this.replied, 0);
    let settled: Outcome<T> | undefined;
    const reply = new Promise<T>((resolve, reject) => {
      if (this.pending.size === 0) this.hold(true);
      this.pending.set(id, {
        resolve: (value) => resolve((settled = { ok: true, value: value as T }).value),
        reject: (error) => reject((settled = { ok: false, error }).error),
      });
      this.worker.postMessage({ id, req });
    });
    const land = (): number => {
      this.takeReplies();
      if (!this.pending.has(id)) return 0;
      const t = now();
      this.waitHere(id, seen);
      return now() - t;
    };
    // The reply if it has come, without waiting for it.
    const outcome = (): Outcome<T> | undefined => {
      this.takeReplies();
      return settled;
    };
    return { reply, land, outcome };
  }

  /** Sends `req` and blocks this thread for its reply, up to WAIT_HERE_MS: null when
   *  it succeeded, its error when it failed, undefined when none came in time. */
  requestHere(req: HostRequest): Error | null | undefined {
    if (this.failure) return this.failure;
    const id = this.nextId++;
    const seen = Atomics.load(this.replied, 0);
    let outcome: Error | null | undefined;
    if (this.pending.size === 0) this.hold(true);
    this.pending.set(id, { resolve: () => (outcome = null), reject: (e) => (outcome = e) });
    this.worker.postMessage({ id, req });
    this.waitHere(id, seen);
    return outcome;
  }

  /** Settles the requests whose replies are queued, without the event loop. The worker
   *  posts before it bumps the count, so every reply counted is queued here. */
  private takeReplies(): void {
    const { receiveMessageOnPort } = workerThreads();
    for (let m = receiveMessageOnPort(this.replies); m !== undefined; m = receiveMessageOnPort(this.replies)) {
      this.settle(m.message as HostReply);
    }
  }

  /** Takes replies synchronously until request `id`'s has come, or WAIT_HERE_MS passed. */
  private waitHere(id: number, seen: number): void {
    const until = now() + WAIT_HERE_MS;
    for (;;) {
      this.takeReplies();
      const left = until - now();
      if (!this.pending.has(id) || left <= 0) return;
      Atomics.wait(this.replied, 0, seen, left);
      seen = Atomics.load(this.replied, 0);
    }
  }

  /** Opens the device (once) and describes its adapter. */
  async adapter(benchmark: boolean): Promise<GpuAdapterDescription> {
    this.adapterInfo ??= await this.request<GpuAdapterDescription>({ op: 'adapter', benchmark });
    return this.adapterInfo;
  }

  /** The adapter, once a request has opened the device. */
  get openedAdapter(): GpuAdapterDescription | null {
    return this.adapterInfo;
  }

  noteAdapter(a: GpuAdapterDescription): void {
    this.adapterInfo = a;
  }

  /** Stops the kernels' compiling under way in the worker (the start-up beside the
   *  program), at its next step: the request in progress fails, and the ones after it run. */
  abandonCompiles(): void {
    if (!this.failure && !this.closing) this.worker.postMessage({ abandon: true });
  }

  /** Destroys the device in the worker and ends the thread. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (host === this) host = null;
      if (!this.failure) {
        this.hold(true);
        const closed = new Promise<void>((resolve) => {
          this.worker.on('message', (m: { closed?: true }) => m.closed && resolve());
          this.worker.on('exit', () => resolve());
        });
        this.worker.postMessage({ close: true });
        await closed;
      }
      await this.worker.terminate();
      this.replies.close();
    })();
    return this.closing;
  }
}

let host: GpuHost | null = null;
/** Marker ids, unique over the process (a worker restarted after a failure knows none of the old ones). */
let nextMarker = 1;

/** The GPU worker thread, started on first use. */
export function gpuHost(): GpuHost {
  host ??= new GpuHost();
  return host;
}

/** The adapter of the open device, or null when no GPU work has run. */
export function openedAdapter(): GpuAdapterDescription | null {
  return host?.openedAdapter ?? null;
}

/** Destroys the device and ends the worker, if one was started; the CLI awaits it before exiting. */
export function closeGpuHost(): Promise<void> {
  return host ? host.close() : Promise.resolve();
}

/** How long a streamed live list may stall before the wait gives up: the worker
 *  copies it at memory speed, so only a dead worker gets here. */
const LIVE_STALL_MS = 30_000;

/** Blocks this thread until the worker has copied `count` entries of a young
 *  mark's live list (MarkResult.liveReady); `progress[0]` counts them. */
function waitForLive(progress: Int32Array, count: number): void {
  for (;;) {
    const done = Atomics.load(progress, 0);
    if (done >= count) return;
    // The device went with the list: the plan marks again on the CPU (gc/plan.ts).
    if (done < 0) throw new MarkerFaultError('device-lost', 'the GPU worker could not copy the live list to the main thread');
    if (Atomics.wait(progress, 0, done, LIVE_STALL_MS) === 'timed-out') {
      throw new Error(`the GPU worker stopped copying the live list (${done} of ${count} entries after ${LIVE_STALL_MS / 1000} s)`);
    }
  }
}

/** Copies int32 arrays into a SharedArrayBuffer it grows as needed (arrays
 *  already in shared memory are passed as they are). */
class SharedScratch {
  private buf = new Int32Array(new SharedArrayBuffer(4 * 1024));

  put(a: Int32Array): SharedInts {
    if (a.buffer instanceof SharedArrayBuffer) return { buffer: a.buffer, offset: a.byteOffset >>> 2, length: a.length };
    this.buf = sharedCapacity(this.buf, a.length);
    this.buf.set(a);
    return { buffer: this.buf.buffer, offset: 0, length: a.length };
  }
}

/** The graphs as plain data: their arrays are SharedArrayBuffers (heap/ref-graph.ts), so nothing is copied. */
function graphsData(g: RefGraphs): RefGraphs {
  const one = (c: RefGraphs['young']) => ({ vertices: c.vertices, vertexCount: c.vertexCount, edges: c.edges, edgeCount: c.edgeCount });
  return { young: one(g.young), tenured: one(g.tenured) };
}

/** A finish's reply as the plan takes it: views of the worker's shared buffers. */
function evacuated(r: EvacFinishReply): DeviceEvacuated {
  const f = r.forward;
  const e = r.rememberedEdges;
  const { rememberedEdges: _shared, ...rest } = r;
  return {
    ...rest,
    forward: new Int32Array(f.buffer, f.offset * 4, f.length),
    ...(e ? { rememberedEdges: new Uint32Array(e.buffer, e.offset * 4, e.length) } : {}),
  };
}

/**
 * A gc/ `Marker` whose marking runs in the GPU worker thread: a `GpuMarker`
 * there with the same configuration, fed from this thread's heap. Its methods
 * mirror `GpuMarker`'s (worker/gpu-marker.ts has the details).
 */
export class WorkerGpuMarker implements YoungEvacuatingMarker {
  readonly name: string;
  readonly constraints: MarkerConstraints;
  readonly options: GpuOptions;
  lastStats: GpuMarkStats | null = null;
  private readonly id: number;
  private created: Promise<void> | null = null;
  private readonly heapWords: number;
  private readonly roots = new SharedScratch();
  private readonly forward = new SharedScratch();
  private readonly slotRuns = new SharedScratch();
  private readonly referents = new SharedScratch();
  private readonly edgeStarts = new SharedScratch();
  private readonly ranges = new SharedScratch();
  private readonly liveList = new SharedScratch();
  /** The view of the last young mark's list handed to the plan: only to tell
   *  whether a replay is of that list (the list itself is the worker's,
   *  GpuMarker.lastYoungLive). */
  private lastLive: Int32Array | null = null;

  constructor(private readonly config: GpuMarkerConfig) {
    const shape = gpuMarkerShape(config);
    this.name = shape.name;
    this.options = shape.options;
    this.constraints = shape.constraints;
    if (!(config.input.words.buffer instanceof SharedArrayBuffer)) {
      throw new Error(`${this.name}: the GPU worker needs the heap's words in a SharedArrayBuffer`);
    }
    this.heapWords = config.input.words.length;
    this.id = nextMarker++;
  }

  /** The adapter, once `prepare` or a mark has opened the device. */
  get adapter(): GpuAdapterDescription | null {
    return openedAdapter();
  }

  private ready(): Promise<void> {
    this.created ??= (async () => {
      const input = this.config.input;
      const spec: InputSpec =
        input.layout === 'sable'
          ? {
              layout: 'sable',
              words: input.words.buffer as SharedArrayBuffer,
              dirtyRanges: input.takeDirtyRanges !== undefined,
              objectRanges: input.objectRanges !== undefined,
              sizeTable: input.sizeTable !== undefined,
              youngRange: input.youngRange,
            }
          : {
              layout: 'refgraph',
              words: input.words.buffer as SharedArrayBuffer,
              dirtyGraphs: input.takeDirtyGraphs !== undefined,
              heapMirror: keepsHeapMirror(input, this.options),
              youngRange: input.youngRange,
            };
      await gpuHost().request({
        op: 'create',
        marker: this.id,
        engine: this.config.engine,
        options: this.options,
        benchmark: this.config.benchmark ?? false,
        warmUp: this.config.warmUp,
        input: spec,
      });
    })();
    return this.created;
  }

  /** What changed in the heap since the last request that took it, and the
   *  milliseconds taking it cost (a scan of the heap's mirror cards). */
  private changes(): { changes: Changes; ms: number } {
    const t = now();
    const input = this.config.input;
    const changes: Changes =
      input.layout === 'sable'
        ? { dirty: input.takeDirtyRanges?.() }
        : {
            graphs: graphsData(input.graphs()),
            graphDirty: input.takeDirtyGraphs?.(),
            dirty: keepsHeapMirror(input, this.options) ? input.takeDirtyRanges?.() : undefined,
          };
    return { changes, ms: now() - t };
  }

  /** What `prepare` spent in the worker; null before it ran. */
  startup: GpuStartup | null = null;

  /** Opens the device and makes the marker's mirror and engines in the worker
   *  (see GpuMarker.open): no adapter, or one too small for the heap, fails here. */
  async open(): Promise<void> {
    await this.ready();
    gpuHost().noteAdapter(await gpuHost().request<GpuAdapterDescription>({ op: 'open', marker: this.id }));
  }

  /** Opens the device, compiles the kernels and runs each once (see GpuMarker.prepare). */
  async prepare(): Promise<void> {
    await this.ready();
    this.took(await gpuHost().request<PrepareReply>({ op: 'prepare', marker: this.id }));
  }

  /** `prepare` started in the worker while this thread goes on (after `open`);
   *  `outcome` looks for its end without waiting. The worker takes its requests in
   *  order, so any request sent meanwhile waits for it. */
  prepareBeside(): Sent<unknown> {
    const sent = gpuHost().send<PrepareReply>({ op: 'prepare', marker: this.id });
    return { ...sent, reply: sent.reply.then((r) => this.took(r)) };
  }

  /** The run has ended during `prepareBeside`: stops its compiling instead of
   *  waiting for it (its reply then fails). */
  abandonStart(): void {
    gpuHost().abandonCompiles();
  }

  private took(reply: PrepareReply): void {
    gpuHost().noteAdapter(reply.adapter);
    this.startup = reply.startup;
  }

  get uploadsAhead(): boolean {
    return keepsHeapMirror(this.config.input, this.options) && this.options.edenUpload === 'ahead';
  }

  /** Blocks until the worker has taken the last upload ahead (and, in order, the ones before). */
  private landLast: () => number = () => 0;

  /** Starts an upload ahead: posted before this returns, for the program to go on
   *  while the worker copies (uploads start after `prepare`, once the marker exists). */
  uploadAhead(start: number, end: number, room: number): Promise<void> {
    const sent = gpuHost().send<void>({ op: 'uploadAhead', marker: this.id, start, end, room });
    this.landLast = sent.land;
    return sent.reply;
  }

  /** Blocks until the worker has taken every upload ahead started: the ms it blocked. */
  landUploads(): number {
    const land = this.landLast;
    this.landLast = () => 0;
    return land();
  }

  async mark(request: MarkRequest): Promise<MarkResult> {
    const t0 = now();
    await this.ready();
    const input = this.config.input;
    const { changes, ms } = this.changes();
    const objectRanges = input.layout === 'sable' ? input.objectRanges?.() : undefined;
    this.lastLive = null;
    // The device evacuates next: the main thread reads the list only if the CPU ends up evacuating.
    const deferLive = request.kind === 'young' && this.constraints.evacuatesYoung === true && evacuationRefusal(input, this.options) === null;
    const ev = deferLive ? request.evacuate : undefined;
    const reply = await gpuHost().request<MarkReply>({
      op: 'mark',
      deferLive,
      marker: this.id,
      kind: request.kind,
      youngStart: request.youngStart,
      youngEnd: request.youngEnd,
      roots: this.roots.put(request.roots),
      objectRanges,
      changes,
      sentAt: now(),
      ...(ev ? { evacuate: this.evacuateArgs(ev.spaces, ev.ahead) } : {}),
    }, true);
    const toMain = now() - reply.repliedAt;
    const total = now() - t0;
    if (reply.stats) this.lastStats = { ...reply.stats, phases: { ...reply.stats.phases, dirty: ms, toMain, host: total } };
    if (process.env.MINIVM_GPU_PHASES) {
      const p = this.lastStats?.phases ?? {};
      process.stderr.write(
        `host-phases ${this.name} ${request.kind} changes=${ms.toFixed(2)} toWorker=${(p.toWorker ?? 0).toFixed(2)} ` +
          `worker=${(p.total ?? 0).toFixed(2)} toMain=${toMain.toFixed(2)} total=${total.toFixed(2)} compiled=${reply.stats?.pipelinesCreated ?? '-'}\n`,
      );
    }
    // The whole call as this thread saw it, messages and the taking of the changes
    // included, less an evacuation made with the mark (the copy phase's).
    const e = reply.evacuation;
    const times = { ...reply.times, mark: total - (e?.ok === true ? evacuationMs(e) : 0), upload: (reply.times.upload ?? 0) + ms };
    if (reply.live) {
      const live = new Int32Array(reply.live.buffer, reply.live.offset * 4, reply.live.length);
      this.lastLive = live;
      const evacuation = reply.evacuation && this.assignment(reply.evacuation);
      const progress = new Int32Array(reply.progress!);
      // A declined evacuation with the mark left the list to the CPU: the worker copies it.
      let asked = !deferLive || evacuation?.ok === false;
      const liveReady = (count: number): void => {
        if (!asked) {
          asked = true;
          // The worker answers once the list is copied; a failure names its cause (a lost device).
          const failed = gpuHost().requestHere({ op: 'streamLive', marker: this.id });
          if (failed && Atomics.load(progress, 0) < live.length) {
            throw failed instanceof MarkerFaultError ? failed : new MarkerFaultError('device-lost', `the GPU worker could not copy the live list: ${failed.message}`);
          }
        }
        waitForLive(progress, count);
      };
      // Not spread: that would call the bitmap's getter, which builds a heap-sized bitmap.
      const young = youngResult(live, this.heapWords);
      return {
        live,
        liveReady,
        get bitmap(): Uint32Array {
          liveReady(live.length);
          return young.bitmap;
        },
        times,
        ...(evacuation ? { evacuation } : {}),
      };
    }
    const b = reply.bitmap!;
    return { bitmap: new Uint32Array(b.buffer, b.offset * 4, b.length), times };
  }

  async replayEvacuation(live: Int32Array, forward: Int32Array, slotRuns: Int32Array = new Int32Array(0)): Promise<void> {
    const input = this.config.input;
    const own = live === this.lastLive;
    this.lastLive = null;
    await gpuHost().request({
      op: 'replay',
      marker: this.id,
      liveLength: live.length,
      // A young mark's list is the worker's own; a full mark's young objects travel.
      live: own ? undefined : this.liveList.put(live),
      forward: this.forward.put(forward),
      slotRuns: this.slotRuns.put(slotRuns),
      sizeTable: input.sizeTable?.(),
    }, true);
  }

  async assignYoung(live: Int32Array, spaces: YoungSpaces, ahead?: FinishAhead): Promise<DeviceAssignment> {
    const input = this.config.input;
    const refusal = evacuationRefusal(input, this.options);
    if (refusal) return { ok: false, reason: refusal };
    if (live !== this.lastLive) return { ok: false, reason: 'not the last young mark\'s list' };
    const r = await gpuHost().request<EvacAssignReply>({ op: 'evacAssign', marker: this.id, liveLength: live.length, ...this.evacuateArgs(spaces, ahead) }, true);
    return this.assignment(r);
  }

  /** The assignment's arguments (and the finish's, with `ahead`), in this marker's shared buffers. */
  private evacuateArgs(spaces: YoungSpaces, ahead: FinishAhead | undefined): EvacuateArgs {
    const input = this.config.input;
    return {
      spaces,
      sizeTable: input.sizeTable?.(),
      refTable: input.layout === 'refgraph' ? input.refTable?.() : undefined,
      ...(ahead ? { ahead: { ...this.finishArgs(ahead.base, ahead.slotRuns, ahead.headers, ahead.referents, ahead.edgeStarts), reserve: ahead.reserve } } : {}),
    };
  }

  /** An assignment's reply as the plan takes it: a finished one ends the list's use. */
  private assignment(r: EvacAssignReply): DeviceAssignment {
    if (!r.ok) return r;
    const { finished, ...assigned } = r;
    if (finished === undefined) return assigned;
    this.lastLive = null;
    return { ...assigned, finished: evacuated(finished) };
  }

  async finishYoung(base: number, slotRuns: Int32Array, headers: boolean, referents: Int32Array | null, edgeStarts: Int32Array | null = null): Promise<DeviceEvacuated> {
    this.lastLive = null;
    const r = await gpuHost().request<EvacFinishReply>({ op: 'evacFinish', marker: this.id, ...this.finishArgs(base, slotRuns, headers, referents, edgeStarts) }, true);
    return evacuated(r);
  }

  /** The finish's arguments, in this marker's shared buffers. */
  private finishArgs(base: number, slotRuns: Int32Array, headers: boolean, referents: Int32Array | null, edgeStarts: Int32Array | null): FinishArgs {
    return {
      base,
      slotRuns: this.slotRuns.put(slotRuns),
      headers,
      referents: referents === null ? null : this.referents.put(referents),
      edgeStarts: edgeStarts === null ? null : this.edgeStarts.put(edgeStarts),
    };
  }

  async scanRememberedSet(ranges: Int32Array, youngStart: number, youngEnd: number, beforeMark = true): Promise<RemsetReply | null> {
    if (!this.constraints.scansRememberedSet) throw new Error(`${this.name}: scanRememberedSet needs a heap mirror (sable, or refgraph evacuating on the GPU)`);
    // The same test as GpuMarker's, made here to spare the round trip; the count goes with the ranges.
    const slots = rangeSlots(ranges);
    if (slots < this.options.remsetMinSlots) return null;
    await this.ready();
    const { changes, ms } = this.changes();
    const found = await gpuHost().request<RemsetReply | null>({
      op: 'remset',
      marker: this.id,
      ranges: this.ranges.put(ranges),
      slots,
      beforeMark,
      youngStart,
      youngEnd,
      changes,
    }, true);
    return found && { ...found, syncMs: found.syncMs + ms };
  }

  async verifyCopy(check: (copy: Uint32Array) => void): Promise<void> {
    if (!this.created) return;
    const { changes } = this.changes();
    const copy = await gpuHost().request<{ buffer: ArrayBuffer; offset: number; length: number } | null>({
      op: 'verifyCopy',
      marker: this.id,
      changes,
    });
    if (copy) check(new Uint32Array(copy.buffer, copy.offset * 4, copy.length));
  }

  dispose(): void {
    this.lastLive = null;
    if (!this.created) return;
    this.created = null;
    // Nothing waits for it: requests run in order, and closeGpuHost() waits for all.
    host?.request({ op: 'dispose', marker: this.id }).catch(() => undefined);
  }
}
