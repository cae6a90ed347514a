/**
 * The parallel copy of live young objects, run by every GC thread at once, as
 * Flood et al. (2001) and HotSpot's ParallelGC copy: roots and remembered-set
 * ranges are claimed in chunks from shared cursors; each thread copies into its
 * own local allocation buffers (LABs), one in the to-survivor space, refilled
 * from a shared bump pointer with a compare-and-exchange, and one in tenured,
 * refilled from the reserved tenured pieces under a lock; copies whose slots are
 * still to be scanned go on the thread's stack and are shared and stolen through
 * context.ts.
 *
 * Forwarding: a thread copies the object first, then installs the forwarding
 * header with one compare-and-exchange on the status word, which then holds the
 * new address (heap/object-model.ts forwardingStatus; the roots' fix-up reads it
 * with `forwardee`). The loser of a race takes the winner's address from the
 * status word and undoes its copy (its LAB top steps back); a thread working
 * alone (context.ts) races nobody and stores the header. The type word a+1 is
 * left alone, so every thread reads the object's size from an intact header.
 * The copies' new addresses are listed in the shared results only when the
 * refgraph layout rebuilds its young graph from them (P_LIST_MOVED).
 *
 * The remembered set comes as slot ranges the main thread found
 * (gc/roots.ts dirtyCardRanges, the refgraph layout, whose graph needs each
 * slot's object), or the threads find it: they share out the card table by
 * card range, and each cleans and walks the dirty cards of the parts it claims
 * (`scanPart`, `cards`), while others copy. Promotion is what makes that safe
 * to do at once: it copies into the tenured pieces reserved for it, and dirties
 * only their cards, so the walk steps over the pieces whole, and the cards they
 * overlap are the copier's: it cleans them before the copy and lists those that
 * were dirty for the threads to walk (the objects beside a piece), and the
 * scan leaves them alone. Nothing else in tenured changes during the copy but
 * the remembered slots, each of which lies on one card that one thread walks.
 *
 * Ageing and promotion as in gc/evacuate.ts: an object below the tenure age
 * goes to to-survivor while it has room, else to tenured; one tenured cannot
 * take stays in to-survivor whatever its age. Promoted copies that still refer
 * to young objects dirty their cards, and so do remembered slots whose referent
 * stays young. The unused end of a to-space LAB becomes a filler object (a word
 * array) so that the survivor space stays walkable; the unused tenured space
 * goes back to the main thread as tails for the free list.
 */

import { blockEnd, CARD_CLEAN, CARD_DIRTY, CARD_SHIFT, CARD_WORDS, blockHint, nextSetByte, recordBlockStart } from '../../heap/card-table.js';
import { MIN_CHUNK_WORDS } from '../../heap/free-list.js';
import { rightWordsBy } from '../../heap/layout.js';
import {
  ageOf,
  FREE_CHUNK,
  forwardingStatus,
  headerAt,
  HEADER_TAG,
  HEADER_WORDS,
  KIND_FLOAT_ARRAY,
  KIND_INSTANCE,
  LAYOUT_WORD,
  LENGTH_WORD,
  STATUS_FORWARDED,
  STATUS_WORD,
  statusForwardee,
  statusWithAge,
  TYPE_WORD,
} from '../../heap/object-model.js';
import { SCATTERED, refRunEnd } from '../../heap/ref-slots.js';
import { copyWords } from '../../heap/word-parity.js';
import { IntList } from '../int-list.js';
import { GcContext, SHARE_WORK } from './context.js';
import {
  LOCK,
  CARDCUR,
  P_BY_CARDS,
  P_FILLER_TYPE,
  P_LIST_MOVED,
  P_PIECE_CARDS,
  P_PIECES,
  P_RANGES,
  P_ROOTS,
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
  RANGECUR,
  ROOTCUR,
  SCANCUR,
  S_OBJECTS,
  S_PROMOTED,
  S_CARVES,
  S_SURVIVED,
  STATS_WORDS,
  TAILCUR,
  TO_TOP,
  MAX_TEN_LAB,
} from './shared.js';

const ROOT_CHUNK = 32;
const RANGE_CHUNK = 16;
/** Dirty cards a thread claims at a time (up to CARD_WORDS slots each): a
 *  claim of neighbouring cards is half a cache line of the card table. */
const CARD_CHUNK = 32;
/** Cards of the card table a thread scans for dirty ones at a time: 64 words of
 *  the table, and up to 512 dirty cards' slots to walk. */
const SCAN_CARDS = 512;

class CopyThread {
  c!: GcContext;
  words!: Int32Array;
  ys = 0;
  ye = 0;
  tenuredStart = 0;
  tenuredEnd = 0;
  toEnd = 0;
  tenureAge = 0;
  filler = 0;
  /** The copies' new addresses go into the shared results (P_LIST_MOVED). */
  list = false;
  /** Words of a tenured LAB (objects over a quarter of it are carved on their
   *  own; a LAB with an eighth of it left is kept when an object does not fit). */
  tenLab = 0;
  /** Words of a to-space LAB (copier.ts sizes it); objects over half of it are claimed on their own. */
  toLab = 0;
  /** Words carved (LABs and objects alone) since the LAB size last grew. */
  carvedSinceGrowth = 0;
  carves = 0;
  toTop = 0;
  toLim = 0;
  tenTop = 0;
  tenLim = 0;
  copied = 0;
  survived = 0;
  promoted = 0;
  /** Tenured space left unused: (start, size) pairs. */
  readonly tails = new IntList();
  /** The reserved tenured pieces (`c.pieces`, in address order: copier.ts). */
  private pieceCount = 0;
  /** Object sizes from the threads' copy of the type table, for `blockEnd`. */
  private readonly types = {
    rightWords: (words: Int32Array, a: number): number => rightWordsBy(this.c.kind, this.c.right, words, a),
  };

  begin(c: GcContext): void {
    this.c = c;
    this.words = c.words;
    const ctl = c.ctl;
    this.ys = ctl[P_YOUNG_START]!;
    this.ye = ctl[P_YOUNG_END]!;
    this.tenuredStart = ctl[P_TENURED_START]!;
    this.tenuredEnd = ctl[P_TENURED_END]!;
    this.toEnd = ctl[P_TO_END]!;
    this.tenureAge = ctl[P_TENURE_AGE]!;
    this.filler = ctl[P_FILLER_TYPE]!;
    this.list = ctl[P_LIST_MOVED]! !== 0;
    this.tenLab = ctl[P_TEN_LAB]!;
    this.toLab = ctl[P_TO_LAB]!;
    this.carvedSinceGrowth = this.carves = 0;
    this.toTop = this.toLim = this.tenTop = this.tenLim = 0;
    this.copied = this.survived = this.promoted = 0;
    this.tails.length = 0;
    this.pieceCount = ctl[P_PIECES]!;
  }

  /** The first reserved piece that ends after `p` (pieceCount if none). */
  private pieceAfter(p: number): number {
    const pieces = this.c.pieces;
    let lo = 0;
    let hi = this.pieceCount;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (pieces[2 * mid + 1]! <= p) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Makes [p, p + size) (size >= HEADER_WORDS) a word array nobody refers to. */
  private fill(p: number, size: number): void {
    const words = this.words;
    words[p + STATUS_WORD] = HEADER_TAG;
    words[p + TYPE_WORD] = this.filler;
    words[p + LAYOUT_WORD] = 0;
    words[p + LENGTH_WORD] = size - HEADER_WORDS;
    // Fillers are results too: they get refgraph vertices.
    if (this.list) this.c.emit(p);
  }

  /** Claims up to `want` (at least `size`) words of to-space: their start (the
   *  length in `claimed`), or 0 when fewer than `size` are left. */
  private claimTo(size: number, want: number): number {
    const ctl = this.c.ctl;
    for (;;) {
      const t = Atomics.load(ctl, TO_TOP);
      const avail = this.toEnd - t;
      if (avail < size) return 0;
      let take = want < avail ? want : avail;
      // A LAB's unused end must fit a filler (a bare header) or be empty.
      if (take - size > 0 && take - size < HEADER_WORDS) take = size;
      if (Atomics.compareExchange(ctl, TO_TOP, t, t + take) === t) {
        this.claimed = take;
        return t;
      }
    }
  }

  private claimed = 0;

  /** `size` words in to-space, or 0 when it is full. */
  private allocTo(size: number): number {
    const top = this.toTop;
    const rest = this.toLim - top - size;
    if (rest === 0 || rest >= HEADER_WORDS) {
      this.toTop = top + size;
      return top;
    }
    const lab = this.toLab;
    if (size > lab >>> 1) return this.claimTo(size, size);
    const s = this.claimTo(size, lab);
    if (s === 0) return 0;
    if (this.toLim > top) this.fill(top, this.toLim - top);
    this.toTop = s + size;
    this.toLim = s + this.claimed;
    return s;
  }

  /** Carves up to `want` (at least `size`) words from the reserved tenured pieces,
   *  or 0; the carved start is returned, its length in `carved`. */
  private carve(size: number, want: number): number {
    const ctl = this.c.ctl;
    const pieces = this.c.pieces;
    const n = ctl[P_PIECES]!;
    // Test and test-and-set: a waiting thread reads the lock's line until it is
    // free instead of writing it, so many waiters do not slow the holder down.
    while (Atomics.compareExchange(ctl, LOCK, 0, 1) !== 0) {
      while (Atomics.load(ctl, LOCK) !== 0) {
        // the lock is held for a few instructions
      }
    }
    let start = 0;
    for (;;) {
      const p = ctl[PIECE]!;
      if (p >= n) break;
      const top = ctl[PIECE_TOP]!;
      const avail = pieces[2 * p + 1]! - top;
      if (avail >= size) {
        let take = want < avail ? want : avail;
        // A rest the free list could not list goes with the carve.
        if (avail - take < MIN_CHUNK_WORDS) take = avail;
        ctl[PIECE_TOP] = top + take;
        start = top;
        this.carved = take;
        break;
      }
      if (avail > 0) {
        this.tails.push(top);
        this.tails.push(avail);
      }
      ctl[PIECE] = p + 1;
      if (p + 1 < n) ctl[PIECE_TOP] = pieces[2 * p + 2]!;
    }
    Atomics.store(ctl, LOCK, 0);
    return start;
  }

  private carved = 0;

  /** Counts `words` carved. Every carve takes the lock: a thread that has carved
   *  16 LABs' worth since its LAB last grew (the first collection, or one that
   *  promotes far more than lately) doubles it, so its last LAB's unused end
   *  stays under 1/8 of what it promoted, as the copier's reserve counts. */
  private grow(words: number): void {
    this.carves++;
    const lab = this.tenLab;
    if (lab >= MAX_TEN_LAB) return;
    this.carvedSinceGrowth += words;
    if (this.carvedSinceGrowth >= 16 * lab) {
      this.tenLab = 2 * lab;
      this.carvedSinceGrowth = 0;
    }
  }

  /** `size` words in tenured, or 0. */
  private allocTen(size: number): number {
    const top = this.tenTop;
    if (top + size <= this.tenLim) {
      this.tenTop = top + size;
      return top;
    }
    const lab = this.tenLab;
    if (size > lab >>> 2 || this.tenLim - top >= lab >>> 3) {
      const s = this.carve(size, size);
      if (s !== 0) this.grow(this.carved);
      if (s !== 0 && this.carved > size) {
        this.tails.push(s + size);
        this.tails.push(this.carved - size);
      }
      return s;
    }
    const s = this.carve(size, lab);
    if (s === 0) return 0;
    this.grow(this.carved);
    if (this.tenLim > top) {
      this.tails.push(top);
      this.tails.push(this.tenLim - top);
    }
    this.tenTop = s + size;
    this.tenLim = s + this.carved;
    return s;
  }

  /** Gives back an object copied in vain (its race was lost). */
  private undo(dst: number, size: number): void {
    if (dst >= this.tenuredStart) {
      if (dst + size === this.tenTop) this.tenTop = dst;
      else {
        this.tails.push(dst);
        this.tails.push(size);
      }
    } else if (dst + size === this.toTop) {
      this.toTop = dst;
    } else {
      this.fill(dst, size);
    }
  }

  /** The new address of young object `v`, copying it if no thread has yet. The
   *  slot loops read a forwarded object's address themselves before calling it:
   *  this function is too large to be inlined, and most slots of a large
   *  remembered set name objects already copied. */
  evacuate(v: number): number {
    const words = this.words;
    const s = words[v]!;
    if ((s & STATUS_FORWARDED) !== 0) return statusForwardee(s);
    const c = this.c;
    const t = words[v + TYPE_WORD]!;
    const k = c.kind[t]!;
    let left = 0;
    let size = HEADER_WORDS;
    if (k === KIND_INSTANCE) {
      left = c.left[t]!;
      size += left + c.right[t]!;
    } else {
      const len = words[v + LENGTH_WORD]!;
      size += k === KIND_FLOAT_ARRAY ? 2 * len : len;
    }
    const age = ageOf(s);
    let dst = age < this.tenureAge ? this.allocTo(size) : 0;
    if (dst === 0) {
      dst = this.allocTen(size);
      // Tenured cannot take it: it stays young whatever its age.
      if (dst === 0) dst = this.allocTo(size);
      if (dst === 0) throw new Error(`parallel copy: no room for an object of ${size} words (tenured reservation exhausted)`);
    }
    const src = v - left;
    if (size <= 16) for (let i = 0; i < size; i++) words[dst + i] = words[src + i]!;
    else copyWords(words, dst, src, size);
    const na = dst + left;
    words[na] = statusWithAge(age + 1);
    // A thread working alone (context.ts) cannot lose the race.
    if (c.alone) words[v] = forwardingStatus(na);
    else {
      const prev = Atomics.compareExchange(words, v, s, forwardingStatus(na));
      if (prev !== s) {
        this.undo(dst, size);
        return statusForwardee(prev);
      }
    }
    if (this.list) c.emit(na);
    this.copied++;
    if (na >= this.tenuredStart) {
      this.promoted += size;
      recordBlockStart(c.blockStart, this.tenuredStart, dst, dst + size);
    } else {
      this.survived += size;
    }
    c.push(na);
    return na;
  }

  /** Redirects the young references of the copy at `a`, copying their referents
   *  (the slots as heap/ref-slots.ts says: one run, or the type's offsets), and
   *  returns the number of reference slots. */
  scan(a: number, sable: boolean): number {
    const words = this.words;
    const ys = this.ys;
    const ye = this.ye;
    const promoted = a >= this.tenuredStart;
    const c = this.c;
    const end = refRunEnd(words, c.kind, sable, a);
    if (end !== SCATTERED) {
      // A card store per slot: a loop-carried "last card dirtied", as `remembered`
      // has for its one card, costs this hot loop more than it saves (s45-01).
      for (let s = a + HEADER_WORDS; s < end; s++) {
        const v = words[s]!;
        if (v < ys || v >= ye) continue;
        const st = words[v]!;
        const nv = (st & STATUS_FORWARDED) !== 0 ? statusForwardee(st) : this.evacuate(v);
        words[s] = nv;
        if (promoted && nv < ye) c.cards[(s - this.tenuredStart) >> CARD_SHIFT] = CARD_DIRTY;
      }
      return end - a - HEADER_WORDS;
    }
    const t = words[a + TYPE_WORD]!;
    const offsets = c.refOffsets;
    const e = c.refBegin[t]! + c.refCount[t]!;
    for (let j = c.refBegin[t]!; j < e; j++) {
      const s = a + offsets[j]!;
      const v = words[s]!;
      if (v < ys || v >= ye) continue;
      const st = words[v]!;
      const nv = (st & STATUS_FORWARDED) !== 0 ? statusForwardee(st) : this.evacuate(v);
      words[s] = nv;
      if (promoted && nv < ye) c.cards[(s - this.tenuredStart) >> CARD_SHIFT] = CARD_DIRTY;
    }
    return c.refCount[t]!;
  }

  /** Remembered-set ranges [r0, r1) (pairs): redirect their young references. */
  ranges(r0: number, r1: number): void {
    const ranges = this.c.ranges;
    for (let r = r0; r < r1; r++) this.remembered(ranges[2 * r]!, ranges[2 * r + 1]!);
  }

  /** The dirty cards of the part of the card table in hand. */
  private readonly found = new Int32Array(SCAN_CARDS);

  /**
   * Part `k` of the card table (SCAN_CARDS of its `n` cards): cleans each dirty
   * card that no reserved piece overlaps, lists it in `ranges` after the others
   * (CARDCUR), and walks it. A piece's cards are left as they are: the copier
   * cleaned them, and only a promotion dirties them now.
   */
  scanPart(k: number, n: number): void {
    const c = this.c;
    const cards = c.cards;
    const found = this.found;
    const from = k * SCAN_CARDS;
    const to = from + SCAN_CARDS < n ? from + SCAN_CARDS : n;
    let count = 0;
    for (let i = nextSetByte(cards, c.cards64, from, to); i < to; i = nextSetByte(cards, c.cards64, i + 1, to)) {
      if (this.onPiece(i)) continue;
      cards[i] = CARD_CLEAN;
      found[count++] = i;
    }
    if (count === 0) return;
    const at = Atomics.add(c.ctl, CARDCUR, count);
    c.ranges.set(found.subarray(0, count), at);
    this.cards(at, at + count);
  }

  /** Whether a reserved piece overlaps card `card`. */
  private onPiece(card: number): boolean {
    const cs = this.tenuredStart + (card << CARD_SHIFT);
    const k = this.pieceAfter(cs);
    return k < this.pieceCount && this.c.pieces[2 * k]! < cs + CARD_WORDS;
  }

  /**
   * Dirty cards [i0, i1) of the list in `ranges` (sable): the young references
   * of each object overlapping each card, inside the card, as gc/roots.ts
   * dirtyCardRanges finds them. The reserved pieces are stepped over whole:
   * they held no object before the copy, and other threads copy into them now.
   * A card's block offset entry is read, and improved as `blockStartFor`
   * improves it, only when its first word lies outside every piece: the
   * promotions rewrite the entries of the cards inside them.
   */
  cards(i0: number, i1: number): void {
    const words = this.words;
    const c = this.c;
    const list = c.ranges;
    const blockStart = c.blockStart;
    const pieces = c.pieces;
    const np = this.pieceCount;
    const base = this.tenuredStart;
    for (let i = i0; i < i1; i++) {
      const card = list[i]!;
      const cs = base + (card << CARD_SHIFT);
      const ce = cs + CARD_WORDS < this.tenuredEnd ? cs + CARD_WORDS : this.tenuredEnd;
      let k = this.pieceAfter(cs);
      let p: number;
      if (k < np && pieces[2 * k]! <= cs) {
        p = pieces[2 * k + 1]!;
        k++;
      } else {
        // The block holding the card's first word, from the entry's start.
        p = blockHint(blockStart, base, card);
        k = this.pieceAfter(p);
        for (;;) {
          if (k < np && p === pieces[2 * k]!) {
            p = pieces[2 * k + 1]!;
            k++;
            continue;
          }
          const next = blockEnd(words, this.types, p);
          if (next > cs) break;
          p = next;
        }
        // Written only when it changes: a store takes the cache line from the
        // other threads, which walk neighbouring cards.
        if (words[p] !== FREE_CHUNK && blockStart[card] !== p) blockStart[card] = p;
      }
      while (p < ce) {
        if (k < np && p === pieces[2 * k]!) {
          p = pieces[2 * k + 1]!;
          k++;
          continue;
        }
        if (words[p]! < 0) {
          p = blockEnd(words, this.types, p);
          continue;
        }
        const a = headerAt(words, p);
        const refEnd = a + HEADER_WORDS + words[a + LAYOUT_WORD]!;
        const lo = a + HEADER_WORDS > cs ? a + HEADER_WORDS : cs;
        const hi = refEnd < ce ? refEnd : ce;
        if (lo < hi) this.remembered(lo, hi);
        p = a + HEADER_WORDS + rightWordsBy(c.kind, c.right, words, a);
      }
    }
  }

  /** Remembered slots [lo, hi) of a tenured object, all on one card:
   *  redirects their young references and dirties the card, once, where a
   *  referent stays young. */
  private remembered(lo: number, hi: number): void {
    const words = this.words;
    const ys = this.ys;
    const ye = this.ye;
    let young = false;
    for (let s = lo; s < hi; s++) {
      const v = words[s]!;
      if (v < ys || v >= ye) continue;
      const st = words[v]!;
      const nv = (st & STATUS_FORWARDED) !== 0 ? statusForwardee(st) : this.evacuate(v);
      words[s] = nv;
      young = young || nv < ye;
    }
    // One store for the card, not one per slot: each store takes the card
    // table's cache line from the other threads, which work on neighbouring cards.
    if (young) this.c.cards[(lo - this.tenuredStart) >> CARD_SHIFT] = CARD_DIRTY;
  }

  /** After every thread is done: retire the LABs and hand the results to the main thread. */
  finish(): void {
    const c = this.c;
    const ctl = c.ctl;
    if (this.toLim > this.toTop) this.fill(this.toTop, this.toLim - this.toTop);
    if (this.tenLim > this.tenTop) {
      this.tails.push(this.tenTop);
      this.tails.push(this.tenLim - this.tenTop);
    }
    const nt = this.tails.length;
    if (nt > 0) {
      const at = Atomics.add(ctl, TAILCUR, nt);
      if (at + nt > ctl[P_TAILS_CAP]!) throw new Error(`parallel copy: ${at + nt} tail words overflow the results (${ctl[P_TAILS_CAP]})`);
      c.tails.set(this.tails.data.subarray(0, nt), at);
    }
    const st = c.id * STATS_WORDS;
    c.stats[st + S_OBJECTS] = this.copied;
    c.stats[st + S_SURVIVED] = this.survived;
    c.stats[st + S_PROMOTED] = this.promoted;
    c.stats[st + S_CARVES] = this.carves;
  }
}

const thread = new CopyThread();

export function copyPhase(c: GcContext): void {
  const ctl = c.ctl;
  const sable = ctl[P_SABLE]! !== 0;
  const rootCount = ctl[P_ROOTS]!;
  // The remembered set: the pieces' cards the copier listed, then the card
  // table's parts to scan; or slot ranges.
  const byCards = ctl[P_BY_CARDS]! !== 0;
  const remCount = byCards ? ctl[P_PIECE_CARDS]! : ctl[P_RANGES]!;
  const remChunk = byCards ? CARD_CHUNK : RANGE_CHUNK;
  const cardCount = ctl[P_SCAN_CARDS]!;
  const parts = byCards ? Math.ceil(cardCount / SCAN_CARDS) : 0;
  const roots = c.roots;
  const cp = thread;
  c.begin();
  cp.begin(c);
  let claiming = true;
  let listed = true;
  let work = 0;
  let nextShare = SHARE_WORK;
  for (;;) {
    if (c.sp === 0) {
      if (claiming) {
        const s = Atomics.add(ctl, ROOTCUR, ROOT_CHUNK);
        if (s < rootCount) {
          const e = Math.min(s + ROOT_CHUNK, rootCount);
          for (let i = s; i < e; i++) cp.evacuate(roots[i]!);
          continue;
        }
        if (listed) {
          const r = Atomics.add(ctl, RANGECUR, remChunk);
          if (r < remCount) {
            const e = Math.min(r + remChunk, remCount);
            if (byCards) cp.cards(r, e);
            else cp.ranges(r, e);
            continue;
          }
          listed = false;
        }
        const k = parts > 0 ? Atomics.add(ctl, SCANCUR, 1) : parts;
        if (k < parts) {
          cp.scanPart(k, cardCount);
          continue;
        }
        claiming = false;
      }
      const x = c.acquire();
      if (x < 0) break;
      c.push(x);
    }
    work += cp.scan(c.stack[--c.sp]!, sable) + 1;
    if (work >= nextShare) {
      nextShare = work + SHARE_WORK;
      c.share();
    }
  }
  cp.finish();
  c.end();
}
