/**
 * One GC thread's view of the shared memory, and the work distribution every
 * phase uses: a private stack, a Chase-Lev deque in shared memory fed from it in
 * batches, stealing, and termination.
 *
 * Work (object addresses) lives on the thread's private stack, where pushes and
 * pops are plain array accesses. Every SHARE_WORK units of work (an object and
 * each reference slot it holds count one each) the thread moves a batch of its
 * oldest entries into its deque when the deque is nearly empty, so the atomics
 * cost is paid per batch, not per object. A thread out of local work
 * pops its own deque, then steals one entry at a time from the others'.
 *
 * The deque (Chase and Lev 2005; Le et al. 2013 for the fences): the owner pushes
 * at `bottom` and pops there, thieves take at `top` with a compare-and-exchange;
 * when one entry is left the owner takes it with the same compare-and-exchange.
 * JavaScript's Atomics are sequentially consistent, which is stronger than the
 * algorithm needs.
 *
 * Results (a young mark's live objects, a copy's new addresses if listed) go straight into
 * the shared `out` buffer, each thread claiming a chunk of OUT_CHUNK entries at a
 * time: the pages written are the same from one collection to the next whichever
 * thread does the work, where per-thread lists would each grow (into fresh,
 * unmapped memory) the first time a thread did more than before. The unused end
 * of each thread's last chunk is closed up by the main thread (compactResults).
 *
 * Termination: a thread that finds no work anywhere counts itself in IDLE and
 * waits, spinning a little and then asleep on WAKE, which a thread sharing work
 * bumps and notifies while anyone sleeps; it leaves IDLE (decrementing it)
 * before it tries to steal again, and it tries only when some deque looks
 * non-empty. Only non-idle threads hold or push
 * work, and a thread goes idle only with its stack and deque empty, so once IDLE
 * equals the number of threads no work exists or can appear: every thread ends.
 */

import { availableParallelism } from 'node:os';
import {
  DEQ_CAP,
  DEQ_MASK,
  DEQ_STRIDE,
  ERROR,
  IDLE,
  OUTCUR,
  P_OUT_CAP,
  SLEEPERS,
  S_HOLE_AT,
  S_HOLE_END,
  S_STEALS,
  WAKE,
  STATS_WORDS,
  type PoolBuffers,
} from './shared.js';
import { now } from '../../heap/clock.js';

/** Entries of `out` a thread claims at a time for its results. */
export const OUT_CHUNK = 1024;
/** Work between looks at whether to share: objects and the reference slots
 *  they hold, one each, so that a thread scanning large arrays shares as
 *  often, in time, as one scanning small objects. */
export const SHARE_WORK = 64;
/** Largest batch moved from the stack to the deque at a time. */
const SHARE_BATCH = 64;
/** Looks for work an idle thread makes before it sleeps until work is shared. */
const IDLE_SPINS = 256;
/** How long a thread that has found no work yet in a phase goes on looking
 *  before it sleeps, when every GC thread has a core of its own: a phase's
 *  first work is shared from one thread while the others wait, and a sleeping
 *  thread can take the host milliseconds to wake. */
const FIRST_SPIN_MS = 1;
/** A rehearsal's idle wait: its looks before a sleep, its first spin (shorter
 *  than the rounds of looks the stand-in peer waits take, so that the wait both
 *  goes on spinning and then sleeps), and those rounds: enough branches for
 *  V8's feedback at little warm-up time. */
const REHEARSAL_IDLE_SPINS = 2;
const REHEARSAL_FIRST_SPIN_MS = 0.001;
const REHEARSAL_WAIT_ROUNDS = 64;
/** The longest sleep: a sleeper looks again after it even if nobody woke it (a
 *  failure elsewhere sets ERROR without waking anyone). */
const SLEEP_MS = 2;

/** Thrown by a thread that sees another thread's failure (ERROR set). */
export class PeerFailed extends Error {}

export class GcContext {
  words!: Int32Array;
  ctl!: Int32Array;
  stats!: Int32Array;
  deqCtl!: Int32Array;
  deqBuf!: Int32Array;
  bitmap!: Int32Array;
  /** The bitmap two words at a time, for clearing: a shared array is filled one
   *  element at a time, so wider elements clear it faster. */
  bitmap64!: Float64Array;
  roots!: Int32Array;
  ranges!: Int32Array;
  pieces!: Int32Array;
  out!: Int32Array;
  tails!: Int32Array;
  kind!: Int32Array;
  left!: Int32Array;
  right!: Int32Array;
  refBegin!: Int32Array;
  refCount!: Int32Array;
  refOffsets!: Int32Array;
  cards!: Uint8Array;
  /** The card table eight cards at a time (heap/card-table.ts nextSetByte). */
  cards64!: Float64Array;
  blockStart!: Int32Array;

  /** The private stack: entries [0, sp). */
  stack: Int32Array;
  sp = 0;
  /** Steals in the current phase. */
  steals = 0;
  /**
   * True while no other thread can touch the objects this one reaches: every
   * other thread is idle and this thread's deque is empty, so only this thread
   * can make work appear (by sharing). A thread working alone claims marks and
   * installs forwarding with plain stores, as the serial collector does: a chain
   * that only one thread can follow then costs what it costs serially.
   */
  alone = false;
  /** The results chunk in hand: the next entry and the chunk's end. */
  outAt = 0;
  outEnd = 0;
  /** FIRST_SPIN_MS, or 0 when the GC threads outnumber the cores (spinning
   *  threads would then take the busy ones' time); a microsecond in a rehearsal. */
  private firstSpinMs: number;
  /** How long a sleep lasts at most: SLEEP_MS, or 0 in a rehearsal. */
  private sleepMs = SLEEP_MS;
  /** Looks for work before a sleep: IDLE_SPINS, or fewer in a rehearsal. */
  private idleSpins = IDLE_SPINS;
  /** A rehearsal's stand-in for a peer still at work: looks an idle thread
   *  makes before that peer acts (0: no stand-in), and whether it then shares
   *  an entry (true) or counts itself idle. */
  private peerActsIn = 0;
  private peerShares = false;
  /** Whether this thread has had work in the current phase. */
  private worked = false;
  private readonly topIdx: number;
  private readonly botIdx: number;
  private readonly base: number;
  /** The owner's copy of its deque's bottom (only the owner writes it). */
  private bottom = 0;
  private victim: number;

  /** Threads taking part in the current command (the pool sets it per command). */
  threads: number;

  constructor(
    readonly id: number,
    threads: number,
    buffers: PoolBuffers,
    stackEntries = 4096,
  ) {
    this.threads = threads;
    this.stack = new Int32Array(stackEntries);
    this.firstSpinMs = threads <= availableParallelism() ? FIRST_SPIN_MS : 0;
    this.topIdx = id * 2 * DEQ_STRIDE;
    this.botIdx = this.topIdx + DEQ_STRIDE;
    this.base = id * DEQ_CAP;
    this.victim = id;
    this.update(buffers);
  }

  /** The buffers behind the views above (a worker's rehearsals copy them). */
  readonly buffers = {} as PoolBuffers;

  /** Takes new buffers (all or some). */
  update(b: Partial<PoolBuffers>): void {
    Object.assign(this.buffers, b);
    if (b.words) this.words = new Int32Array(b.words);
    if (b.ctl) this.ctl = new Int32Array(b.ctl);
    if (b.stats) this.stats = new Int32Array(b.stats);
    if (b.deqCtl) this.deqCtl = new Int32Array(b.deqCtl);
    if (b.deqBuf) this.deqBuf = new Int32Array(b.deqBuf);
    if (b.bitmap) {
      this.bitmap = new Int32Array(b.bitmap);
      this.bitmap64 = new Float64Array(b.bitmap, 0, b.bitmap.byteLength >>> 3);
    }
    if (b.roots) this.roots = new Int32Array(b.roots);
    if (b.ranges) this.ranges = new Int32Array(b.ranges);
    if (b.pieces) this.pieces = new Int32Array(b.pieces);
    if (b.out) this.out = new Int32Array(b.out);
    if (b.tails) this.tails = new Int32Array(b.tails);
    if (b.kind) this.kind = new Int32Array(b.kind);
    if (b.left) this.left = new Int32Array(b.left);
    if (b.right) this.right = new Int32Array(b.right);
    if (b.refBegin) this.refBegin = new Int32Array(b.refBegin);
    if (b.refCount) this.refCount = new Int32Array(b.refCount);
    if (b.refOffsets) this.refOffsets = new Int32Array(b.refOffsets);
    if (b.cards) {
      this.cards = new Uint8Array(b.cards);
      this.cards64 = new Float64Array(b.cards, 0, b.cards.byteLength >>> 3);
    }
    if (b.blockStart) this.blockStart = new Int32Array(b.blockStart);
  }

  /** Before a phase: empty stack and deque (the main thread zeroes `deqCtl`). */
  begin(): void {
    this.sp = 0;
    this.bottom = 0;
    this.steals = 0;
    this.outAt = this.outEnd = 0;
    this.worked = false;
    // Alone from the start with one thread, or in a worker's rehearsal (whose
    // peers count as idle): every rehearsal then runs both kinds of claim.
    this.alone = false;
    this.lookAlone();
  }

  /** After a phase: this thread's steals, and the unused end of its last results chunk. */
  end(): void {
    const st = this.id * STATS_WORDS;
    this.stats[st + S_STEALS] = this.steals;
    this.stats[st + S_HOLE_AT] = this.outAt;
    this.stats[st + S_HOLE_END] = this.outEnd;
  }

  /** Appends a result to `out`. */
  emit(x: number): void {
    if (this.outAt === this.outEnd) this.claimChunk();
    this.out[this.outAt++] = x;
  }

  private claimChunk(): void {
    const ctl = this.ctl;
    const at = Atomics.add(ctl, OUTCUR, OUT_CHUNK);
    if (at + OUT_CHUNK > ctl[P_OUT_CAP]!) throw new Error(`parallel collector: ${at + OUT_CHUNK} results overflow their buffer (${ctl[P_OUT_CAP]})`);
    this.outAt = at;
    this.outEnd = at + OUT_CHUNK;
  }

  push(a: number): void {
    if (this.sp === this.stack.length) this.growStack();
    this.stack[this.sp++] = a;
  }

  /** Doubles the stack (its entries [0, sp) kept) and returns it: a phase that
   *  keeps the stack and sp in locals sets `sp` first. */
  growStack(): Int32Array {
    const s = new Int32Array(this.stack.length * 2);
    s.set(this.stack.subarray(0, this.sp));
    this.stack = s;
    return s;
  }

  /**
   * Called every SHARE_WORK units of work: when the deque is nearly empty, moves up to
   * half the stack (its oldest entries, at most SHARE_BATCH) into it, and ends
   * working `alone`; with nothing to share, looks whether it can start. The
   * oldest entries of a depth-first stack are the largest pieces of work (a
   * tree's subtrees nearest its root), so a thief takes away work that keeps it
   * busy and lies apart from the owner's in memory; the newest are leaves.
   */
  share(): void {
    if (this.threads === 1) return;
    if (this.sp < 2) {
      this.lookAlone();
      return;
    }
    const b = this.bottom;
    const t = Atomics.load(this.deqCtl, this.topIdx);
    if (b - t >= 4) return;
    this.alone = false;
    let k = this.sp >>> 1;
    if (k > SHARE_BATCH) k = SHARE_BATCH;
    if (k > DEQ_CAP - (b - t)) k = DEQ_CAP - (b - t);
    const buf = this.deqBuf;
    const base = this.base;
    const stack = this.stack;
    for (let i = 0; i < k; i++) buf[base + ((b + i) & DEQ_MASK)] = stack[i]!;
    stack.copyWithin(0, k, this.sp);
    this.sp -= k;
    this.bottom = b + k;
    Atomics.store(this.deqCtl, this.botIdx, b + k);
    // Sleepers read SLEEPERS before they look for work one last time (sleep), so
    // either they see these entries or this sees them and wakes them.
    if (Atomics.load(this.ctl, SLEEPERS) !== 0) this.wake(k);
  }

  /**
   * Starts working alone if every other thread is idle and this deque is empty.
   * An idle thread leaves IDLE only after it has seen a non-empty deque, and
   * only a thread with work fills one, so nobody else can start until this
   * thread shares. Written without a branch: code first run inside a pause is
   * deoptimized there (V8 has no feedback for it).
   */
  private lookAlone(): void {
    const quiet = (this.bottom - Atomics.load(this.deqCtl, this.topIdx)) | (Atomics.load(this.ctl, IDLE) - this.threads + 1);
    this.alone = this.alone || quiet === 0;
  }

  /** Wakes up to `count` sleeping threads. */
  private wake(count: number): void {
    Atomics.add(this.ctl, WAKE, 1);
    Atomics.notify(this.ctl, WAKE, count);
  }

  /** Sleeps until work is shared, every thread is idle, or SLEEP_MS passed. */
  private sleep(): void {
    const ctl = this.ctl;
    Atomics.add(ctl, SLEEPERS, 1);
    const w = Atomics.load(ctl, WAKE);
    if (!this.anyWork() && Atomics.load(ctl, IDLE) !== this.threads && Atomics.load(ctl, ERROR) === 0) {
      Atomics.wait(ctl, WAKE, w, this.sleepMs);
    }
    Atomics.sub(ctl, SLEEPERS, 1);
  }

  /** The owner takes its newest deque entry, or -1. */
  private popOwn(): number {
    const q = this.deqCtl;
    const b = this.bottom - 1;
    if (b < Atomics.load(q, this.topIdx)) return -1;
    Atomics.store(q, this.botIdx, b);
    const t = Atomics.load(q, this.topIdx);
    let x = t > b ? -1 : this.deqBuf[this.base + (b & DEQ_MASK)]!;
    // The last entry, raced for with thieves (t === b), or none left, thieves
    // having taken it since the first look (t > b): one path for both, since
    // a rehearsal never meets the second and a path it never ran is thrown
    // away where a program's thread first meets it.
    if (t >= b) {
      if (t === b && Atomics.compareExchange(q, this.topIdx, t, t + 1) !== t) x = -1;
      Atomics.store(q, this.botIdx, b + 1);
      this.bottom = b + 1;
      return x;
    }
    this.bottom = b;
    return x;
  }

  /** Takes the oldest entry of thread v's deque: the entry, -1 if empty, -2 if contended. */
  private steal(v: number): number {
    const q = this.deqCtl;
    const ti = v * 2 * DEQ_STRIDE;
    const t = Atomics.load(q, ti);
    const b = Atomics.load(q, ti + DEQ_STRIDE);
    if (t >= b) return -1;
    const x = this.deqBuf[v * DEQ_CAP + (t & DEQ_MASK)]!;
    return Atomics.compareExchange(q, ti, t, t + 1) === t ? x : -2;
  }

  /** One round of steal attempts over the other threads; an entry or -1. */
  private stealRound(): number {
    const n = this.threads;
    // From the last thread stolen from (likely to have more), then the others.
    for (let k = 0; k < n; k++) {
      let v = this.victim + k;
      if (v >= n) v -= n;
      if (v === this.id) continue;
      let x = this.steal(v);
      while (x === -2) x = this.steal(v);
      if (x >= 0) {
        this.victim = v;
        this.steals++;
        return x;
      }
    }
    return -1;
  }

  private anyWork(): boolean {
    const q = this.deqCtl;
    for (let v = 0; v < this.threads; v++) {
      const ti = v * 2 * DEQ_STRIDE;
      if (Atomics.load(q, ti) < Atomics.load(q, ti + DEQ_STRIDE)) return true;
    }
    return false;
  }

  /**
   * Called with the stack empty: an entry from this thread's deque or a steal,
   * or -1 once every thread is out of work (see the module comment). Throws
   * PeerFailed when another thread failed.
   */
  acquire(): number {
    this.alone = this.threads === 1;
    const ctl = this.ctl;
    const n = this.threads;
    let x = this.popOwn();
    for (;;) {
      // One exit with work, whichever way it came: a rehearsal never steals,
      // and a site it never ran would be thrown away at a program's first steal.
      if (x < 0 && n > 1) x = this.stealRound();
      if (x >= 0) {
        this.worked = true;
        return x;
      }
      // The last thread to go idle ends the phase and wakes the sleepers to see it.
      if (Atomics.add(ctl, IDLE, 1) === n - 1) {
        if (n > 1) this.wake(n);
        return -1;
      }
      let since = 0;
      for (let spins = 0; ; spins++) {
        if (this.peerActsIn !== 0 && --this.peerActsIn === 0) this.peerActs();
        if (Atomics.load(ctl, IDLE) === n) return -1;
        if (Atomics.load(ctl, ERROR) !== 0) throw new PeerFailed();
        if (this.anyWork()) break;
        // Spin a little, then sleep until woken: on a machine with fewer cores
        // than threads, spinning idle threads take the busy ones' time. A
        // thread with no work yet in this phase spins for firstSpinMs.
        if (spins >= this.idleSpins) {
          spins = 0;
          if (!this.worked) {
            const t = now();
            if (since === 0) since = t;
            if (t - since < this.firstSpinMs) continue;
          }
          this.sleep();
          since = 0;
        }
      }
      Atomics.sub(ctl, IDLE, 1);
    }
  }

  /**
   * For a rehearsal (rehearse.ts): from now on this thread has a peer at work
   * until it has waited through REHEARSAL_WAIT_ROUNDS rounds of looks, with a
   * short first spin and sleeps of none. So the rehearsal runs the claims of a
   * thread that is not alone and every branch of the idle wait, spinning and
   * sleeping, which a program's threads meet when they first wait for work.
   */
  rehearseWithPeer(): void {
    this.firstSpinMs = REHEARSAL_FIRST_SPIN_MS;
    this.sleepMs = 0;
    this.idleSpins = REHEARSAL_IDLE_SPINS;
    Atomics.sub(this.ctl, IDLE, 1);
    this.peerActsIn = REHEARSAL_WAIT_ROUNDS * REHEARSAL_IDLE_SPINS + 1;
    this.peerShares = false;
  }

  /** For a rehearsal with a peer: the thread waits until the peer (thread 1)
   *  shares an entry, and steals it, as a thief does; the entry is not worked on. */
  rehearseSteal(): void {
    const idleIn = this.peerActsIn;
    this.peerActsIn = (REHEARSAL_WAIT_ROUNDS / 2) * REHEARSAL_IDLE_SPINS + 1;
    this.peerShares = true;
    if (this.acquire() !== 0) throw new Error('parallel collector: a rehearsed steal found no entry');
    this.peerActsIn = idleIn;
    this.peerShares = false;
  }

  /** For a rehearsal, between phases with every peer idle: waits for a
   *  stand-in peer until it shares an entry and steals it, then waits once more
   *  with no work in the phase at all, as a thread that wakes to find every
   *  root claimed does. */
  rehearseWaits(): void {
    this.begin();
    this.rehearseWithPeer();
    this.rehearseSteal();
    this.begin();
    this.acquire();
  }

  /** The stand-in peer's act: shares the entry 0, or goes idle. */
  private peerActs(): void {
    if (!this.peerShares) {
      Atomics.add(this.ctl, IDLE, 1);
      return;
    }
    const peer = 1;
    const bot = peer * 2 * DEQ_STRIDE + DEQ_STRIDE;
    const b = Atomics.load(this.deqCtl, bot);
    this.deqBuf[peer * DEQ_CAP + (b & DEQ_MASK)] = 0;
    Atomics.store(this.deqCtl, bot, b + 1);
  }
}

/**
 * On the main thread after a phase that emitted results: closes up the unused
 * ends of the threads' last chunks by moving entries down from the top, and
 * returns the number of results, now `out[0, n)` (`from` is the threads' own
 * business: they have used it by then).
 */
export function compactResults(c: GcContext): number {
  const stats = c.stats;
  const holes: [number, number][] = [];
  for (let i = 0; i < c.threads; i++) {
    const at = stats[i * STATS_WORDS + S_HOLE_AT]!;
    const end = stats[i * STATS_WORDS + S_HOLE_END]!;
    if (end > at) holes.push([at, end]);
  }
  holes.sort((x, y) => x[0] - y[0]);
  const out = c.out;
  let top = Atomics.load(c.ctl, OUTCUR);
  let lo = 0;
  let hi = holes.length - 1;
  while (lo <= hi) {
    const last = holes[hi]!;
    if (last[1] >= top) {
      top = Math.min(top, last[0]);
      hi--;
      continue;
    }
    const h = holes[lo]!;
    if (h[0] === h[1]) {
      lo++;
      continue;
    }
    top--;
    out[h[0]] = out[top]!;
    h[0]++;
  }
  return top;
}
