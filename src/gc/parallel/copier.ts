/**
 * The main thread's side of the parallel copy (copy.ts): it reserves tenured
 * space for promotion, hands the threads the roots and the remembered set
 * (slot ranges, or the dirty cards for the threads to walk), runs the copy,
 * and takes back what the threads left: the tenured space they did not use
 * (to the free list) and the to-space top.
 *
 * The reserve: tenured's free list lives on the main thread, so before a copy
 * the main thread carves from it enough pieces for every young word to be
 * promoted (plus the LABs' waste), in address order (the threads' walk of the
 * dirty cards looks pieces up by address), and gives back the unused rest after. When
 * tenured cannot spare that much, `reserve` says no and the plan collects this
 * time with the serial evacuation, which can tell "promotion failed" before
 * anything moved; the threads then still mark.
 */

import { CARD_CLEAN, CARD_DIRTY, CARD_WORDS } from '../../heap/card-table.js';
import type { HeapImpl } from '../../heap/heap.js';
import { MAX_STATUS_FORWARD_WORDS } from '../../heap/object-model.js';
import type { CopyResult, YoungCopier } from '../marker.js';
import { compactResults } from './context.js';
import type { GcThreads } from './threads.js';
import {
  CARDCUR,
  CMD_COPY,
  P_BY_CARDS,
  P_FILLER_TYPE,
  P_LIST_MOVED,
  P_OUT_CAP,
  P_PIECE_CARDS,
  P_PIECES,
  P_RANGES,
  P_SABLE,
  P_SCAN_CARDS,
  P_TAILS_CAP,
  P_TEN_LAB,
  P_TO_LAB,
  P_TENURE_AGE,
  P_TENURED_END,
  P_TENURED_START,
  P_TO_END,
  P_YOUNG_END,
  P_YOUNG_START,
  PIECE,
  PIECE_TOP,
  S_OBJECTS,
  S_PROMOTED,
  S_CARVES,
  S_SURVIVED,
  STATS_WORDS,
  TAILCUR,
  MAX_TEN_LAB,
  MIN_TEN_LAB,
  MIN_TO_LAB,
  MAX_TO_LAB,
  TO_TOP,
} from './shared.js';

const EMPTY = new Int32Array(0);

/** Most pieces a reserve may take from a fragmented free list. */
const MAX_PIECES = 64;
/** The smallest piece worth reserving. */
const MIN_PIECE = 1 << 12;

/** Sorts the first `n` (start, end) pairs of `pairs` by start (a few dozen at most). */
function sortPairs(pairs: Int32Array, n: number): void {
  for (let i = 1; i < n; i++) {
    const s = pairs[2 * i]!;
    const e = pairs[2 * i + 1]!;
    let j = i;
    for (; j > 0 && pairs[2 * j - 2]! > s; j--) {
      pairs[2 * j] = pairs[2 * j - 2]!;
      pairs[2 * j + 1] = pairs[2 * j - 1]!;
    }
    pairs[2 * j] = s;
    pairs[2 * j + 1] = e;
  }
}

/**
 * A LAB's words for a collection expected to copy about `lately` words on
 * `threads` threads: the largest power of two in [min, max] that is at most an
 * eighth of each thread's share, so that a thread's unused last LAB stays under
 * an eighth of what it copies.
 */
export function labWords(lately: number, threads: number, min: number, max: number): number {
  let lab = min;
  const perThread = lately / (8 * threads);
  while (lab < max && 2 * lab <= perThread) lab *= 2;
  return lab;
}

export class ParallelCopier implements YoungCopier {
  private pieceCount = 0;
  private reserved = 0;
  /** Words promoted lately (halved each collection that promotes less). */
  private promotedLately = 0;
  /** This collection's tenured LAB size. */
  private tenLab = MIN_TEN_LAB;
  /** Words copied into to-space lately (halved each collection that copies less),
   *  and this collection's to-space LAB size from them. */
  private survivedLately = 0;
  private toLab = MIN_TO_LAB;
  /** The last copy's carves of tenured space under the lock, all threads. */
  lastCarves = 0;
  /** The dirty cards the last copy found. */
  private lastCards = 0;

  private readonly tailOrder: number[] = [];

  constructor(
    private readonly heap: HeapImpl,
    private readonly gc: GcThreads,
  ) {}

  /**
   * Entries of the result buffer (`out`) a copy that lists its copies needs at
   * most: one per object copied or filler written, at most one per header's worth
   * of young words. Sized for the whole young generation, not what is in use, so
   * the buffer is made once: a new one's pages are first written in a pause.
   */
  resultsCapacity(): number {
    const h = this.heap;
    return this.gc.resultsRoom(((h.youngEnd - h.youngStart) >>> 2) + 16);
  }

  /** Makes the result buffer before the program runs (`--pretouch` then maps it). */
  makeResults(): void {
    this.gc.ensure({ out: this.resultsCapacity() });
  }

  start(): Promise<void> {
    return this.gc.start();
  }

  reserve(): boolean {
    const h = this.heap;
    // The threads forward in the status word, which holds addresses of so many words only.
    if (h.words.length > MAX_STATUS_FORWARD_WORDS || !this.gc.pool.started) return false;
    const used = h.youngUsedWords();
    // Every thread that promotes carves a LAB and gives back its unused end,
    // a hole between the live copies of neighbouring LABs that only a sweep
    // can join again: LABs sized to the promotion expected (as HotSpot sizes
    // PLABs) keep those holes to a small part of what is promoted, where
    // fixed large ones would use up tenured's contiguous space at every
    // collection, however little it promotes.
    const lab = labWords(this.promotedLately, this.gc.threads, MIN_TEN_LAB, MAX_TEN_LAB);
    this.tenLab = lab;
    // A to-space LAB wastes at most its unused end, once per thread, and each
    // claim of one is a compare-and-exchange on the shared top.
    this.toLab = labWords(this.survivedLately, this.gc.threads, MIN_TO_LAB, MAX_TO_LAB);
    // LABs waste at most 1/8 of what they hold, and a thread's last LAB at most
    // 1/8 of what it promoted once its LAB has grown (copy.ts allocTen), plus one
    // starting LAB per thread and a largest object per piece switch.
    let need = used + (used >>> 2) + this.gc.threads * 2 * lab + 64;
    this.gc.ensure({ pieces: 2 * MAX_PIECES });
    const pieces = this.gc.ctx.pieces;
    let n = 0;
    let ask = need;
    while (need > 0 && n < MAX_PIECES) {
      const s = h.allocTenured(ask);
      if (s !== 0) {
        pieces[2 * n] = s;
        pieces[2 * n + 1] = s + ask;
        n++;
        need -= ask;
        if (need > 0) need += h.largeObjectWords;
        ask = Math.min(ask, need);
        continue;
      }
      if (ask <= MIN_PIECE) break;
      ask = Math.max(MIN_PIECE, Math.min(need, ask >>> 1));
    }
    sortPairs(pieces, n);
    this.pieceCount = n;
    this.reserved = 0;
    for (let i = 0; i < n; i++) this.reserved += pieces[2 * i + 1]! - pieces[2 * i]!;
    if (need > 0) {
      this.giveBackPieces(0, h.tenuredStart);
      return false;
    }
    return true;
  }

  /** Returns the pieces from `from` on to the free list (the one at `from` from `top`). */
  private giveBackPieces(from: number, top: number): void {
    const pieces = this.gc.ctx.pieces;
    for (let i = this.pieceCount - 1; i >= from; i--) {
      const s = i === from ? Math.max(top, pieces[2 * i]!) : pieces[2 * i]!;
      const e = pieces[2 * i + 1]!;
      if (e > s) this.heap.giveBackTenured(s, e - s);
    }
    this.pieceCount = 0;
  }

  copy(roots: Int32Array, ranges: Int32Array | null): CopyResult {
    const h = this.heap;
    const gc = this.gc;
    gc.syncTypes();
    gc.setRoots(roots);
    // The refgraph layout rebuilds its young graph from the copies' list.
    const list = h.graph !== null;
    const byCards = ranges === null;
    gc.ensure({
      // Room for every card when the threads list the dirty ones.
      ranges: byCards ? h.cards.count : ranges.length,
      out: list ? this.resultsCapacity() : 0,
      // A pair per carve (each takes at least a quarter LAB, at least 16 words),
      // per exhausted piece and per thread's last LAB.
      tails: (this.reserved >>> 3) + 4 * this.pieceCount + 8 * gc.threads + 64,
    });
    const c = gc.ctx;
    const ctl = c.ctl;
    if (!byCards) c.ranges.set(ranges);
    ctl[P_RANGES] = byCards ? 0 : ranges.length >>> 1;
    ctl[P_BY_CARDS] = byCards ? 1 : 0;
    const pieceCards = byCards ? this.listPieceCards(c.ranges) : 0;
    ctl[P_PIECE_CARDS] = pieceCards;
    ctl[CARDCUR] = pieceCards;
    ctl[P_SABLE] = h.layout.contiguousRefs ? 1 : 0;
    ctl[P_YOUNG_START] = h.youngStart;
    ctl[P_YOUNG_END] = h.youngEnd;
    ctl[P_TENURED_START] = h.tenuredStart;
    ctl[P_TENURED_END] = h.tenuredEnd;
    ctl[P_SCAN_CARDS] = h.cardsInUse();
    ctl[P_TO_END] = h.toEnd;
    ctl[P_TENURE_AGE] = h.tenureAge;
    ctl[P_FILLER_TYPE] = h.stringTypeId;
    ctl[P_LIST_MOVED] = list ? 1 : 0;
    ctl[P_PIECES] = this.pieceCount;
    ctl[P_OUT_CAP] = c.out.length;
    ctl[P_TAILS_CAP] = c.tails.length;
    ctl[P_TEN_LAB] = this.tenLab;
    ctl[P_TO_LAB] = this.toLab;
    ctl[TO_TOP] = h.toStart;
    ctl[PIECE] = 0;
    ctl[PIECE_TOP] = this.pieceCount > 0 ? c.pieces[0]! : 0;
    try {
      // The dirty cards are not known yet: the last copy's stand for them.
      let words = h.youngUsedWords() + (byCards ? this.lastCards * CARD_WORDS : 0);
      if (!byCards) for (let i = 0; i < ranges.length; i += 2) words += ranges[i + 1]! - ranges[i]!;
      gc.run(CMD_COPY, words);
    } finally {
      this.takeBack();
    }
    let survived = 0;
    let promoted = 0;
    let count = 0;
    this.lastCarves = 0;
    for (let i = 0; i < gc.threads; i++) {
      this.lastCarves += c.stats[i * STATS_WORDS + S_CARVES]!;
      survived += c.stats[i * STATS_WORDS + S_SURVIVED]!;
      promoted += c.stats[i * STATS_WORDS + S_PROMOTED]!;
      count += c.stats[i * STATS_WORDS + S_OBJECTS]!;
    }
    this.promotedLately = Math.max(promoted, this.promotedLately >>> 1);
    this.survivedLately = Math.max(survived, this.survivedLately >>> 1);
    const moved = list ? c.out.subarray(0, compactResults(c)) : EMPTY;
    this.lastCards = byCards ? ctl[CARDCUR]! : 0;
    return {
      moved,
      cards: byCards ? c.ranges.subarray(0, this.lastCards) : EMPTY,
      count,
      toTop: ctl[TO_TOP]!,
      survivedWords: survived,
      promotedWords: promoted,
      threads: gc.workField(),
    };
  }

  /**
   * The cards the reserved pieces overlap, for a copy whose threads find the
   * dirty cards (copy.ts `scanPart` leaves these alone): cleans them all, and
   * lists in `list` those of a piece's first and last cards that were dirty,
   * whose objects beside the piece the threads walk. Returns how many.
   */
  private listPieceCards(list: Int32Array): number {
    const ct = this.heap.cards;
    const cards = ct.cards;
    const pieces = this.gc.ctx.pieces;
    let n = 0;
    for (let i = 0; i < this.pieceCount; i++) {
      const first = ct.cardOf(pieces[2 * i]!);
      const last = ct.cardOf(pieces[2 * i + 1]! - 1);
      // A card two pieces share is listed once: the first look cleans it.
      for (const card of [first, last]) {
        if (cards[card] !== CARD_DIRTY) continue;
        list[n++] = card;
        cards[card] = CARD_CLEAN;
      }
      if (last > first + 1) cards.fill(CARD_CLEAN, first + 1, last);
    }
    return n;
  }

  /** The tenured space the threads left: tails and the pieces' unused ends. */
  private takeBack(): void {
    const h = this.heap;
    const c = this.gc.ctx;
    const ctl = c.ctl;
    const pieces = c.pieces;
    // The promoted copies are tenured writes for a heap mirror, if any.
    const log = h.mirror;
    if (log !== null) for (let i = 0; i < this.pieceCount; i++) log.noteWrite(pieces[2 * i]!, pieces[2 * i + 1]!);
    // The pieces' unused ends first, then the tails from the highest down: a
    // tail that ends where free space begins joins it (FreeList.giveBack).
    const p = ctl[PIECE]!;
    if (p < this.pieceCount) this.giveBackPieces(p, ctl[PIECE_TOP]!);
    this.pieceCount = 0;
    const tails = c.tails;
    const nt = ctl[TAILCUR]! >>> 1;
    const order = this.tailOrder;
    order.length = 0;
    for (let i = 0; i < nt; i++) order.push(i);
    order.sort((x, y) => tails[2 * y]! - tails[2 * x]!);
    for (const i of order) this.heap.giveBackTenured(tails[2 * i]!, tails[2 * i + 1]!);
  }
}
