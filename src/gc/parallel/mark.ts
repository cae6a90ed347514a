/**
 * The parallel mark, run by every GC thread at once (the main thread too): roots
 * claimed in chunks from a shared cursor, objects traced depth-first from the
 * thread's stack, shared and stolen through context.ts. A mark bit is set with
 * one Atomics.or only where a plain load of the bitmap word says it is clear
 * (FastCollect's check before the atomic), or with a plain store while the
 * thread works alone (context.ts), and the thread that set it traces the
 * object. A young mark also lists the live young objects, in the threads'
 * chunks of the shared results (context.ts).
 *
 * The trace loop is written as the serial marker's is (gc/serial-marker.ts): the
 * stack and its top in locals, handed back to the context only to share work,
 * steal or grow, and the object model's names bound to locals. Each loop that
 * meets referents tests and sets their bits itself: V8 does not inline a
 * function into this loop, and a call per slot costs more than the atomic
 * (docs/decisions/s46-02-mark-bit-set-inline.md).
 */

import { HEADER_WORDS, LAYOUT_WORD, TYPE_WORD } from '../../heap/object-model.js';
import { SCATTERED, refRunEnd } from '../../heap/ref-slots.js';
import { GcContext, PeerFailed, SHARE_WORK } from './context.js';
import { CLEARED, ERROR, P_CLEAR, P_CLEARS, P_HI, P_LO, P_ROOTS, P_SABLE, P_YOUNG, RANGECUR, ROOTCUR, S_OBJECTS, STATS_WORDS } from './shared.js';

const ROOT_CHUNK = 64;
/** Bitmap words a thread clears at a time before the mark. */
const CLEAR_BLOCK = 1 << 14;
/** Looks at CLEARED before a thread sleeps on it. */
const CLEAR_SPINS = 1024;
/** The longest wait on CLEARED between looks at ERROR. */
const CLEAR_WAIT_MS = 2;

/**
 * Clears the bitmap word ranges the command lists (P_CLEARS) a block at a time,
 * claimed from RANGECUR, and returns once every block is clear. The threads
 * share the clearing of a large heap's bitmap; a thread that wakes late finds it
 * done and goes on.
 */
function clearBitmap(c: GcContext): void {
  const ctl = c.ctl;
  const n = ctl[P_CLEARS]!;
  let blocks = 0;
  for (let r = P_CLEAR; r < P_CLEAR + 2 * n; r += 2) blocks += Math.ceil((ctl[r + 1]! - ctl[r]!) / CLEAR_BLOCK);
  for (let k = Atomics.add(ctl, RANGECUR, 1); k < blocks; k = Atomics.add(ctl, RANGECUR, 1)) {
    // Block k of the ranges taken in order.
    let r = P_CLEAR;
    let j = k;
    for (;;) {
      const nb = Math.ceil((ctl[r + 1]! - ctl[r]!) / CLEAR_BLOCK);
      if (j < nb) break;
      j -= nb;
      r += 2;
    }
    let s = ctl[r]! + j * CLEAR_BLOCK;
    let e = Math.min(s + CLEAR_BLOCK, ctl[r + 1]!);
    // Odd ends one word at a time, the rest two at a time (all-zero bits are +0).
    if ((s & 1) !== 0) c.bitmap[s++] = 0;
    if ((e & 1) !== 0 && e > s) c.bitmap[--e] = 0;
    if (e > s) c.bitmap64.fill(0, s >>> 1, e >>> 1);
    if (Atomics.add(ctl, CLEARED, 1) + 1 === blocks) Atomics.notify(ctl, CLEARED);
  }
  // Only the blocks other threads hold are left: at most one each.
  let spins = 0;
  for (let d = Atomics.load(ctl, CLEARED); d < blocks; d = Atomics.load(ctl, CLEARED)) {
    if (++spins < CLEAR_SPINS) continue;
    if (Atomics.load(ctl, ERROR) !== 0) throw new PeerFailed();
    Atomics.wait(ctl, CLEARED, d, CLEAR_WAIT_MS);
  }
}

export function markPhase(c: GcContext): void {
  const ctl = c.ctl;
  const words = c.words;
  const bitmap = c.bitmap;
  const lo = ctl[P_LO]!;
  const hi = ctl[P_HI]!;
  const young = ctl[P_YOUNG]! !== 0;
  const sable = ctl[P_SABLE]! !== 0;
  const rootCount = ctl[P_ROOTS]!;
  const roots = c.roots;
  const kinds = c.kind;
  const refBegin = c.refBegin;
  const refCount = c.refCount;
  const refOffsets = c.refOffsets;
  const header = HEADER_WORDS;
  const countWord = LAYOUT_WORD;
  const typeWord = TYPE_WORD;
  const scattered = SCATTERED;
  const shareWork = SHARE_WORK;
  let objects = 0;
  let work = 0;
  let nextShare = shareWork;
  clearBitmap(c);
  c.begin();
  let alone = c.alone;
  let stack: Int32Array = c.stack;
  let sp = 0;
  let rootsLeft = true;
  for (;;) {
    if (sp === 0) {
      c.sp = 0;
      const s = rootsLeft ? Atomics.add(ctl, ROOTCUR, ROOT_CHUNK) : rootCount;
      if (s < rootCount) {
        const e = Math.min(s + ROOT_CHUNK, rootCount);
        for (let i = s; i < e; i++) {
          const v = roots[i]!;
          if (v < lo || v >= hi || v === 0) continue;
          const w = v >>> 5;
          const b = 1 << (v & 31);
          const x = bitmap[w]!;
          if ((x & b) !== 0) continue;
          if (alone) bitmap[w] = x | b;
          else if ((Atomics.or(bitmap, w, b) & b) !== 0) continue;
          if (young) c.emit(v);
          c.push(v);
        }
        stack = c.stack;
        sp = c.sp;
        continue;
      }
      rootsLeft = false;
      const x = c.acquire();
      if (x < 0) break;
      alone = c.alone;
      stack = c.stack;
      stack[0] = x;
      sp = 1;
    }
    const a = stack[--sp]!;
    objects++;
    const end = sable ? a + header + words[a + countWord]! : refRunEnd(words, kinds, false, a);
    // A loop per form, as the serial marker has; they differ only in where slot j is.
    if (end !== scattered) {
      work += end - a - header + 1;
      for (let s = a + header; s < end; s++) {
        const v = words[s]!;
        if (v < lo || v >= hi || v === 0) continue;
        const w = v >>> 5;
        const b = 1 << (v & 31);
        const x = bitmap[w]!;
        if ((x & b) !== 0) continue;
        if (alone) bitmap[w] = x | b;
        else if ((Atomics.or(bitmap, w, b) & b) !== 0) continue;
        if (young) c.emit(v);
        if (sp === stack.length) {
          c.sp = sp;
          stack = c.growStack();
        }
        stack[sp++] = v;
      }
    } else {
      const t = words[a + typeWord]!;
      const e = refBegin[t]! + refCount[t]!;
      work += refCount[t]! + 1;
      for (let j = refBegin[t]!; j < e; j++) {
        const v = words[a + refOffsets[j]!]!;
        if (v < lo || v >= hi || v === 0) continue;
        const w = v >>> 5;
        const b = 1 << (v & 31);
        const x = bitmap[w]!;
        if ((x & b) !== 0) continue;
        if (alone) bitmap[w] = x | b;
        else if ((Atomics.or(bitmap, w, b) & b) !== 0) continue;
        if (young) c.emit(v);
        if (sp === stack.length) {
          c.sp = sp;
          stack = c.growStack();
        }
        stack[sp++] = v;
      }
    }
    if (work >= nextShare) {
      nextShare = work + shareWork;
      c.sp = sp;
      c.share();
      sp = c.sp;
      alone = c.alone;
    }
  }
  c.stats[c.id * STATS_WORDS + S_OBJECTS] = objects;
  c.end();
}
