/**
 * The parallel mark, run by every GC thread at once (the main thread too): roots
 * claimed in chunks from a shared cursor, objects traced depth-first from the
 * thread's stack, shared and stolen through context.ts. A mark bit is set with
 * one Atomics.or only where a plain load of the bitmap word says it is clear
 * (FastCollect's check before the atomic), and the thread whose OR set it
 * traces the object. A young mark also lists the live young objects: each
 * thread its own, copied into `out` at the end.
 */

import { HEADER_WORDS, TYPE_WORD } from '../../heap/object-model.js';
import { SCATTERED, refRunEnd } from '../../heap/ref-slots.js';
import { IntList } from '../int-list.js';
import { GcContext, SHARE_EVERY } from './context.js';
import { OUTCUR, P_HI, P_LO, P_OUT_CAP, P_ROOTS, P_SABLE, P_YOUNG, ROOTCUR, S_OBJECTS, S_OUT, STATS_WORDS } from './shared.js';

const ROOT_CHUNK = 64;

/** Sets the mark bit of `a`; true when this call set it. */
function claim(bitmap: Int32Array, a: number): boolean {
  const w = a >>> 5;
  const b = 1 << (a & 31);
  return (bitmap[w]! & b) === 0 && (Atomics.or(bitmap, w, b) & b) === 0;
}

/** A thread's list of the young objects it marked (kept across marks). */
const live = new IntList();

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
  let objects = 0;
  live.clear();
  c.begin();
  const found = (v: number): void => {
    if (v >= lo && v < hi && v !== 0 && claim(bitmap, v)) {
      if (young) live.push(v);
      c.push(v);
    }
  };
  let rootsLeft = true;
  for (;;) {
    if (c.sp === 0) {
      const s = rootsLeft ? Atomics.add(ctl, ROOTCUR, ROOT_CHUNK) : rootCount;
      if (s < rootCount) {
        const e = Math.min(s + ROOT_CHUNK, rootCount);
        for (let i = s; i < e; i++) found(roots[i]!);
        continue;
      }
      rootsLeft = false;
      const x = c.acquire();
      if (x < 0) break;
      c.push(x);
    }
    const a = c.stack[--c.sp]!;
    objects++;
    const end = refRunEnd(words, kinds, sable, a);
    if (end !== SCATTERED) {
      for (let s = a + HEADER_WORDS; s < end; s++) found(words[s]!);
    } else {
      const t = words[a + TYPE_WORD]!;
      const e = refBegin[t]! + refCount[t]!;
      for (let j = refBegin[t]!; j < e; j++) found(words[a + refOffsets[j]!]!);
    }
    if (objects % SHARE_EVERY === 0) c.share();
  }
  const st = c.id * STATS_WORDS;
  c.stats[st + S_OBJECTS] = objects;
  if (young) {
    const n = live.length;
    if (n > 0) {
      const at = Atomics.add(ctl, OUTCUR, n);
      if (at + n > ctl[P_OUT_CAP]!) throw new Error(`parallel mark: ${at + n} live objects overflow the results (${ctl[P_OUT_CAP]})`);
      c.out.set(live.view(), at);
    }
    c.stats[st + S_OUT] = n;
  }
  c.end();
}
