/**
 * The serial CPU marker: one explicit-stack depth-first trace writing the mark
 * bitmap (one bit per heap word) and, for young collections, the list of live young
 * objects in the order found, which the plan then copies (DFS order keeps parents
 * near children in to-space).
 *
 * Everything lives in typed arrays reused across collections: the bitmap, the stack
 * and the live list. References come from heap/ref-slots.ts in its two forms (a run,
 * or the type's offsets), so this marker never needs the reference graph.
 */

import type { HeapImpl } from '../heap/heap.js';
import { HEADER_WORDS, LAYOUT_WORD, TYPE_WORD } from '../heap/object-model.js';
import { SCATTERED, refRunEnd } from '../heap/ref-slots.js';
import { WARM_CAPACITY } from './int-list.js';
import { HEAP_READER, type MarkRequest, type MarkResult, type Marker } from './marker.js';
import { now } from '../heap/clock.js';

/** A mark's limit of words when it has none: a small integer in V8's terms (31 bits). */
const NO_LIMIT = 0x3fffffff;
/** A limited mark counts its objects' words each time it has listed this many more. */
const COUNT_EVERY = 4096;
/** Objects of more slots than this count their slots against a limited mark's limit as it
 *  scans them: fewer come under COUNT_EVERY's bound of objects, which bounds the scan then. */
const WIDE = 16;

export class SerialMarker implements Marker {
  readonly name = 'serial';
  readonly constraints = HEAP_READER;
  private readonly bitmap: Uint32Array;
  // Small at first, so that the warm-up's collections (gc/warm-up.ts) grow them
  // as a program's first collection will: code V8 optimized on the scratch heap
  // has then already taken the growing branches.
  private stack: Int32Array = new Int32Array(WARM_CAPACITY);
  private live: Int32Array = new Int32Array(WARM_CAPACITY);

  /** The last young mark's listed objects, whose bits are set (a full mark lists none). */
  private youngListed = 0;
  /** [start, end) pairs where the last full mark may have set bits (the ranges
   *  objects lay in then) that no mark has cleared since. */
  private stale: number[] = [];

  constructor(private readonly heap: HeapImpl) {
    this.bitmap = new Uint32Array((heap.words.length + 31) >>> 5);
  }

  /**
   * Clears the marks the next mark can meet, so that a collection's cost follows
   * its live objects, not the heap's size: the last young mark's bits one by one
   * (or the young range [ys, ye), when they are more than its words), and what
   * the last full mark left: the part inside [ys, ye) for a young mark, which reads
   * no bit outside it, and all of it for a full one.
   */
  private clear(young: boolean, ys: number, ye: number): void {
    const bitmap = this.bitmap;
    const n = this.youngListed;
    if (n < (ye - ys) >>> 5) {
      const live = this.live;
      for (let i = 0; i < n; i++) bitmap[live[i]! >>> 5] = 0;
    } else {
      bitmap.fill(0, ys >>> 5, (ye + 31) >>> 5);
    }
    this.youngListed = 0;
    const stale = this.stale;
    const kept: number[] = [];
    for (let i = 0; i < stale.length; i += 2) {
      const from = stale[i]!;
      const to = stale[i + 1]!;
      if (!young) {
        bitmap.fill(0, from >>> 5, (to + 31) >>> 5);
        continue;
      }
      const lo = Math.max(from, ys);
      const hi = Math.min(to, ye);
      if (lo < hi) bitmap.fill(0, lo >>> 5, (hi + 31) >>> 5);
      // What lies outside the young range stays for the next full mark to clear.
      if (from < ys) kept.push(from, Math.min(to, ys));
      if (to > ye) kept.push(Math.max(from, ye), to);
    }
    this.stale = kept;
  }

  /** The returned bitmap and live list belong to the marker until its next `mark`. */
  mark(request: MarkRequest): MarkResult {
    return this.markWithin(request, NO_LIMIT)!;
  }

  /**
   * A young mark that gives up once the objects it found are more than
   * `maxWords` words: null then, its bits left for the next mark to clear;
   * else the mark and its objects' words. It counts them every COUNT_EVERY
   * objects, so it lists at most that many objects past the limit, and it gives
   * up too once it has scanned more slots than the limit, which its listed
   * objects then hold (a few large arrays list few objects and scan many). A GPU
   * collector sizes a first young collection with it, and keeps it as that
   * collection's mark when the CPU gets the collection
   * (collectors/first-young-mark.ts).
   */
  markYoungUpTo(request: MarkRequest, maxWords: number): { mark: MarkResult; words: number } | null {
    const mark = this.markWithin(request, maxWords);
    return mark === null ? null : { mark, words: this.counted.words };
  }

  /** A limited mark's count: its listed objects' words, up to `upTo` of them. */
  private readonly counted = { words: 0, upTo: 0, limit: NO_LIMIT };

  private markWithin(request: MarkRequest, maxWords: number): MarkResult | null {
    const t0 = now();
    const young = request.kind === 'young';
    const bitmap = this.bitmap;
    const lo = young ? request.youngStart : 0;
    const hi = young ? request.youngEnd : this.heap.words.length;
    this.clear(young, request.youngStart, request.youngEnd);
    const c = this.counted;
    c.words = 0;
    c.upTo = 0;
    c.limit = maxWords;
    let count = this.trace(request.roots, lo, hi, young);
    if (count >= 0 && maxWords !== NO_LIMIT && this.countTo(count) > maxWords) count = ~count;
    if (count < 0) {
      this.youngListed = ~count;
      return null;
    }
    if (young) this.youngListed = count;
    else this.stale = this.heap.occupiedRanges();
    const result: MarkResult = {
      bitmap,
      times: { mark: now() - t0 },
      ...(young ? { live: this.live.subarray(0, count) } : {}),
    };
    return result;
  }

  dispose(): void {}

  /** Depth-first from `roots`, marking objects in [lo, hi); returns the number
   *  of live objects listed (young only), or its complement (~n, negative) when a
   *  young mark gave up at its limit, the n listed ones' bits set. Each of the
   *  scanner's two forms gets its own loop: a sable heap (every object one run)
   *  never tests for the other. The limit is tested where the list is full
   *  (`roomAt`), so that a mark without one pays nothing for it. */
  private trace(roots: Int32Array, lo: number, hi: number, young: boolean): number {
    return this.heap.refSlots.view().contiguous ? this.traceRuns(roots, lo, hi, young) : this.traceSlots(roots, lo, hi, young);
  }

  /** The listed objects' words up to the n-th, counted on from where the count stands. */
  private countTo(n: number): number {
    const c = this.counted;
    c.words += this.heap.types.wordsOf(this.heap.words, this.live, c.upTo, n);
    c.upTo = n;
    return c.words;
  }

  /** The list is full at n objects, as the mark meets the object whose bit `bit`
   *  of bitmap word `word` it has just set: the next n at which the list is full
   *  again, grown if need be; or -1, that bit cleared, when a limited mark's
   *  objects have passed its limit. */
  private roomAt(n: number, word: number, bit: number): number {
    const limit = this.counted.limit;
    if (limit !== NO_LIMIT && this.countTo(n) > limit) {
      this.bitmap[word]! &= ~bit;
      return -1;
    }
    if (n === this.live.length) this.growLive();
    return limit === NO_LIMIT ? this.live.length : Math.min(this.live.length, n + COUNT_EVERY);
  }

  /** Sable: an object's references are the run of `words[a + LAYOUT_WORD]` words after its header. */
  private traceRuns(roots: Int32Array, lo: number, hi: number, young: boolean): number {
    const words = this.heap.words;
    // The object model's names as locals: V8 reads an imported binding from its
    // module's cell, with a check, at every use, which here would be every object.
    const header = HEADER_WORDS;
    const countWord = LAYOUT_WORD;
    const bitmap = this.bitmap;
    let stack = this.stack;
    let live = this.live;
    let room = this.counted.limit === NO_LIMIT ? live.length : Math.min(live.length, COUNT_EVERY);
    let budget = this.counted.limit;
    let sp = 0;
    let n = 0;
    for (let r = 0; r < roots.length; r++) {
      const v = roots[r]!;
      if (v < lo || v >= hi || v === 0) continue;
      const bit = 1 << (v & 31);
      if ((bitmap[v >>> 5]! & bit) !== 0) continue;
      bitmap[v >>> 5]! |= bit;
      if (young) {
        if (n === room) {
          room = this.roomAt(n, v >>> 5, bit);
          if (room < 0) return ~n;
          live = this.live;
        }
        live[n++] = v;
      }
      if (sp === stack.length) stack = this.growStack();
      stack[sp++] = v;
      while (sp > 0) {
        const a = stack[--sp]!;
        const slots = words[a + countWord]!;
        // A limited mark's listed objects hold at least the slots it scanned.
        if (slots > WIDE && (budget -= slots) < 0 && young) return ~n;
        const end = a + header + slots;
        for (let s = a + header; s < end; s++) {
          const c = words[s]!;
          if (c < lo || c >= hi || c === 0) continue;
          const cb = 1 << (c & 31);
          const w = c >>> 5;
          if ((bitmap[w]! & cb) !== 0) continue;
          bitmap[w]! |= cb;
          if (young) {
            if (n === room) {
              room = this.roomAt(n, w, cb);
              if (room < 0) return ~n;
              live = this.live;
            }
            live[n++] = c;
          }
          if (sp === stack.length) stack = this.growStack();
          stack[sp++] = c;
        }
      }
    }
    return n;
  }

  /** Refgraph: an array's references are a run, an instance's the type's offsets. */
  private traceSlots(roots: Int32Array, lo: number, hi: number, young: boolean): number {
    const words = this.heap.words;
    const { kind, refBegin, refCount, refOffsets } = this.heap.refSlots.view();
    const header = HEADER_WORDS;
    const typeWord = TYPE_WORD;
    const scattered = SCATTERED;
    const bitmap = this.bitmap;
    let stack = this.stack;
    let live = this.live;
    let room = this.counted.limit === NO_LIMIT ? live.length : Math.min(live.length, COUNT_EVERY);
    let budget = this.counted.limit;
    let sp = 0;
    let n = 0;
    for (let r = 0; r < roots.length; r++) {
      const v = roots[r]!;
      if (v < lo || v >= hi || v === 0) continue;
      const bit = 1 << (v & 31);
      if ((bitmap[v >>> 5]! & bit) !== 0) continue;
      bitmap[v >>> 5]! |= bit;
      if (young) {
        if (n === room) {
          room = this.roomAt(n, v >>> 5, bit);
          if (room < 0) return ~n;
          live = this.live;
        }
        live[n++] = v;
      }
      if (sp === stack.length) stack = this.growStack();
      stack[sp++] = v;
      while (sp > 0) {
        const a = stack[--sp]!;
        const end = refRunEnd(words, kind, false, a);
        // A loop per form, so that neither tests its form per slot; they differ
        // only in where slot j is. A limited mark's listed objects hold at least
        // the slots it scanned.
        if (end !== scattered) {
          const slots = end - a - header;
          if (slots > WIDE && (budget -= slots) < 0 && young) return ~n;
          for (let s = a + header; s < end; s++) {
            const c = words[s]!;
            if (c < lo || c >= hi || c === 0) continue;
            const cb = 1 << (c & 31);
            const w = c >>> 5;
            if ((bitmap[w]! & cb) !== 0) continue;
            bitmap[w]! |= cb;
            if (young) {
              if (n === room) {
                room = this.roomAt(n, w, cb);
                if (room < 0) return ~n;
                live = this.live;
              }
              live[n++] = c;
            }
            if (sp === stack.length) stack = this.growStack();
            stack[sp++] = c;
          }
        } else {
          const t = words[a + typeWord]!;
          if (refCount[t]! > WIDE && (budget -= refCount[t]!) < 0 && young) return ~n;
          const e = refBegin[t]! + refCount[t]!;
          for (let j = refBegin[t]!; j < e; j++) {
            const c = words[a + refOffsets[j]!]!;
            if (c < lo || c >= hi || c === 0) continue;
            const cb = 1 << (c & 31);
            const w = c >>> 5;
            if ((bitmap[w]! & cb) !== 0) continue;
            bitmap[w]! |= cb;
            if (young) {
              if (n === room) {
                room = this.roomAt(n, w, cb);
                if (room < 0) return ~n;
                live = this.live;
              }
              live[n++] = c;
            }
            if (sp === stack.length) stack = this.growStack();
            stack[sp++] = c;
          }
        }
      }
    }
    return n;
  }

  private growStack(): Int32Array {
    const s = new Int32Array(this.stack.length * 2);
    s.set(this.stack);
    this.stack = s;
    return s;
  }

  private growLive(): Int32Array {
    const l = new Int32Array(this.live.length * 2);
    l.set(this.live);
    this.live = l;
    return l;
  }
}
