/**
 * The parallel collector's shared memory: what the main thread and the pool's
 * workers all see, as SharedArrayBuffers, and the meaning of each control word.
 *
 * The main thread is GC thread 0 and the pool's workers are threads 1..n-1; all
 * of them run the same phase code (mark.ts, copy.ts) over views of these buffers
 * (context.ts). A collection hands work out by writing parameters into `ctl`,
 * then bumping and notifying the gate word of each worker taking part
 * (`gateOf`): no message is sent in a pause, and a worker left out sleeps on. Buffers that
 * grow (roots, results, the type table's copies) are sent to the workers on a
 * MessagePort before the command; a woken worker drains its port synchronously
 * (receiveMessageOnPort) before it reads the command.
 */

/** Control words (indices into `ctl`). Words that threads write while they work
 *  sit on cache lines of their own (16 words apart), away from the command words
 *  idle threads keep reading: a compare-and-exchange on a line other threads are
 *  reading takes it from all of them. EPOCH: commands issued so far, the value a
 *  command writes into the gates of the workers it wakes. */
export const EPOCH = 0;
/** The command of the current epoch (CMD_*). */
export const CMD = 1;
/** Set (to the failing thread's id + 1) when a thread failed; every thread stops. */
export const ERROR = 2;
/** Workers that finished the current command. */
export const DONE = 3;
/** Objects the threads' rehearsals of the current command processed, all together (pool.ts). */
export const REHEARSED = 4;
/** Threads taking part in the current command: thread 0 and workers 1..ACTIVE-1. */
export const ACTIVE = 5;
/** Threads that found no work (the termination count, context.ts); with the
 *  words idle threads sleep on, on a cache line apart from the hot cursors. */
export const IDLE = 48;
/** Bumped (and notified) when work is shared while a thread sleeps, or when all are idle. */
export const WAKE = 49;
/** Threads asleep on WAKE. */
export const SLEEPERS = 50;
/** The to-survivor space's shared bump pointer (copy.ts claims LABs from it). */
export const TO_TOP = 64;
/** Spinlock over the tenured pieces (PIECE, PIECE_TOP). */
export const LOCK = 80;
/** The tenured piece being carved, and the carve position in it. */
export const PIECE = 81;
export const PIECE_TOP = 82;
/** Next free entry of `out` (claimed a chunk at a time, or a sweep region's runs
 *  at a time) and of `tails`. */
export const OUTCUR = 96;
export const TAILCUR = 97;
/** The next unclaimed root, and the next unclaimed remembered-set range (or sweep region). */
export const ROOTCUR = 112;
export const RANGECUR = 113;
/** Blocks of the mark bitmap cleared so far (mark.ts; claimed from RANGECUR). */
export const CLEARED = 114;
/** A copy's scan of the card table (copy.ts `scanPart`): the next unclaimed part,
 *  and the next free entry of the dirty card list in `ranges` (the copier starts
 *  it after the cards it listed itself). */
export const SCANCUR = 115;
export const CARDCUR = 116;

/** Parameters of the current command. */
export const P_LO = 16;
export const P_HI = 17;
export const P_YOUNG = 18;
export const P_ROOTS = 19;
export const P_RANGES = 20;
export const P_TO_END = 21;
export const P_TENURED_START = 22;
export const P_YOUNG_START = 23;
export const P_YOUNG_END = 24;
export const P_TENURE_AGE = 25;
export const P_PIECES = 26;
export const P_SABLE = 27;
/** A word-array type id for the fillers that keep the to-space walkable. */
export const P_FILLER_TYPE = 28;
export const P_OUT_CAP = 29;
export const P_TAILS_CAP = 30;
/** Words of a tenured LAB this collection (copier.ts sizes it to the promotion expected). */
export const P_TEN_LAB = 31;
/** Regions the sweep lists in `ranges` (sweep.ts): tenured is split every REGION_WORDS words. */
export const P_REGIONS = 32;
export const P_TENURED_END = 33;
/** The bitmap word ranges the mark clears first: how many (at most MAX_CLEARS),
 *  then [from, to) pairs from P_CLEAR on. */
export const P_CLEARS = 34;
export const P_CLEAR = 35;
export const MAX_CLEARS = 4;
/** A copy lists each copy's new address in `out` (1; the refgraph layout rebuilds its young graph from them) or not (0). */
export const P_LIST_MOVED = P_CLEAR + 2 * MAX_CLEARS;
/** A copy finds the dirty cards itself (1, the sable layout: copy.ts `scanPart`),
 *  after the P_PIECE_CARDS cards the copier listed first in `ranges`, or takes
 *  P_RANGES slot ranges (0). */
export const P_BY_CARDS = P_LIST_MOVED + 1;
export const P_PIECE_CARDS = P_LIST_MOVED + 2;
/** The cards a copy's scan looks at (HeapImpl.cardsInUse). */
export const P_SCAN_CARDS = P_LIST_MOVED + 3;
/** Words of a to-space LAB this collection (copier.ts sizes it to the survival seen lately). */
export const P_TO_LAB = P_LIST_MOVED + 4;
export const CTL_WORDS = 128;
/** Each worker sleeps on a gate word of its own after the control words, a
 *  cache line apart, so that a command wakes only the workers it needs. */
const GATE_STRIDE = 16;

/** The index in `ctl` of thread `id`'s gate: the epoch of the last command it was given. */
export function gateOf(id: number): number {
  return CTL_WORDS + id * GATE_STRIDE;
}

/** Words of `ctl` for a pool of `threads` threads: the control words and the gates. */
export function ctlWords(threads: number): number {
  return gateOf(threads);
}

export const CMD_EXIT = 1;
export const CMD_MARK = 2;
export const CMD_COPY = 3;
export const CMD_SWEEP = 4;
/** Or'ed into a command: each worker rehearses it alone, on its own copy of the
 *  buffers, and the shared ones stay as they were (the warm-up's; pool.ts). */
export const CMD_REHEARSE = 1 << 8;

/** Per-thread counters in `stats` (STATS_WORDS each). */
export const S_OBJECTS = 0;
export const S_STEALS = 1;
/** Stats word 2 is unused. */
export const S_SURVIVED = 3;
export const S_PROMOTED = 4;
/** Carves of tenured space under the pieces' lock (LABs and objects alone). */
export const S_CARVES = 5;
/** The unused end of the results chunk a thread held last, [HOLE_AT, HOLE_END). */
export const S_HOLE_AT = 6;
export const S_HOLE_END = 7;
/** A cache line per thread. */
export const STATS_WORDS = 16;

/** Each thread's deque: top and bottom words DEQ_STRIDE apart in `deqCtl`
 *  (a cache line between them and between threads), DEQ_CAP entries in `deqBuf`. */
export const DEQ_STRIDE = 16;
export const DEQ_CAP = 1 << 14;
export const DEQ_MASK = DEQ_CAP - 1;

export interface PoolBuffers {
  /** The heap's words. */
  words: SharedArrayBuffer;
  ctl: SharedArrayBuffer;
  stats: SharedArrayBuffer;
  deqCtl: SharedArrayBuffer;
  deqBuf: SharedArrayBuffer;
  /** The mark bitmap: one bit per heap word. */
  bitmap: SharedArrayBuffer;
  /** The request's roots (P_ROOTS of them). */
  roots: SharedArrayBuffer;
  /** Remembered-set slot ranges, (first, end) pairs (P_RANGES pairs), or the
   *  dirty cards a copy found (CARDCUR of them), or a sweep's regions. */
  ranges: SharedArrayBuffer;
  /** Tenured space reserved for promotion, (start, end) pairs (P_PIECES pairs). */
  pieces: SharedArrayBuffer;
  /** Results: a young mark's live objects, a copy's new addresses (and fillers)
   *  when P_LIST_MOVED asks for them, a sweep's free runs. */
  out: SharedArrayBuffer;
  /** Tenured space a copy left unused, (start, size) pairs; a sweep's index of
   *  each region's runs in `out`, (offset, ints) pairs. */
  tails: SharedArrayBuffer;
  /** The type table's columns (heap/layout.ts TypeTable), as Int32Arrays. */
  kind: SharedArrayBuffer;
  left: SharedArrayBuffer;
  right: SharedArrayBuffer;
  refBegin: SharedArrayBuffer;
  refCount: SharedArrayBuffer;
  refOffsets: SharedArrayBuffer;
  /** The heap's card table and block offset table. */
  cards: SharedArrayBuffer;
  blockStart: SharedArrayBuffer;
}

export type BufferName = keyof PoolBuffers;

/** What a worker is given when it starts. */
export interface WorkerStart {
  id: number;
  threads: number;
  buffers: PoolBuffers;
  /** Its gate when the worker was made: a command issued before the worker
   *  reached its loop is still seen. */
  epoch: number;
  /** Buffer replacements arrive here. */
  port: import('node:worker_threads').MessagePort;
}

/** A message on a worker's port. */
export type PoolMessage = { buffers: Partial<PoolBuffers> };

/** The SharedArrayBuffer behind a typed array the heap owns; a heap made before
 *  its tables were shared cannot run the parallel collector. */
export function sharedBuffer(a: ArrayBufferView, what: string): SharedArrayBuffer {
  if (!(a.buffer instanceof SharedArrayBuffer)) throw new Error(`parallel collector: the heap's ${what} is not in shared memory`);
  return a.buffer;
}

/** Bounds of a tenured LAB's size (words): the copier sizes each collection's
 *  start from the promotion seen lately, and a thread doubles its own within
 *  the bounds as it promotes (copy.ts allocTen). */
export const MIN_TEN_LAB = 16;
export const MAX_TEN_LAB = 8192;
/** Bounds of a to-space LAB's size (words), sized as the tenured one is: each LAB
 *  claim is a compare-and-exchange on the one shared top, and a thread's last LAB
 *  leaves its unused end in to-space as a filler. */
export const MIN_TO_LAB = 1024;
export const MAX_TO_LAB = 8192;
