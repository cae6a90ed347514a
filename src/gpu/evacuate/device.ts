/**
 * A young collection's evacuation on the GPU, in the heap mirror, in two steps
 * around one question to the CPU:
 *
 *  1. `assign` (kernels/evacuate.wgsl): each live object's destination by
 *     prefix sums over the last young mark's live list, which is still on the
 *     device: to-survivor for the eligible prefix that fits, the rest into one
 *     promotion buffer. Returns the words each side needs; nothing in the
 *     mirror has changed yet, so the CPU may still evacuate instead.
 *  2. `finish`, given where the CPU carved the promotion buffer from its free
 *     list: the promoted addresses, then replay.wgsl's copy, forwarding
 *     headers and reference fixes (the remembered-set slots included), the
 *     promoted copies' dirty cards; then reads back only what changed (the
 *     to-survivor range, the promotion buffer, the roots' referents' new
 *     addresses, the card bits) and writes it into the heap's words, with the
 *     forwarding headers where the CPU's root fix-up reads them. The mirror's
 *     scalars are the heap's (the mutator logs its scalar stores), so the
 *     copies need nothing from the old objects.
 *
 * Under refgraph (a `graphMirror`) the copies' references are found by type
 * (refs-refgraph.wgsl), and the reference graphs are rebuilt too
 * (evacuate-graph.wgsl): their sizes by prefix sums in step 1, the vertices,
 * layout words and edges in step 2, read back into the graph arrays with the
 * moved words.
 *
 * Both steps run where the device is (the GPU worker thread), which writes the
 * shared heap itself: the main thread waits for one reply per step.
 */
import type { Assigned, DeviceGraph, EvacuationTimes, Refused } from '../../gc/marker.js';
import { CARD_SHIFT } from '../../heap/card-table.js';
import { FORWARD_WORD, HEADER_WORDS, STATUS_FORWARDED } from '../../heap/object-model.js';
import { VERTEX_WORDS } from '../../heap/ref-graph.js';
import { atParityOf, bufferWord } from '../../heap/word-parity.js';
import { bufferSize, ChunkedReadback, destroyAll, GrowableBuffer, helperBigGroups, helperGroups, helperWorkgroupSize, paramsBuffer, Readback, u32View } from '../device/buffers.js';
import { ReadbackParts } from './readback-parts.js';
import type { GpuContext } from '../device/device.js';
import type { Program } from '../device/shader.js';
import { bindGroup, buildProgram, dispatchAll, kernelSource } from '../device/shader.js';
import {
  EVACUATE,
  EVACUATE_GRAPH,
  EVACUATE_PARAMS,
  REPLAY,
  REPLAY_PARAMS,
  specializationHeader,
  structWords,
  uniformBinding,
} from '../kernels/constants.js';
import type { GraphMirror, HeapMirror, RefGraphs, StagingUploader } from '../mirror/mirror.js';
import { deviceFaults } from '../faults.js';
import { writeAtOnce, type HeapWriters } from '../worker/heap-writers.js';
import type { LiveList } from '../live-list.js';
import { now } from '../../heap/clock.js';

export interface AssignJob {
  /** The engine's device buffer holding the mark's live list, and how many of
   *  `live`'s entries it holds (the CPU may have finished the mark: the rest
   *  is uploaded, from the host's copy; a list left on the device is whole there). */
  readonly liveBuffer: GPUBuffer;
  readonly deviceLive: number;
  readonly live: LiveList;
  readonly youngStart: number;
  readonly youngEnd: number;
  readonly toStart: number;
  readonly toEnd: number;
  readonly tenureAge: number;
  readonly tenuredStart: number;
  /** heap/layout.ts TypeTable.sizeTable(). */
  readonly sizeTable: Uint32Array;
  /** heap/layout.ts TypeTable.refTable(): the refgraph layout's references by type. */
  readonly refTable?: Uint32Array;
  /** Refgraph: the graphs as the mark uploaded them (the device's old young graph),
   *  whose arrays `finish` writes the rebuilt graphs into. */
  readonly graphs?: RefGraphs;
}

export interface FinishJob {
  /** The promotion buffer's first word (ignored when nothing is promoted). */
  readonly base: number;
  /** The remembered set's slots, (first slot, count) runs, as the CPU fixes them. */
  readonly slotRuns: Int32Array;
  /** Write the old objects' forwarding headers even where the CPU will not need them (`--verify-gc`). */
  readonly headers: boolean;
  /** The heap's words, written with what moved. */
  readonly words: Int32Array;
  /** Receives each live object's new header address (at least the list's length),
   *  or with `picks` only those of the picked ones, in the picks' order. */
  readonly forward: Int32Array;
  /** Ascending positions in the live list whose new addresses the CPU needs
   *  (the roots' referents), or null when it redirects the roots through
   *  forwarding headers (it could not find them all in the list). */
  readonly picks: Int32Array | null;
  /** `picks` are the referents' addresses, which the device finds in its list
   *  (one left on the device, in address order), not positions. */
  readonly pickSearch?: boolean;
  /** Refgraph: receives the remembered slots' new edges, in the order of
   *  `slotRuns`' slots, when the slots come back from the device. */
  readonly rememberedEdges?: Uint32Array;
  /** Refgraph: per run, its first edge in the tenured graph's edges, where the
   *  run's edges are written instead (-1: into `rememberedEdges`). */
  readonly edgeStarts?: Int32Array | null;
}

export interface Finished {
  /** Bits of cards from `cardFirst` (counted from tenured's start): set where a
   *  promoted copy, or a remembered slot when `slotsWritten`, holds a young reference. */
  readonly cardBits: Uint32Array;
  readonly cardFirst: number;
  /** The remembered slots were redirected in the heap's words too, and their cards dirtied. */
  readonly slotsWritten: boolean;
  /** The old objects hold forwarding headers (else the live list is in address order). */
  readonly headersWritten: boolean;
  /** `forward` holds only the picked new addresses. */
  readonly picked: boolean;
  /** Refgraph: what the device's rebuild of the graphs wrote into their arrays. */
  readonly graph?: DeviceGraph;
  readonly times: EvacuationTimes;
}

/**
 * The cards (counted from tenured's start) the card bits cover: the promotion
 * buffer's `promoted` [first card's word, last word] relative to tenured, and
 * the remembered slots' `slots` [first, last] (heap words) when the device
 * dirties their cards too.
 */
export function cardSpan(promoted: readonly [number, number] | null, slots: readonly [number, number] | null, tenuredStart: number): { cardFirst: number; cardWords: number } {
  let lo = Infinity;
  let hi = -1;
  if (promoted) [lo, hi] = [promoted[0], promoted[1]];
  if (slots) {
    lo = Math.min(lo, slots[0] - tenuredStart);
    hi = Math.max(hi, slots[1] - tenuredStart);
  }
  if (hi < 0) return { cardFirst: 0, cardWords: 0 };
  const first = lo >> CARD_SHIFT;
  return { cardFirst: first, cardWords: Math.ceil(((hi >> CARD_SHIFT) - first + 1) / 32) };
}

/** What the device and the write need of the remembered slots' runs, from one pass. */
export interface SlotRuns {
  /** Each run's first word in the gathered slots. */
  readonly offsets: Uint32Array<ArrayBuffer>;
  /** The slots in all runs. */
  readonly slots: number;
  /** The first and last slot of the non-empty runs, or null when there are none. */
  readonly span: [number, number] | null;
  /** The (first slot, count) runs with those that continue one another joined
   *  (the remembered set's runs stop at card ends) and empty ones dropped: one
   *  write each. */
  readonly joined: number[];
}

/**
 * The gather offsets, the card span and the joined writes of (first slot,
 * count) `runs` in one pass: a large remembered set has over a hundred thousand
 * runs, and each pass over them costs the pause milliseconds.
 */
export function slotRuns(runs: Uint32Array): SlotRuns {
  const count = runs.length >>> 1;
  const offsets = new Uint32Array(count);
  const joined: number[] = [];
  let slots = 0;
  let lo = -1;
  let hi = -1;
  for (let r = 0; r < count; r++) {
    const s = runs[2 * r]!;
    const n = runs[2 * r + 1]!;
    offsets[r] = slots;
    slots += n;
    if (n === 0) continue;
    if (lo < 0 || s < lo) lo = s;
    if (s + n - 1 > hi) hi = s + n - 1;
    const k = joined.length;
    if (k > 0 && joined[k - 2]! + joined[k - 1]! === s) joined[k - 1]! += n;
    else joined.push(s, n);
  }
  return { offsets, slots, span: lo < 0 ? null : [lo, hi], joined };
}

/**
 * The read-back parts of the remembered slots' new edges (read-back words from
 * `at`, in the runs' gathered order): a run with an edge start goes straight into
 * the tenured graph's `edges` there, joined with the run before it where the two
 * continue one another (an array's runs, split at its cards); the others into
 * `rememberedEdges`, at the run's gathered offset, for the CPU to place.
 */
function addRememberedEdges(parts: ReadbackParts, job: FinishJob, back: SlotRuns, edges: Uint32Array, at: number): void {
  const runs = job.slotRuns;
  const starts = job.edgeStarts ?? null;
  const values = job.rememberedEdges!;
  if (starts === null) {
    parts.add(values, 0, at, back.slots);
    return;
  }
  let pe = 0;
  let pv = 0;
  let pn = 0;
  for (let r = 0; 2 * r < runs.length; r++) {
    const n = runs[2 * r + 1]!;
    if (n === 0) continue;
    const v = back.offsets[r]!;
    const e = starts[r]!;
    if (e >= 0 && pn > 0 && pe + pn === e && pv + pn === v) {
      pn += n;
      continue;
    }
    if (pn > 0) parts.add(edges, pe, at + pv, pn);
    pn = 0;
    if (e < 0) parts.add(values, v, at + v, n);
    else [pe, pv, pn] = [e, v, n];
  }
  if (pn > 0) parts.add(edges, pe, at + pv, pn);
}

/** Bytes of `rctl`'s counts, before the promoted copies' card bits. */
const CTL_BYTES = EVACUATE.CARD_BITS * 4;

/** Refgraph: the rebuilt graphs' sizes (from the assignment's prefix sums) and
 *  where they go: in `gout`, each vertex region with room for its sentinel. */
interface GraphTotals extends Omit<DeviceGraph, 'rememberedEdges'> {
  readonly graphs: RefGraphs;
  readonly oldYoungVertices: number;
  readonly outVertices: number;
  readonly outEdges: number;
  readonly outTenuredVertices: number;
  readonly outTenuredEdges: number;
  readonly outWords: number;
}

function graphTotals(graphs: RefGraphs, n: number, totals: Uint32Array): GraphTotals {
  const youngVertices = totals[EVACUATE_GRAPH.GRAPH_YOUNG]!;
  const youngEdges = totals[EVACUATE_GRAPH.GRAPH_YOUNG_EDGES]!;
  const tenuredVertices = n - youngVertices;
  const tenuredEdges = totals[EVACUATE_GRAPH.GRAPH_EDGES]! - youngEdges;
  const outEdges = VERTEX_WORDS * (youngVertices + 1);
  const outTenuredVertices = outEdges + youngEdges;
  const outTenuredEdges = outTenuredVertices + VERTEX_WORDS * (tenuredVertices + 1);
  return {
    graphs,
    youngVertices,
    youngEdges,
    tenuredVertices,
    tenuredEdges,
    tenuredVertexBase: graphs.tenured.vertexCount,
    tenuredEdgeBase: graphs.tenured.edgeCount,
    oldYoungVertices: graphs.young.vertexCount,
    outVertices: 0,
    outEdges,
    outTenuredVertices,
    outTenuredEdges,
    outWords: outTenuredEdges + tenuredEdges,
  };
}

export class DeviceEvacuation {
  private program: Promise<Program> | null = null;
  private readonly rp: GPUBuffer;
  private readonly ep: GPUBuffer;
  private readonly fwd: GrowableBuffer;
  private readonly vals: GrowableBuffer;
  private readonly big: GrowableBuffer;
  private readonly ctl: GrowableBuffer;
  private readonly types: GrowableBuffer;
  /** refgraph: TypeTable.refTable() (sable binds it unread). */
  private readonly reftab: GrowableBuffer;
  private reftabUploaded = -1;
  /** refgraph: each old young vertex's new edge value, and the rebuilt graphs
   *  (evacuate-graph.wgsl). */
  private readonly remap: GrowableBuffer;
  private readonly gout: GrowableBuffer;
  private readonly slots: GrowableBuffer;
  /** Each slot run's offset, then the fixed slots gathered at those offsets,
   *  then the picked live-list positions, which evac_gather_picks replaces
   *  with their new addresses. */
  private readonly gather: GrowableBuffer;
  private readonly totals: Readback;
  private readonly readback: ChunkedReadback;
  private typesUploaded = -1;
  private readonly wg: number;
  /** The assignment `finish` completes, with (refgraph) the graph's totals. */
  private pending: (AssignJob & { survived: number; promoted: number; blocks: number; bigCap: number; graph: GraphTotals | null }) | null = null;

  constructor(
    private readonly ctx: GpuContext,
    private readonly mirror: HeapMirror,
    private readonly uploader: StagingUploader,
    /** The remembered slots come back from the device (else the CPU redirects them). */
    private readonly slotsOnDevice: boolean,
    /** Who writes the read-back into the heap. */
    private readonly writers: Promise<HeapWriters>,
    /** Refgraph: the reference graphs on the device, whose young graph (as the
     *  mark uploaded it) the rebuild reads; null under sable, whose a+2 counts a
     *  run of references where refgraph's type says where they are. */
    private readonly graphMirror: GraphMirror | null = null,
  ) {
    const d = ctx.device;
    const rw = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
    const max = ctx.limits.maxStorageBufferBindingSize;
    this.wg = helperWorkgroupSize(ctx);
    this.rp = paramsBuffer(d, 'evacuation replay params');
    this.ep = d.createBuffer({ size: EVACUATE_PARAMS.length * 4, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST, label: 'evacuation params' });
    this.fwd = new GrowableBuffer(d, rw, 'evacuation forward', max);
    this.vals = new GrowableBuffer(d, rw, 'evacuation prefix sums', max);
    this.big = new GrowableBuffer(d, rw, 'evacuation big objects', max);
    this.ctl = new GrowableBuffer(d, rw, 'evacuation control and cards', max);
    this.types = new GrowableBuffer(d, rw, 'evacuation types', max);
    this.reftab = new GrowableBuffer(d, rw, 'evacuation reference table', max);
    this.remap = new GrowableBuffer(d, rw, 'evacuation vertex remap', max);
    this.gout = new GrowableBuffer(d, rw, 'evacuation rebuilt graphs', max);
    this.slots = new GrowableBuffer(d, rw, 'evacuation slot runs', max);
    this.gather = new GrowableBuffer(d, rw, 'evacuation gathered slots', max);
    this.totals = new Readback(d, 'evacuation totals read-back');
    this.readback = new ChunkedReadback(d, 'evacuation read-back');
  }

  /** Builds the kernels, starts the heap writers and makes the read-back's first
   *  chunk, so that a small evacuation creates no buffer in its pause. */
  async prepare(): Promise<void> {
    this.readback.reserve(1);
    await Promise.all([this.compile(), this.writers]);
  }

  compile(): Promise<Program> {
    const graph = this.graphMirror !== null;
    this.program ??= buildProgram(this.ctx, {
      header: specializationHeader(['scan', 'replay', 'evacuate', ...(graph ? (['evacuate-graph'] as const) : [])], { WG: this.wg }),
      bindings: [
        uniformBinding('replay'),
        uniformBinding('evacuate'),
        { name: 'live', kind: 'read-only-storage', type: 'array<u32>' },
        { name: 'fwd', kind: 'storage', type: 'array<u32>' },
        { name: 'types', kind: 'read-only-storage', type: 'array<vec4<u32>>' },
        { name: 'reftab', kind: 'read-only-storage', type: 'array<u32>' },
        { name: 'big', kind: 'storage', type: 'array<u32>' },
        { name: 'rctl', kind: 'storage', type: 'array<atomic<u32>>' },
        { name: 'slots', kind: 'read-only-storage', type: 'array<vec2<u32>>' },
        { name: 'vals', kind: 'storage', type: 'array<u32>' },
        { name: 'gather', kind: 'storage', type: 'array<u32>' },
        ...(graph
          ? ([
              { name: 'gyv', kind: 'read-only-storage', type: 'array<u32>' },
              { name: 'gye', kind: 'read-only-storage', type: 'array<u32>' },
              { name: 'remap', kind: 'storage', type: 'array<u32>' },
              { name: 'gout', kind: 'storage', type: 'array<u32>' },
            ] as const)
          : []),
        ...this.mirror.bindings(false, true),
      ],
      body: [
        this.mirror.accessors(false),
        this.mirror.storeAccessor(),
        kernelSource('scan'),
        kernelSource(graph ? 'refs-refgraph' : 'refs-sable'),
        kernelSource('replay'),
        kernelSource('evacuate'),
        ...(graph ? [kernelSource('evacuate-graph')] : []),
      ],
      entryPoints: [
        'evac_sizes',
        'evac_scan_a',
        'evac_top_a',
        'evac_split',
        'evac_scan_b',
        'evac_top_b',
        'evac_place',
        'replay_copy',
        'replay_copy_big',
        'replay_headers',
        'replay_fix',
        'replay_fix_big',
        'replay_slots',
        'evac_cards',
        'evac_cards_big',
        'evac_slot_cards',
        'evac_gather_slots',
        'evac_gather_picks',
        ...(graph ? ['evac_graph_sizes', 'evac_graph_scan', 'evac_graph_top', 'evac_graph_place', 'evac_graph_edges', 'evac_graph_remembered'] : []),
      ],
    });
    return this.program;
  }

  private bind(program: Program, liveBuffer: GPUBuffer): GPUBindGroup {
    return bindGroup(this.ctx.device, program, {
      rp: this.rp,
      ep: this.ep,
      live: liveBuffer,
      fwd: this.fwd.buffer,
      types: this.types.buffer,
      reftab: this.reftab.buffer,
      big: this.big.buffer,
      rctl: this.ctl.buffer,
      slots: this.slots.buffer,
      vals: this.vals.buffer,
      gather: this.gather.buffer,
      ...(this.graphMirror ? { gyv: this.graphMirror.buffers().yv!, gye: this.graphMirror.buffers().ye!, remap: this.remap.buffer, gout: this.gout.buffer } : {}),
      ...this.mirror.buffers(),
    });
  }

  private writeParams(rp: Uint32Array<ArrayBuffer>, ep: Uint32Array<ArrayBuffer>): void {
    const q = this.ctx.device.queue;
    q.writeBuffer(this.rp, 0, rp);
    q.writeBuffer(this.ep, 0, ep);
  }

  /** Step 1: destinations and the words each side needs; the mirror is unchanged. */
  async assign(job: AssignJob): Promise<Assigned | Refused> {
    const t0 = now();
    this.pending = null;
    const program = await this.compile();
    const device = this.ctx.device;
    const n = job.live.length;
    const block = this.wg * EVACUATE.PER;
    const blocks = Math.max(1, Math.ceil(n / block));
    // The block totals' prefix is one workgroup's (evacuate.wgsl scanTop).
    if (blocks > block) return { ok: false, reason: `${n} live objects, over the ${block * block} one prefix sum takes` };
    const bigCap = Math.max(1, Math.min(n, Math.ceil((job.youngEnd - job.youngStart) / REPLAY.SMALL)));
    this.fwd.ensure(Math.max(1, n) * 4);
    // Refgraph: the graph's three regions and their block totals follow (evacuate-graph.wgsl).
    const graphs = this.graphMirror !== null ? job.graphs : undefined;
    if (this.graphMirror !== null && !graphs) throw new Error('GPU evacuation: the refgraph layout needs the graphs');
    const graphAt = 2 * Math.max(1, n) + 2 * blocks;
    this.vals.ensure((graphAt + (graphs ? 3 * Math.max(1, n) + 3 * blocks : 0)) * 4);
    this.big.ensure(bigCap * 4);
    this.ctl.ensure(CTL_BYTES);
    this.slots.ensure(16);
    this.gather.ensure(4);
    const { buffer: types, fresh } = this.types.ensure(job.sizeTable.byteLength);
    const typeCount = job.sizeTable.length >>> 2;
    if (fresh || this.typesUploaded !== typeCount) {
      device.queue.writeBuffer(types, 0, job.sizeTable as Uint32Array<ArrayBuffer>);
      this.typesUploaded = typeCount;
    }
    if (this.graphMirror !== null) {
      const refs = job.refTable;
      if (!refs) throw new Error('GPU evacuation: the refgraph layout needs the reference table');
      const r = this.reftab.ensure(refs.byteLength);
      if (r.fresh || this.reftabUploaded !== typeCount) {
        device.queue.writeBuffer(r.buffer, 0, refs as Uint32Array<ArrayBuffer>);
        this.reftabUploaded = typeCount;
      }
      this.remap.ensure(Math.max(1, graphs!.young.vertexCount) * 4);
      this.gout.ensure(16);
    } else {
      this.reftab.ensure(4);
    }
    if (job.deviceLive < n) {
      const host = job.live.host;
      if (host === null) throw new Error('GPU evacuation: a live list partly on the device and not on the host');
      await this.uploader.write(job.liveBuffer, job.deviceLive, u32View(host.subarray(job.deviceLive, n)));
    }
    this.uploader.submit();
    const toCap = job.toEnd - job.toStart;
    const { youngStart, youngEnd, tenureAge, toStart, tenuredStart } = job;
    this.writeParams(
      structWords(REPLAY_PARAMS, { count: n, youngStart, youngEnd, typeCount, bigCap }),
      structWords(EVACUATE_PARAMS, { count: n, youngStart, youngEnd, bigCap, tenureAge, toStart, toCap, tenuredStart, blocks, graphAt }),
    );
    const group = this.bind(program, job.liveBuffer);
    const enc = device.createCommandEncoder({ label: 'evacuation assign' });
    enc.clearBuffer(this.ctl.buffer, 0, CTL_BYTES);
    const pass = enc.beginComputePass({ label: 'evacuation assign' });
    pass.setBindGroup(0, group);
    const perObject = helperGroups(this.ctx, n);
    const perBlock = Math.max(1, Math.min(this.ctx.limits.maxComputeWorkgroupsPerDimension, blocks));
    dispatchAll(pass, program, [
      ['evac_sizes', perObject],
      ['evac_scan_a', perBlock],
      ['evac_top_a', 1],
      ['evac_split', perObject],
      ['evac_scan_b', perBlock],
      ['evac_top_b', 1],
      ...(graphs ? ([['evac_graph_sizes', perObject], ['evac_graph_scan', perBlock], ['evac_graph_top', 1]] as const) : []),
    ]);
    pass.end();
    enc.copyBufferToBuffer(this.ctl.buffer, 0, this.totals.target(CTL_BYTES), 0, CTL_BYTES);
    device.queue.submit([enc.finish()]);
    const totals = await this.totals.read(CTL_BYTES);
    const survived = totals[EVACUATE.SURV_END]!;
    const promoted = totals[EVACUATE.PROMOTED]!;
    const graph = graphs ? graphTotals(graphs, n, totals) : null;
    this.pending = { ...job, survived, promoted, blocks, bigCap, graph };
    return { ok: true, survivedWords: survived, promotedWords: promoted, ms: now() - t0 };
  }

  /**
   * Grows the read-back for a young collection of `youngWords` allocated words,
   * while the program runs rather than in that collection's pause: survivors
   * and promotions take at most those words, and their new addresses one word
   * per object of at least HEADER_WORDS (the remembered slots may take more:
   * the pause grows it then).
   */
  reserve(youngWords: number): void {
    this.readback.reserve(Math.ceil(youngWords * (1 + 1 / HEADER_WORDS)) * 4);
  }

  /** Forgets an assignment that the CPU evacuates instead. */
  abandon(): void {
    this.pending = null;
  }

  /** Step 2: moves the objects in the mirror and writes what moved into the heap. */
  async finish(job: FinishJob): Promise<Finished> {
    const p = this.pending;
    this.pending = null;
    if (!p) throw new Error('GPU evacuation: finish without an assignment');
    const t0 = now();
    const program = await this.compile();
    const device = this.ctx.device;
    const n = p.live.length;
    const T = p.promoted;
    const S = p.survived;
    const runs = u32View(job.slotRuns);
    const runCount = runs.length >>> 1;
    // The fixed remembered slots, gathered in run order after each run's offset.
    const slotsBack = runCount > 0 && this.slotsOnDevice;
    const back = slotsBack ? slotRuns(runs) : null;
    const slotWords = back?.slots ?? 0;
    // The CPU reads forwarding headers to redirect the slots it fixes itself,
    // and the roots unless it found them in the live list (job.picks).
    const headers = job.headers || (runCount > 0 && !slotsBack) || job.picks === null;
    // Searching the list, the CPU needs only the roots' referents' new
    // addresses: the device gathers them after the gathered slots.
    const picks = headers ? null : job.picks!;
    const pickCount = picks?.length ?? 0;
    const pickAt = runCount + slotWords;
    this.gather.ensure((pickAt + pickCount) * 4 || 4);
    if (back) await this.uploader.write(this.gather.buffer, 0, back.offsets);
    if (picks !== null && pickCount > 0) await this.uploader.write(this.gather.buffer, pickAt, u32View(picks));
    const { cardFirst, cardWords } = cardSpan(T > 0 ? [job.base - p.tenuredStart, job.base + T - 1 - p.tenuredStart] : null, back?.span ?? null, p.tenuredStart);
    this.ctl.ensure(CTL_BYTES + cardWords * 4);
    this.slots.ensure(Math.max(1, runs.length) * 4);
    if (runCount > 0) await this.uploader.write(this.slots.buffer, 0, runs);
    this.uploader.submit();
    const { youngStart, youngEnd, bigCap, tenureAge, toStart, tenuredStart, blocks } = p;
    const g = p.graph;
    // The remembered slots' edges follow the graphs, in the slots' gathered order.
    const remEdges = g && back && job.rememberedEdges ? slotWords : 0;
    if (g) this.gout.ensure((g.outWords + remEdges) * 4 || 4);
    this.writeParams(
      structWords(REPLAY_PARAMS, { count: n, youngStart, youngEnd, typeCount: p.sizeTable.length >>> 2, bigCap, slotRuns: runCount }),
      structWords(EVACUATE_PARAMS, {
        count: n, youngStart, youngEnd, bigCap, tenureAge, toStart, toCap: p.toEnd - toStart, base: job.base,
        tenuredStart, blocks, cardFirst, cardWords, slotRuns: slotsBack ? runCount : 0, picks: pickCount, pickAt, pickSearch: job.pickSearch === true ? 1 : 0,
        ...(g
          ? {
              graphAt: 2 * Math.max(1, n) + 2 * blocks,
              oldYoungVertices: g.oldYoungVertices,
              tenuredVertexBase: g.tenuredVertexBase,
              tenuredEdgeBase: g.tenuredEdgeBase,
              outVertices: g.outVertices,
              outEdges: g.outEdges,
              outTenuredVertices: g.outTenuredVertices,
              outTenuredEdges: g.outTenuredEdges,
              outRemembered: g.outWords,
            }
          : {}),
      }),
    );
    const group = this.bind(program, p.liveBuffer);
    const enc = device.createCommandEncoder({ label: 'evacuation' });
    enc.clearBuffer(this.ctl.buffer, 0, bufferSize(CTL_BYTES + cardWords * 4));
    const pass = enc.beginComputePass({ label: 'evacuation' });
    pass.setBindGroup(0, group);
    const perObject = helperGroups(this.ctx, n);
    const perBig = helperBigGroups(this.ctx);
    dispatchAll(pass, program, [
      ['evac_place', perObject],
      ['replay_copy', perObject],
      ['replay_copy_big', perBig],
      ['replay_headers', perObject],
      ['replay_fix', perObject],
      ['replay_fix_big', perBig],
      ['replay_slots', helperGroups(this.ctx, runCount)],
      ...(g ? ([['evac_graph_place', perObject], ['evac_graph_edges', perObject]] as const) : []),
      ...(remEdges > 0 ? ([['evac_graph_remembered', Math.min(runCount, this.ctx.limits.maxComputeWorkgroupsPerDimension)]] as const) : []),
      ['evac_cards', perObject],
      ['evac_cards_big', perBig],
      ...(slotsBack
        ? ([['evac_slot_cards', helperGroups(this.ctx, runCount)], ['evac_gather_slots', Math.min(runCount, this.ctx.limits.maxComputeWorkgroupsPerDimension)]] as const)
        : []),
      ...(pickCount > 0 ? ([['evac_gather_picks', helperGroups(this.ctx, pickCount)]] as const) : []),
    ]);
    pass.end();
    device.queue.submit([enc.finish()]);
    // The read-back is queued behind the kernels at once, not after the
    // device says they ended: that answer is a round trip the pause would wait.
    let t1 = 0;
    const kernelsDone = device.queue.onSubmittedWorkDone().then(
      () => {
        t1 = now();
      },
      // A lost device fails the read-back's mapping, which reports it.
      () => {},
    );

    // Read back: to-survivor's new words, the promotion buffer, the new
    // addresses (or only the picked ones), the card bits, the fixed
    // remembered slots and (refgraph) the rebuilt graphs, in that order. The two spaces start at their heap
    // words' parity, so that their copies into the shared heap go eight bytes
    // at a time (heap/word-parity.ts).
    const toAt = atParityOf(0, bufferWord(job.words, p.toStart));
    const tenAt = atParityOf(toAt + S, bufferWord(job.words, job.base));
    const fwdAt = tenAt + T;
    const fwdWords = picks === null ? n : pickCount;
    const graphBack = fwdAt + fwdWords + cardWords + slotWords;
    const bytes = (graphBack + (g ? g.outWords + remEdges : 0)) * 4;
    const rb = this.readback;
    const enc2 = device.createCommandEncoder({ label: 'evacuation read-back' });
    this.copyRange(enc2, p.toStart, p.toStart + S, toAt);
    this.copyRange(enc2, job.base, job.base + T, tenAt);
    if (fwdWords > 0) {
      if (picks === null) rb.copy(enc2, this.fwd.buffer, 0, fwdAt * 4, n * 4);
      else rb.copy(enc2, this.gather.buffer, pickAt * 4, fwdAt * 4, pickCount * 4);
    }
    if (cardWords > 0) rb.copy(enc2, this.ctl.buffer, CTL_BYTES, (fwdAt + fwdWords) * 4, cardWords * 4);
    if (slotWords > 0) rb.copy(enc2, this.gather.buffer, runCount * 4, (fwdAt + fwdWords + cardWords) * 4, slotWords * 4);
    if (g && g.outWords + remEdges > 0) rb.copy(enc2, this.gout.buffer, 0, graphBack * 4, (g.outWords + remEdges) * 4);
    device.queue.submit([enc2.finish()]);
    const cardBits = new Uint32Array(cardWords);
    const writers = await this.writers;
    // Forwarding headers are written from the list: one left on the device is
    // read back now, before the commit, since the heap is not written yet.
    const live = headers ? await p.live.read() : null;
    let t2 = 0;
    let writeWait = 0;
    const words = job.words;
    const w = u32View(words);
    const parts = new ReadbackParts();
    parts.add(w, p.toStart, toAt, S);
    parts.add(w, job.base, tenAt, T);
    parts.add(u32View(job.forward), 0, fwdAt, fwdWords);
    parts.add(cardBits, 0, fwdAt + fwdWords, cardWords);
    // Runs that continue one another (a large array's, split at its cards) are one write.
    if (back) {
      const joined = back.joined;
      let from = fwdAt + fwdWords + cardWords;
      for (let r = 0; r < joined.length; r += 2) {
        parts.add(w, joined[r]!, from, joined[r + 1]!);
        from += joined[r + 1]!;
      }
    }
    // The rebuilt graphs go straight into the graph arrays, without the sentinels
    // (the CPU writes those, as it takes the graphs: RefGraph.adoptRebuild).
    if (g) {
      const { young, tenured } = g.graphs;
      parts.add(young.vertices, 0, graphBack + g.outVertices, VERTEX_WORDS * g.youngVertices);
      parts.add(young.edges, 0, graphBack + g.outEdges, g.youngEdges);
      parts.add(tenured.vertices, VERTEX_WORDS * g.tenuredVertexBase, graphBack + g.outTenuredVertices, VERTEX_WORDS * g.tenuredVertices);
      parts.add(tenured.edges, g.tenuredEdgeBase, graphBack + g.outTenuredEdges, g.tenuredEdges);
      if (remEdges > 0) addRememberedEdges(parts, job, back!, tenured.edges, graphBack + g.outWords);
    }
    const threads = writers.threadsFor(bytes);
    const copy = threads === 0 ? writeAtOnce : writers.copy.bind(writers);
    await rb.read(
      bytes,
      async () => {
        // The last point where the device may fail this collection: from here on
        // the heap is written, plain memory copies that no device fault can stop.
        await deviceFaults().commit();
        await kernelsDone;
        t2 = now();
      },
      (view, first) => parts.take(view, first, copy),
    );
    if (!parts.done) throw new Error('GPU evacuation: the read-back ended before its last part');
    writeWait = writers.flush();
    const writeOwn = threads > 0 ? writers.lastOwnShare : 1;
    // From here the new addresses are read from the heap-side copy: a mapped
    // read-back buffer may be memory the CPU reads slowly one word at a time.
    if (live !== null) writeForwardingHeaders(words, live, job.forward.subarray(0, n));
    const t3 = now();
    return {
      cardBits,
      cardFirst,
      slotsWritten: slotsBack,
      headersWritten: headers,
      picked: picks !== null,
      ...(g
        ? {
            graph: {
              youngVertices: g.youngVertices,
              youngEdges: g.youngEdges,
              tenuredVertexBase: g.tenuredVertexBase,
              tenuredEdgeBase: g.tenuredEdgeBase,
              tenuredVertices: g.tenuredVertices,
              tenuredEdges: g.tenuredEdges,
              rememberedEdges: remEdges > 0,
            },
          }
        : {}),
      times: { copy: t1 - t0, readback: t2 - t1, readbackBytes: bytes, write: t3 - t2, writers: threads, writeWait, writeOwn },
    };
  }

  /** Copies mirror words [s, e) to read-back word `at`, mirror chunk by mirror chunk. */
  private copyRange(enc: GPUCommandEncoder, s: number, e: number, at: number): void {
    const cw = this.mirror.chunkWords;
    while (s < e) {
      const c = Math.floor(s / cw);
      const end = Math.min(e, (c + 1) * cw);
      this.readback.copy(enc, this.mirror.chunks[c]!, (s - c * cw) * 4, at * 4, (end - s) * 4);
      at += end - s;
      s = end;
    }
  }

  destroy(): void {
    this.pending = null;
    destroyAll(this.rp, this.ep, this.fwd, this.vals, this.big, this.ctl, this.types, this.reftab, this.remap, this.gout, this.slots, this.gather, this.totals, this.readback);
  }
}

/** The old objects' forwarding headers, as the mirror has them. */
function writeForwardingHeaders(words: Int32Array, live: Int32Array, forward: Int32Array): void {
  for (let i = 0; i < live.length; i++) {
    const a = live[i]!;
    words[a] = words[a]! | STATUS_FORWARDED;
    words[a + FORWARD_WORD] = forward[i]!;
  }
}
