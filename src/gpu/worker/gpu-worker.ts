/**
 * The GPU worker thread: it owns the process's WebGPU device and runs the
 * `GpuMarker`s that the main thread's `WorkerGpuMarker`s (host/host.ts) stand for.
 * protocol.ts says why the device lives here and what crosses the threads.
 *
 * Requests run one at a time, in the order they came. Each marker's input is
 * built from the heap's shared words and from what the requests carry: the
 * main thread takes the heap's changes (dirty ranges, graph changes) when it
 * sends a request that may upload, and this side hands them to the marker's
 * next `takeDirty...` call, merged if several requests brought some.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { copyWordsInto } from '../../heap/native-copy.js';
import { fitsAhead, type Assigned, type DeviceEvacuated, type Refused } from '../../gc/marker.js';
import { currentGpu, destroyGpu, openGpu } from '../device/device.js';
import { abandonCompiles, resumeCompiles } from '../device/shader.js';
import { deviceFaults, GpuFault } from '../faults.js';
import { STAGED_ROOTS } from '../engines/job.js';
import type { LiveList } from '../live-list.js';
import { GpuMarker } from './gpu-marker.js';
import { disposeHeapWriters } from './heap-writers.js';
import type { RefGraphInput, SableInput } from '../marker-shape.js';
import type { DirtyRanges, GraphDirty, RefGraphs } from '../mirror/mirror.js';
import { sharedCapacity, type Changes, type HostReply, type HostRequest, type EvacAssignReply, type EvacFinishReply, type EvacuateArgs, type FinishArgs, type MarkReply, type PrepareReply, type RemsetReply, type SharedInts } from '../protocol.js';
import { now } from '../../heap/clock.js';

type CreateRequest = Extract<HostRequest, { op: 'create' }>;

function view(s: SharedInts): Int32Array {
  return new Int32Array(s.buffer, s.offset * 4, s.length);
}

/** Ranges taken at two times, as one list ('all' absorbs the rest). */
function mergeRanges(a: number[] | 'all' | null, b: DirtyRanges | 'all'): number[] | 'all' {
  if (a === 'all' || b === 'all') return 'all';
  const out = a ?? [];
  for (let i = 0; i < b.length; i++) out.push(b[i]!);
  return out;
}

/** Graph changes taken at two times: a field absent in either means "all of that array". */
function mergeGraphDirty(a: GraphDirty | null, b: GraphDirty): GraphDirty {
  if (a === null) return b;
  const out: Record<string, DirtyRanges> = {};
  for (const k of ['youngVertices', 'youngEdges', 'tenuredVertices', 'tenuredEdges'] as const) {
    const x = a[k];
    const y = b[k];
    if (x !== undefined && y !== undefined) out[k] = [...Array.from(x), ...Array.from(y)];
  }
  return out;
}

/** One marker run here for the main thread, with what its input returns next. */
class Hosted {
  readonly marker: GpuMarker;
  readonly benchmark: boolean;
  private dirty: number[] | 'all' | null = null;
  private graphDirty: GraphDirty | null = null;
  private graphs: RefGraphs | null = null;
  objectRanges: number[] | undefined;
  sizeTable: Uint32Array | undefined;
  refTable: Uint32Array | undefined;
  /** The live list as the main thread reads it: a copy in shared memory, grown as needed. */
  private shared = new Int32Array(new SharedArrayBuffer(4 * 1024));
  /** A device evacuation's new addresses, for the main thread (grown as needed). */
  private forward = new Int32Array(new SharedArrayBuffer(4 * 1024));

  /** The shared buffer for `n` new addresses. */
  forwardBuffer(n: number): Int32Array<SharedArrayBuffer> {
    this.forward = sharedCapacity(this.forward, n);
    return this.forward;
  }

  /** Refgraph: the remembered slots' new edges, for the main thread (grown as needed). */
  private remembered = new Int32Array(new SharedArrayBuffer(4 * 1024));

  /** The shared buffer for `n` remembered edges. */
  rememberedBuffer(n: number): Uint32Array {
    this.remembered = sharedCapacity(this.remembered, n);
    return new Uint32Array(this.remembered.buffer, 0, n);
  }
  /** The length of the list `share` promised. */
  private expected = 0;
  /** How many entries of `shared` the copy has written (-1: it failed); the main thread waits on it. */
  readonly progress = new Int32Array(new SharedArrayBuffer(4));

  constructor(req: CreateRequest) {
    const spec = req.input;
    this.benchmark = req.benchmark;
    const words = new Int32Array(spec.words);
    let input: SableInput | RefGraphInput;
    if (spec.layout === 'sable') {
      input = {
        layout: 'sable',
        words,
        takeDirtyRanges: spec.dirtyRanges ? () => this.takeDirty() : undefined,
        objectRanges: spec.objectRanges ? () => this.objectRanges ?? [] : undefined,
        sizeTable: spec.sizeTable ? () => this.sizeTable ?? new Uint32Array(0) : undefined,
        youngRange: spec.youngRange,
      };
    } else {
      const mirror = spec.heapMirror
        ? {
            takeDirtyRanges: () => this.takeDirty(),
            sizeTable: () => this.sizeTable ?? new Uint32Array(0),
            refTable: () => this.refTable ?? new Uint32Array(0),
            youngRange: spec.youngRange,
          }
        : {};
      input = {
        layout: 'refgraph',
        words,
        graphs: () => {
          if (this.graphs === null) throw new Error('refgraph: a mark without the graphs');
          return this.graphs;
        },
        takeDirtyGraphs: spec.dirtyGraphs ? () => this.takeGraphDirty() : undefined,
        ...mirror,
      };
    }
    this.marker = new GpuMarker({
      engine: req.engine,
      input,
      options: req.options,
      benchmark: req.benchmark,
      warmUp: req.warmUp,
    });
  }

  receive(c: Changes): void {
    if (c.dirty !== undefined) this.dirty = mergeRanges(this.dirty, c.dirty);
    if (c.graphs !== undefined) this.graphs = c.graphs;
    if (c.graphDirty !== undefined) this.graphDirty = mergeGraphDirty(this.graphDirty, c.graphDirty);
  }

  private takeDirty(): DirtyRanges | 'all' {
    const d = this.dirty ?? [];
    this.dirty = null;
    return d;
  }

  private takeGraphDirty(): GraphDirty {
    // Nothing sent: upload every array in use, as a marker does that is never told.
    const d = this.graphDirty ?? {};
    this.graphDirty = null;
    return d;
  }

  /**
   * Hands a young mark's list to the main thread in shared memory: sizes the
   * shared buffer (a new one when it outgrew it) and returns it with nothing
   * written yet; `stream`, run once the reply is posted, copies the list in
   * blocks, publishing each in `progress`. The main thread starts evacuating
   * the head of the list while the rest is copied, which hides the copy
   * (docs/decisions/r19d-02).
   */
  share(length: number): SharedInts {
    this.expected = length;
    this.shared = sharedCapacity(this.shared, length);
    Atomics.store(this.progress, 0, 0);
    return { buffer: this.shared.buffer, offset: 0, length };
  }

  /** A young mark's list copy left for later (`deferLive`): run when the main thread
   *  asks for the list, when the evacuation leaves it to the CPU, or at disposal. */
  private pendingStream: LiveList | null = null;

  defer(live: LiveList): void {
    this.pendingStream = live;
  }

  /** Runs the deferred copy, if one is waiting, reading back first a list left
   *  on the device; false when the list was gone (with its device). */
  async streamPending(): Promise<boolean> {
    const list = this.pendingStream;
    this.pendingStream = null;
    if (list !== null) {
      let live: Int32Array;
      try {
        live = await list.read();
      } catch {
        // Read as gone by `stream` (the main thread's wait reports it).
        live = new Int32Array(0);
      }
      this.stream(live);
    }
    return Atomics.load(this.progress, 0) >= 0;
  }

  /** A new mark began: the previous collection, and any reader of its list, has ended. */
  dropPending(): void {
    this.pendingStream = null;
  }

  /** The copy `share` promised (the list stays mapped until this marker's next young mark). */
  stream(live: Int32Array): void {
    const p = this.progress;
    try {
      // A device destroyed meanwhile took the mapped list with it (detached: length 0).
      if (live.length !== this.expected) throw new Error('the live list is gone');
      for (let at = 0; at < live.length; ) {
        const end = Math.min(live.length, at + STREAM_BLOCK);
        copyWordsInto(this.shared, at, live, at, end - at);
        Atomics.store(p, 0, end);
        Atomics.notify(p, 0);
        at = end;
      }
    } catch {
      // The main thread's wait reports it (host/host.ts waitForLive).
      Atomics.store(p, 0, -1);
      Atomics.notify(p, 0);
    }
  }
}

/** Entries copied between two publications of a streamed live list (1 MiB). */
const STREAM_BLOCK = 1 << 18;

const markers = new Map<number, Hosted>();

/** A device evacuation's step 2 (GpuMarker.finishYoung) into the worker's shared
 *  buffers; a failure leaves the list to the CPU, copied first, and is thrown on. */
async function finish(h: Hosted, req: FinishArgs): Promise<EvacFinishReply> {
  const n = h.marker.lastYoungList?.length ?? 0;
  const out = h.forwardBuffer(n);
  const referents = req.referents === null ? null : view(req.referents);
  const starts = req.edgeStarts === null ? null : view(req.edgeStarts);
  let done: DeviceEvacuated;
  try {
    done = await h.marker.finishYoung(req.base, view(req.slotRuns), req.headers, referents, starts, out, (n) => h.rememberedBuffer(n));
  } catch (e) {
    await h.streamPending();
    throw e;
  }
  const forward: SharedInts = { buffer: out.buffer, offset: 0, length: done.forward.length };
  const { cardBits, cardFirst, slotsWritten, headersWritten, picked, graph, times } = done;
  const edges = done.rememberedEdges;
  const remembered: SharedInts | undefined = edges && { buffer: edges.buffer as SharedArrayBuffer, offset: 0, length: edges.length };
  return {
    cardBits, cardFirst, slotsWritten, headersWritten, picked, ...(graph ? { graph } : {}), times, forward,
    ...(remembered ? { rememberedEdges: remembered } : {}),
  };
}

/** A device evacuation's step 1 (GpuMarker.assignYoung), and step 2 when its
 *  promotions fit the buffer carved ahead. Declined, or failed, the CPU
 *  evacuates: it reads the list, copied before the reply. */
async function evacuate(h: Hosted, own: LiveList, req: EvacuateArgs): Promise<EvacAssignReply> {
  let a: Assigned | Refused = { ok: false, reason: 'the young mark\'s list is gone' };
  try {
    h.sizeTable = req.sizeTable ?? h.sizeTable;
    h.refTable = req.refTable ?? h.refTable;
    a = await h.marker.assignOnly(own, req.spaces);
    if (!a.ok || !fitsAhead(a.promotedWords, req.ahead)) return a;
    return { ...a, finished: await finish(h, req.ahead) };
  } finally {
    if (!a.ok) await h.streamPending();
  }
}

/** Work a request leaves for after its reply is posted (a young mark's list copy,
 *  a read-back grown ahead of the next evacuation). */
let afterReply: (() => void) | null = null;

function takeAfterReply(): (() => void) | null {
  const f = afterReply;
  afterReply = null;
  return f;
}

function hosted(id: number): Hosted {
  const h = markers.get(id);
  if (!h) throw new Error(`GPU worker: no marker ${id}`);
  return h;
}

/** A result array for the main thread: transferred when it owns its buffer. */
function handOver(a: Uint32Array, transfer: ArrayBuffer[]): { buffer: ArrayBuffer; offset: number; length: number } {
  if (a.buffer instanceof SharedArrayBuffer) {
    const copy = a.slice();
    transfer.push(copy.buffer);
    return { buffer: copy.buffer, offset: 0, length: copy.length };
  }
  transfer.push(a.buffer);
  return { buffer: a.buffer, offset: a.byteOffset >>> 2, length: a.length };
}

async function handle(req: HostRequest, transfer: ArrayBuffer[]): Promise<unknown> {
  switch (req.op) {
    case 'adapter':
      return (await openGpu({ benchmark: req.benchmark })).adapter;
    case 'create':
      if (markers.has(req.marker)) throw new Error(`GPU worker: marker ${req.marker} exists`);
      markers.set(req.marker, new Hosted(req));
      return null;
    case 'open': {
      const h = hosted(req.marker);
      await h.marker.open();
      return (await openGpu({ benchmark: h.benchmark })).adapter;
    }
    case 'prepare': {
      const h = hosted(req.marker);
      await h.marker.prepare();
      return { adapter: (await openGpu({ benchmark: h.benchmark })).adapter, startup: h.marker.startup! } satisfies PrepareReply;
    }
    case 'uploadAhead': {
      const marker = hosted(req.marker).marker;
      await marker.uploadAhead(req.start, req.end);
      afterReply = () => marker.reserveAhead(req.room);
      return null;
    }
    case 'mark': {
      const toWorker = now() - req.sentAt;
      const h = hosted(req.marker);
      // The previous collection has ended: nobody waits for its list any more.
      h.dropPending();
      h.receive(req.changes);
      h.objectRanges = req.objectRanges;
      // Small root sets go up by writeBuffer, which wants memory of this thread's own.
      const shared = view(req.roots);
      const roots = shared.length < STAGED_ROOTS ? shared.slice() : shared;
      const r = await h.marker.mark({ kind: req.kind, roots, youngStart: req.youngStart, youngEnd: req.youngEnd }, req.deferLive === true);
      const stats = h.marker.lastStats;
      const withLegs = stats && { ...stats, phases: { ...stats.phases, toWorker } };
      if (req.kind === 'young') {
        const list = h.marker.lastYoungList!;
        const live = h.share(list.length);
        let evacuation: EvacAssignReply | undefined;
        if (req.deferLive === true) {
          h.defer(list);
          // The device evacuates with the mark; else the list's ordering on the
          // device is submitted after the reply (live-list.ts).
          if (req.evacuate) evacuation = await evacuate(h, list, req.evacuate);
          else afterReply = () => list.settle();
        } else afterReply = () => h.stream(list.host!);
        return {
          live,
          progress: h.progress.buffer as SharedArrayBuffer,
          times: r.times,
          stats: withLegs,
          repliedAt: now(),
          ...(evacuation ? { evacuation } : {}),
        } satisfies MarkReply;
      }
      return { bitmap: handOver(r.bitmap, transfer), times: r.times, stats: withLegs, repliedAt: now() } satisfies MarkReply;
    }
    case 'replay': {
      const h = hosted(req.marker);
      // A young mark's list is the marker's own (GpuMarker.lastYoungList): the CPU
      // evacuated it, so it is on the host. A full mark's travels.
      const own = h.marker.lastYoungList;
      let live: Int32Array;
      if (req.live) live = view(req.live);
      else if (own !== null && own.length === req.liveLength) live = await own.read();
      else throw new Error('GPU worker: replayEvacuation of a young mark whose list is gone');
      h.sizeTable = req.sizeTable;
      await h.marker.replayEvacuation(live, view(req.forward), view(req.slotRuns));
      return null;
    }
    case 'evacAssign': {
      const h = hosted(req.marker);
      // The young mark's list is the marker's own (GpuMarker.lastYoungList).
      const own = h.marker.lastYoungList;
      if (own === null || own.length !== req.liveLength) {
        await h.streamPending();
        return { ok: false, reason: 'the young mark\'s list is gone' } satisfies EvacAssignReply;
      }
      return evacuate(h, own, req);
    }
    case 'evacFinish':
      return finish(hosted(req.marker), req);
    case 'remset': {
      const h = hosted(req.marker);
      h.receive(req.changes);
      const found = await h.marker.scanRememberedSet(view(req.ranges), req.youngStart, req.youngEnd, req.beforeMark, req.slots);
      if (!found) return null;
      // The lists may be views of a mapped read-back: copies of this thread's own, handed over.
      const roots = found.roots.slice();
      const runs = found.runs.slice();
      transfer.push(roots.buffer, runs.buffer);
      return { roots, runs, syncMs: found.syncMs } satisfies RemsetReply;
    }
    case 'verifyCopy': {
      const h = hosted(req.marker);
      h.receive(req.changes);
      const got: Uint32Array[] = [];
      await h.marker.verifyCopy((c) => got.push(c));
      return got.length === 0 ? null : handOver(got[0]!, transfer);
    }
    case 'streamLive':
      // A list gone with its device: the fault check after this request names the loss.
      if (!(await hosted(req.marker).streamPending())) throw new Error('the young mark\'s live list is gone');
      return null;
    case 'dispose':
      // A fallen-back marker's list may still be wanted by the CPU's evacuation.
      await markers.get(req.marker)?.streamPending();
      markers.get(req.marker)?.marker.dispose();
      markers.delete(req.marker);
      return null;
  }
}

const port = parentPort;
if (port === null) throw new Error('gpu-worker.ts runs as a worker thread (host/host.ts starts it)');
/** Replies go on their own channel; `replied` counts them, bumped after each is
 *  posted, so that the main thread can wait for one without its event loop (host/host.ts). */
const { replies, replied } = workerData as { replies: MessagePort; replied: Int32Array };

function postReply(reply: HostReply, transfer: ArrayBuffer[] = []): void {
  replies.postMessage(reply, transfer);
  Atomics.add(replied, 0, 1);
  Atomics.notify(replied, 0);
}

const faults = deviceFaults();
let queue: Promise<void> = Promise.resolve();
port.on('message', (msg: { id: number; req: HostRequest } | { close: true } | { abandon: true }) => {
  // Taken at once, not in turn: the start-up it stops is the request in progress.
  if ('abandon' in msg) return abandonCompiles();
  // A step that throws (a reply that cannot be posted) must not stop the ones after it.
  queue = queue.catch(() => undefined).then(async () => {
    resumeCompiles();
    if ('close' in msg) {
      for (const h of markers.values()) h.marker.dispose();
      markers.clear();
      await destroyGpu();
      await disposeHeapWriters();
      port.postMessage({ closed: true });
      replies.close();
      port.close();
      return;
    }
    const transfer: ArrayBuffer[] = [];
    let reply: HostReply;
    let after: (() => void) | null = null;
    let value: unknown = null;
    let failure: unknown = null;
    // A device fault fails the request where it surfaced (faults.ts); a request
    // that met none still fails if the device went meanwhile.
    try {
      faults.begin(msg.req, currentGpu()?.device ?? null);
      value = await handle(msg.req, transfer);
    } catch (e) {
      failure = e;
    }
    failure = await faults.end(failure);
    if (failure === null) {
      reply = { id: msg.id, ok: true, value };
      after = takeAfterReply();
    } else {
      const err = failure instanceof Error ? failure : new Error(String(failure));
      const fault = err instanceof GpuFault ? { fault: err.fault } : {};
      reply = { id: msg.id, ok: false, error: { name: err.name, message: err.message, stack: err.stack, ...fault } };
      transfer.length = 0;
      takeAfterReply();
    }
    try {
      postReply(reply, transfer);
    } catch (e) {
      const message = `GPU worker: the reply could not be sent: ${e instanceof Error ? e.message : String(e)}`;
      postReply({ id: msg.id, ok: false, error: { name: 'Error', message } });
      after = null;
    }
    // Synchronously, before the next request can unmap what it reads.
    after?.();
    faults.idle();
  });
});
