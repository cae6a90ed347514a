/**
 * The parallel collector's threads as the heap sees them: the worker pool with
 * its shared buffers sized for this heap, the type table kept in step, and the
 * per-thread work of the last command for `--log-gc`.
 */

import { availableParallelism } from 'node:os';
import type { HeapImpl } from '../../heap/heap.js';
import { compactResults, OUT_CHUNK } from './context.js';
import { WorkerPool } from './pool.js';
import {
  CMD_MARK,
  ctlWords,
  DEQ_CAP,
  DEQ_STRIDE,
  MAX_CLEARS,
  P_CLEAR,
  P_CLEARS,
  P_HI,
  P_LO,
  P_OUT_CAP,
  P_ROOTS,
  P_SABLE,
  P_YOUNG,
  REHEARSED,
  S_OBJECTS,
  S_STEALS,
  STATS_WORDS,
  sharedBuffer,
  type BufferName,
  type PoolBuffers,
} from './shared.js';

/** `--gc-solo-below`'s default: collections over less heap in use than this run
 *  on the main thread alone (docs/decisions/s33-01-solo-collections.md). */
export const DEFAULT_SOLO_BYTES = 256 * 1024;

/**
 * The default number of GC threads for `cores` cores, as HotSpot sizes
 * ParallelGCThreads: every core up to 8, then five of every eight more. The
 * cores left over run what else is awake in a pause (V8's compiler and
 * collector threads): a GC thread that loses its core holds up the others at
 * the end of a phase (docs/decisions/s38-04-default-gc-threads.md).
 */
export function defaultThreads(cores = availableParallelism()): number {
  const n = Math.max(1, cores);
  return n <= 8 ? n : 8 + Math.floor(((n - 8) * 5) / 8);
}

function shared(ints: number): SharedArrayBuffer {
  return new SharedArrayBuffer(Math.max(1, ints) * 4);
}

/** The columns of the type table the threads read, by buffer name. */
const TYPE_COLUMNS = ['kind', 'left', 'right', 'refBegin', 'refCount'] as const;

export class GcThreads {
  readonly pool: WorkerPool;
  private readonly buffers: PoolBuffers;
  private typesShared = -1;
  private readonly ownsPool: boolean;
  private typesOffsets: Int32Array | null = null;
  /** Every other command runs on the main thread alone, whatever its size: the
   *  warm-up (gc/warm-up.ts) sets it, so that the main thread takes the solo
   *  branches a program's small collections take as well as the shared ones. */
  alternateSolo = false;
  /** Every thread rehearses each command alone before it runs (WorkerPool.run): the warm-up sets it too. */
  rehearse = false;
  /** Objects the threads' rehearsals of the last command processed, all together. */
  rehearsed = 0;
  private commands = 0;
  /** Per thread: objects (marked or copied) and steals in the last command. */
  readonly objects: number[];
  readonly steals: number[];
  /** Per young space (by its start): the end of the words whose bits a mark may
   *  have set since the space's bitmap was last cleared. */
  private readonly markedTo = new Map<number, number>();

  /**
   * `pool`: another heap's started pool, lent to this one (WorkerPool.lend).
   * `soloWords`: commands over fewer heap words than this run on the main
   * thread alone (0: every command on every thread).
   */
  constructor(
    readonly heap: HeapImpl,
    readonly threads: number = defaultThreads(),
    pool?: WorkerPool,
    readonly soloWords = 0,
  ) {
    const n = pool?.threads ?? Math.max(1, Math.floor(threads));
    this.threads = n;
    this.buffers = {
      words: sharedBuffer(heap.words, 'words'),
      ctl: pool?.ctlBuffer ?? shared(ctlWords(n)),
      stats: shared(n * STATS_WORDS),
      deqCtl: shared(n * 2 * DEQ_STRIDE),
      deqBuf: shared(n * DEQ_CAP),
      bitmap: shared((heap.words.length + 31) >>> 5),
      roots: shared(1024),
      ranges: shared(1024),
      pieces: shared(64),
      out: shared(1024),
      tails: shared(256),
      kind: shared(64),
      left: shared(64),
      right: shared(64),
      refBegin: shared(64),
      refCount: shared(64),
      refOffsets: shared(256),
      cards: sharedBuffer(heap.cards.cards, 'card table'),
      blockStart: sharedBuffer(heap.cards.blockStart, 'block offset table'),
    };
    this.pool = pool ?? new WorkerPool(n, this.buffers);
    this.ownsPool = pool === undefined;
    this.objects = new Array<number>(n).fill(0);
    this.steals = new Array<number>(n).fill(0);
  }

  get ctx() {
    return this.pool.main;
  }

  /** Runs `fn` on another heap's threads, lent to this one's buffers. */
  lent<T>(fn: () => Promise<T>): Promise<T> {
    return this.pool.lend(this.buffers, fn);
  }

  /** Starts the workers (once). */
  start(): Promise<void> {
    return this.pool.start();
  }

  /**
   * Makes room for `ints` integers in the named buffers, replacing those too
   * small (at least doubling) in one message to the workers.
   */
  ensure(sizes: Partial<Record<BufferName, number>>): void {
    const repl: Partial<PoolBuffers> = {};
    let any = false;
    for (const [name, ints] of Object.entries(sizes) as [BufferName, number][]) {
      const have = this.buffers[name].byteLength >>> 2;
      if (ints <= have) continue;
      let cap = have * 2;
      while (cap < ints) cap *= 2;
      repl[name] = shared(cap);
      any = true;
    }
    if (any) this.pool.replace(repl);
  }

  /** Brings the threads' copy of the type table up to date (types defined since). */
  syncTypes(): void {
    const types = this.heap.types;
    if (types.count === this.typesShared && types.refOffsets === this.typesOffsets) return;
    let offsetsUsed = 0;
    for (let t = 0; t < types.count; t++) offsetsUsed = Math.max(offsetsUsed, types.refBegin[t]! + types.refCount[t]!);
    const sizes: Partial<Record<BufferName, number>> = { refOffsets: offsetsUsed };
    for (const col of TYPE_COLUMNS) sizes[col] = types.count;
    this.ensure(sizes);
    const c = this.ctx;
    for (const col of TYPE_COLUMNS) c[col].set(types[col].subarray(0, types.count));
    c.refOffsets.set(types.refOffsets.subarray(0, offsetsUsed));
    this.typesShared = types.count;
    this.typesOffsets = types.refOffsets;
  }

  /** Copies `roots` into the shared roots buffer. */
  setRoots(roots: Int32Array): void {
    this.ensure({ roots: roots.length });
    this.ctx.roots.set(roots);
    this.ctx.ctl[P_ROOTS] = roots.length;
  }

  /**
   * Runs a command and records each thread's work. `words`: at most how many
   * heap words it traces, copies or sweeps; below `soloWords` the main thread
   * runs it alone, as waking the workers would cost more than they save, and
   * above it one thread takes part for each `soloWords` (at least two), as
   * HotSpot sizes its active GC workers by heap per thread: every thread woken
   * is one more whose wake-up the command waits for. The warm-up's rehearsed
   * commands take every thread.
   */
  run(cmd: number, words: number): void {
    const alone = words < this.soloWords || (this.alternateSolo && (++this.commands & 1) === 0);
    this.pool.run(cmd, alone, this.rehearse, this.activeFor(words));
    this.rehearsed = this.ctx.ctl[REHEARSED]!;
    const st = this.ctx.stats;
    for (let i = 0; i < this.threads; i++) {
      this.objects[i] = st[i * STATS_WORDS + S_OBJECTS]!;
      this.steals[i] = st[i * STATS_WORDS + S_STEALS]!;
    }
  }

  /** The threads a command over `words` heap words wakes (`run`). */
  activeFor(words: number): number {
    if (this.rehearse || this.soloWords <= 0) return this.threads;
    return Math.min(this.threads, Math.max(2, Math.ceil(words / this.soloWords)));
  }

  /** Each thread's objects and steals in the last command: "objects/steals,..." */
  workField(): string {
    return this.objects.map((o, i) => `${o}/${this.steals[i]}`).join(',');
  }

  /**
   * Marks from `roots`: a young mark (young = true) traces [lo, hi) only and
   * returns the live young objects, in no particular order (a view of `out`,
   * valid until the next command). The bitmap is the threads' shared one; they
   * first clear the parts of it that can hold marks (listClears).
   */
  mark(roots: Int32Array, young: boolean, lo: number, hi: number): Int32Array | null {
    this.syncTypes();
    this.setRoots(roots);
    const c = this.ctx;
    if (young) this.ensure({ out: this.resultsRoom((hi - lo) >>> 2) });
    const ctl = c.ctl;
    ctl[P_LO] = lo;
    ctl[P_HI] = hi;
    this.listClears(young);
    ctl[P_YOUNG] = young ? 1 : 0;
    ctl[P_SABLE] = this.heap.layout.contiguousRefs ? 1 : 0;
    ctl[P_OUT_CAP] = c.out.length;
    this.run(CMD_MARK, young ? this.heap.youngUsedWords() : this.heap.usedBytes() / 4);
    return young ? c.out.subarray(0, compactResults(c)) : null;
  }

  /**
   * Lists in `ctl` the parts of the bitmap the mark clears first: in each young
   * space, up to the furthest its bits were set since it was last cleared (its
   * top at each mark); for a full mark, tenured up to its highest allocation
   * too. Nothing else can hold a mark, so the bitmap holds this mark's bits
   * alone afterwards, as a whole clear would leave it.
   */
  private listClears(young: boolean): void {
    const h = this.heap;
    const ctl = this.ctx.ctl;
    const spaces = [
      [h.edenStart, h.edenTop],
      [h.fromStart, h.fromTop],
      [h.toStart, h.toStart],
    ];
    let n = 0;
    const add = (from: number, to: number): void => {
      ctl[P_CLEAR + 2 * n] = from >>> 5;
      ctl[P_CLEAR + 2 * n + 1] = (to + 31) >>> 5;
      n++;
    };
    for (const [start, top] of spaces) {
      add(start, Math.max(top!, this.markedTo.get(start!) ?? start!));
      this.markedTo.set(start!, top!);
    }
    if (!young) add(h.tenuredStart, h.markedEnd);
    if (n > MAX_CLEARS) throw new Error('parallel collector: too many bitmap ranges to clear');
    ctl[P_CLEARS] = n;
  }

  /** Room for `n` results in `out`: each thread's last chunk may be part used. */
  resultsRoom(n: number): number {
    return n + this.threads * OUT_CHUNK;
  }

  get bitmap(): Uint32Array {
    return new Uint32Array(this.buffers.bitmap);
  }

  dispose(): void {
    if (this.ownsPool) this.pool.dispose();
  }
}
