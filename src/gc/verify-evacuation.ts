/**
 * `--verify-gc` after a device evacuation (device-evacuation.ts): the heap is
 * compared with the evacuation the CPU computes from a snapshot taken before
 * it, under the same policy: each live object in the list's order goes to
 * to-survivor while it is under the tenure age and the eligible words before
 * it plus its own fit, the rest to the promotion buffer in the same order.
 * Checked: every address, every copy word for word (a fresh header with the
 * age plus one, young references redirected, all else unchanged), the
 * forwarding headers left behind, the remembered slots, and the cards of
 * promoted copies and remembered slots that hold young references. The plan's
 * heap walk (verify.ts) follows. Throws HeapVerificationError.
 *
 * The CPU evacuator (evacuate.ts) differs in one choice only: when to-survivor
 * overflows it still places later objects that fit, where the device promotes
 * every eligible object after the first that does not fit (a prefix sum has
 * no first-fit; the policy here is the device's); and it takes tenured space
 * object by object.
 */

import { CARD_DIRTY, CARD_SHIFT } from '../heap/card-table.js';
import type { HeapImpl } from '../heap/heap.js';
import { AGE_MASK, AGE_SHIFT, HEADER_TAG, LAYOUT_WORD, STATUS_FORWARDED, TYPE_WORD } from '../heap/object-model.js';
import { HeapVerificationError } from './verify.js';

export interface EvacuationSnapshot {
  readonly words: Int32Array;
  readonly live: Int32Array;
  readonly runs: Int32Array;
  readonly toStart: number;
  readonly toEnd: number;
  readonly tenureAge: number;
}

/** The heap before a device evacuation, and what it evacuates. */
export function snapshotForEvacuation(h: HeapImpl, live: Int32Array, runs: Int32Array): EvacuationSnapshot {
  return {
    words: h.words.slice(),
    live: live.slice(),
    runs: runs.slice(),
    toStart: h.toStart,
    toEnd: h.toEnd,
    tenureAge: h.tenureAge,
  };
}

function fail(name: string, message: string): never {
  throw new HeapVerificationError(`${name}'s GPU evacuation: ${message}`);
}

export function verifyDeviceEvacuation(
  h: HeapImpl,
  snap: EvacuationSnapshot,
  forward: Int32Array,
  base: number,
  name: string,
): void {
  const old = snap.words;
  const words = h.words;
  const types = h.types;
  const ys = h.youngStart;
  const ye = h.youngEnd;
  const ts = h.tenuredStart;
  const cards = h.cards.cards;
  const live = snap.live;
  const n = live.length;
  if (forward.length !== n) fail(name, `${forward.length} new addresses for ${n} live objects`);
  const moved = new Int32Array(ye - ys);
  // The destinations, as the policy gives them.
  const cap = snap.toEnd - snap.toStart;
  let eligible = 0;
  let promoted = 0;
  for (let i = 0; i < n; i++) {
    const a = live[i]!;
    const t = old[a + TYPE_WORD]!;
    const left = types.left[t]!;
    const size = types.objectWords(old, a);
    const age = (old[a]! >> AGE_SHIFT) & AGE_MASK;
    let expect: number;
    // `eligible` counts every object under the tenure age before this one, those
    // that overflowed included: after the first that does not fit, none does.
    if (age < snap.tenureAge && eligible + size <= cap) {
      expect = snap.toStart + eligible + left;
      eligible += size;
    } else {
      if (age < snap.tenureAge) eligible += size;
      expect = base + promoted + left;
      promoted += size;
    }
    if (forward[i] !== expect) {
      fail(name, `the ${types.names[t]} at ${a} (age ${age}, ${size} words) went to ${forward[i]}, the CPU's evacuation puts it at ${expect} (object ${i} of ${n})`);
    }
    moved[a - ys] = expect;
  }
  const to = (v: number): number => (v >= ys && v < ye ? moved[v - ys]! : v);
  // Under refgraph the layout word names the object's graph vertex, which the
  // evacuation renumbers: the snapshot's old id is not the copy's.
  const layoutWordMoves = h.graph !== null;
  // Which words right of the header hold references, per object (ref-slots.ts).
  let isRef = new Uint8Array(64);
  for (let i = 0; i < n; i++) {
    const a = live[i]!;
    const na = forward[i]!;
    const t = old[a + TYPE_WORD]!;
    const left = types.left[t]!;
    const right = types.rightWords(old, a);
    if (isRef.length < 4 + right) isRef = new Uint8Array(2 * (4 + right));
    isRef.fill(0, 0, 4 + right);
    h.refSlots.forEach(old, a, (s) => {
      isRef[s - a] = 1;
    });
    const promotedCopy = na >= ts;
    const where = (k: number): string => `word ${k} of the ${types.names[t]} copied from ${a} to ${na}`;
    for (let k = -left; k < 4 + right; k++) {
      if (k === LAYOUT_WORD && layoutWordMoves) continue;
      const v = old[a + k]!;
      const ref = k >= 4 && isRef[k] === 1;
      let expect = v;
      if (k === 0) expect = HEADER_TAG | (Math.min(AGE_MASK, ((v >> AGE_SHIFT) & AGE_MASK) + 1) << AGE_SHIFT);
      else if (ref) expect = to(v);
      if (words[na + k] !== expect) fail(name, `${where(k)} holds ${words[na + k]}, expected ${expect}`);
      if (promotedCopy && ref && expect >= ys && expect < ye) {
        if (cards[(na + k - ts) >> CARD_SHIFT] !== CARD_DIRTY) fail(name, `${where(k)} refers to young ${expect} in a clean card`);
      }
    }
    if (words[a] !== (old[a]! | STATUS_FORWARDED) || words[a + 1] !== na) {
      fail(name, `no forwarding header to ${na} at ${a} (found ${words[a]}, ${words[a + 1]})`);
    }
  }
  const r = snap.runs;
  for (let i = 0; i < r.length; i += 2) {
    for (let s = r[i]!; s < r[i]! + r[i + 1]!; s++) {
      const expect = to(old[s]!);
      if (words[s] !== expect) fail(name, `remembered slot ${s} holds ${words[s]}, expected ${expect}`);
      if (expect >= ys && expect < ye && cards[(s - ts) >> CARD_SHIFT] !== CARD_DIRTY) {
        fail(name, `remembered slot ${s} refers to young ${expect} in a clean card`);
      }
    }
  }
}
