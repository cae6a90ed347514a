/**
 * A young collection's evacuation done by a marker on its device
 * (`constraints.evacuatesYoung`: gpu-dfs and gpu-bfs with `--gpu-opt evacuate=gpu`,
 * gpu/evacuate/device.ts), and what the CPU keeps of it:
 *
 *   the device assigns each live object's destination (to-survivor by prefix
 *   sum, the rest into one promotion buffer) and says how many words each
 *   side takes → the CPU carves the promotion buffer from the free list (no
 *   room: the CPU evacuates this collection instead, nothing having moved;
 *   promotions that fit a buffer carved ahead skip this step and its second
 *   request to the device) → the device copies, forwards and fixes in its
 *   mirror and writes the moved words and the new addresses into the heap,
 *   with the remembered slots it redirected (and the old objects' forwarding
 *   headers where the CPU needs them) → the CPU cleans the scanned cards,
 *   dirties the cards the device found, redirects the roots (through the new
 *   addresses of the roots' referents, the only ones the device hands back,
 *   having found them in its live list in address order, or through the
 *   forwarding headers), takes the reference graphs the device rebuilt
 *   (refgraph), and flips the survivor spaces.
 *
 * With `--verify-gc` the result is compared with the same evacuation computed
 * on the CPU from a snapshot of the heap taken before it (verify-evacuation.ts).
 */

import { CARD_CLEAN, CARD_DIRTY, CARD_SHIFT } from '../heap/card-table.js';
import type { HeapImpl } from '../heap/heap.js';
import type { EvacuationRecord, PhaseTimes } from '../heap/telemetry.js';
import { FORWARD_WORD, STATUS_FORWARDED } from '../heap/object-model.js';
import type { Evacuator } from './evacuate.js';
import { IntList } from './int-list.js';
import { MarkerFaultError, type DeviceAssignment, type DeviceEvacuated, type EvacuateAhead, type EvacuationTimes, type YoungEvacuatingMarker } from './marker.js';
import { fixRoots, fixRootsFromReferents, rootReferents, type RememberedRuns } from './roots.js';
import { snapshotForEvacuation, verifyDeviceEvacuation } from './verify-evacuation.js';
import { now } from '../heap/clock.js';

/** The roots' young referents (rootReferents): one list for the process, as
 *  collections never overlap. */
const referents = new IntList();
/** Refgraph: each remembered run's first tenured edge (RefGraph.rememberedEdgeStarts). */
const edgeStarts = new IntList();

/** Words of tenured space carved ahead of a device evacuation for its promotions,
 *  from the last young collection's (`last` words): a quarter more, so that a
 *  collection that promotes a little more still finishes in one request. */
function promotionReserve(last: number): number {
  return last > 0 ? last + (last >> 2) + 64 : 0;
}

/**
 * Redirects the remembered slots (runs of (first slot, count)) through the
 * forwarding headers; a slot whose referent stays young keeps its card dirty.
 * Every such slot held a young reference when the cards were scanned, and
 * nothing has written them since.
 */
export function fixRememberedSlots(h: HeapImpl, runs: Int32Array): void {
  const words = h.words;
  const cards = h.cards.cards;
  const ys = h.youngStart;
  const ye = h.youngEnd;
  const base = h.tenuredStart;
  for (let i = 0; i < runs.length; i += 2) {
    const s0 = runs[i]!;
    const s1 = s0 + runs[i + 1]!;
    for (let s = s0; s < s1; s++) {
      const v = words[s]!;
      const nv = (words[v]! & STATUS_FORWARDED) !== 0 ? words[v + FORWARD_WORD]! : v;
      words[s] = nv;
      if (nv >= ys && nv < ye) cards[(s - base) >> CARD_SHIFT] = CARD_DIRTY;
    }
  }
}

/**
 * What a device evacuation takes from the CPU before it starts: the spaces, the
 * remembered runs, the roots' referents, and a promotion buffer carved ahead from
 * the last collection's promotions, so that the device may finish in the request
 * that assigns, or in the mark's (docs/decisions/s62-02, s62-04). `evacuateOnDevice`
 * gives the buffer back, or `abandonDeviceEvacuation` when the device did not evacuate.
 */
export function prepareDeviceEvacuation(h: HeapImpl, ev: Evacuator, remembered: RememberedRuns): EvacuateAhead {
  const spaces = { toStart: h.toStart, toEnd: h.toEnd, tenureAge: h.tenureAge, tenuredStart: h.tenuredStart };
  const runs = remembered.runs.view();
  // Refgraph: where the device may write the remembered runs' new edges itself.
  const starts = h.graph !== null && runs.length > 0 ? h.graph.rememberedEdgeStarts(runs, remembered.objects.data, edgeStarts.reserve(runs.length >>> 1)) : null;
  // --verify-gc checks the forwarding headers; without it the device may leave them out.
  const headers = h.options.verifyGc === true;
  // Refgraph's live list is in mark order, where a search for the roots'
  // referents misses: every new address comes back, with forwarding headers.
  const every = headers || h.graph !== null;
  const picks = every ? null : rootReferents(h, referents);
  const want = promotionReserve(ev.promotedWords);
  const base = want > 0 ? h.allocTenured(want) : 0;
  return { spaces, ahead: { base, reserve: base === 0 ? 0 : want, slotRuns: runs, headers, referents: picks, edgeStarts: starts } };
}

/** The host milliseconds of a device's assignment, and of its evacuation when it finished. */
export function evacuationMs(a: { readonly ms: number; readonly finished?: { readonly times: EvacuationTimes } }): number {
  const t = a.finished?.times;
  return a.ms + (t ? t.copy + t.readback + t.write : 0);
}

/** Gives back the promotion buffer `prepareDeviceEvacuation` carved, for a collection the device did not evacuate. */
export function abandonDeviceEvacuation(h: HeapImpl, e: EvacuateAhead): void {
  if (e.ahead.reserve > 0) h.giveBackTenured(e.ahead.base, e.ahead.reserve);
}

/**
 * Evacuates the young mark's `live` on the marker's device. Returns the
 * record of where it ran: `where: 'cpu'` with the reason when the device
 * declined or the promotions found no room, having changed nothing (the plan
 * then evacuates on the CPU). `early`: the arguments prepared before the mark
 * and what the marker did with them there (`MarkResult.evacuation`, absent when
 * it did nothing).
 */
export async function evacuateOnDevice(
  h: HeapImpl,
  marker: YoungEvacuatingMarker,
  live: Int32Array,
  liveReady: ((count: number) => void) | undefined,
  ev: Evacuator,
  dirtyCards: IntList,
  remembered: RememberedRuns,
  phases: PhaseTimes,
  early: { readonly args: EvacuateAhead; readonly assignment: DeviceAssignment | undefined } | null = null,
): Promise<EvacuationRecord> {
  let tv = now();
  const snapshot = h.options.verifyGc ? (liveReady?.(live.length), snapshotForEvacuation(h, live, remembered.runs.view())) : null;
  phases.verify += now() - tv;
  const { spaces, ahead } = early?.args ?? prepareDeviceEvacuation(h, ev, remembered);
  const { base: reserveBase, reserve, slotRuns: runs, headers, referents: picks, edgeStarts: starts } = ahead;
  let a: DeviceAssignment;
  try {
    a = early?.assignment ?? (await marker.assignYoung(live, spaces, ahead));
  } catch (e) {
    if (reserve > 0) h.giveBackTenured(reserveBase, reserve);
    throw e;
  }
  if ((!a.ok || a.finished === undefined) && reserve > 0) h.giveBackTenured(reserveBase, reserve);
  if (!a.ok) return { where: 'cpu', reason: a.reason };
  const promoted = a.promotedWords;
  let base: number;
  let done: DeviceEvacuated;
  if (a.finished !== undefined) {
    done = a.finished;
    base = reserveBase;
    if (reserve > promoted) h.giveBackTenured(reserveBase + promoted, reserve - promoted);
  } else {
    base = promoted > 0 ? h.allocTenured(promoted) : 0;
    if (promoted > 0 && base === 0) {
      return { where: 'cpu', reason: `no free chunk of ${promoted * 4} bytes for the promotions` };
    }
    try {
      done = await marker.finishYoung(base, runs, headers, picks, starts);
    } catch (e) {
      if (!(e instanceof MarkerFaultError)) throw e;
      // The device failed before writing the heap: undo the carving, and the
      // CPU evacuates from the heap as the mark left it.
      if (promoted > 0) h.giveBackTenured(base, promoted);
      return { where: 'cpu', reason: `the GPU failed: ${e.fault}` };
    }
  }
  // The scanned cards are clean now: the promoted copies and the remembered
  // slots that still hold young references dirty theirs again below.
  const cards = h.cards.cards;
  const dc = dirtyCards.data;
  for (let i = 0; i < dirtyCards.length; i++) cards[dc[i]!] = CARD_CLEAN;
  const tf = now();
  const bits = done.cardBits;
  for (let w = 0; w < bits.length; w++) {
    let b = bits[w]!;
    while (b !== 0) {
      const low = b & -b;
      cards[done.cardFirst + w * 32 + (31 - Math.clz32(low))] = CARD_DIRTY;
      b ^= low;
    }
  }
  ev.survivedWords = a.survivedWords;
  ev.promotedWords = promoted;
  ev.toTop = h.toStart + a.survivedWords;
  // The device redirected the same slots in its copy, and in the heap's words when it says so.
  if (!done.slotsWritten && runs.length > 0) {
    if (!done.headersWritten) throw new Error(`${marker.name}: left the remembered slots to the CPU without forwarding headers`);
    fixRememberedSlots(h, runs);
  }
  if (done.headersWritten) fixRoots(h);
  else if (done.picked) fixRootsFromReferents(h, referents.view(), done.forward);
  else throw new Error(`${marker.name}: left the roots to the CPU without forwarding headers or their new addresses`);
  const fixMs = now() - tf;
  if (snapshot !== null) {
    tv = now();
    try {
      // --verify-gc asked for the headers, so every new address came back (nothing picked).
      verifyDeviceEvacuation(h, snapshot, done.forward.subarray(0, live.length), base, marker.name);
    } finally {
      phases.verify += now() - tv;
    }
  }
  if (h.graph !== null) {
    const tg = now();
    // The device rebuilt the moved objects' vertices and edges into the graph
    // arrays; the remembered set's edges are the CPU's, as after its own evacuation.
    if (!done.graph) throw new Error(`${marker.name}: a device evacuation under refgraph without the rebuilt graphs`);
    h.graph.adoptRebuild(done.graph, runs, remembered.objects.data, done.rememberedEdges, starts);
    phases.graph += now() - tg;
  }
  h.flipSurvivors(ev.toTop, true);
  const t = done.times;
  return {
    where: 'gpu',
    assignMs: a.ms,
    copyMs: t.copy,
    readbackMs: t.readback,
    readbackBytes: t.readbackBytes,
    writeMs: t.write,
    writers: t.writers,
    writeWaitMs: t.writeWait,
    writeOwnShare: t.writeOwn,
    fixMs,
    slots: runs.length === 0 ? 'none' : done.slotsWritten ? 'gpu' : 'cpu',
    // The assignment's own request, unless it went with the mark, and the finish's, unless it went with the assignment.
    requests: ((early?.assignment !== undefined ? 0 : 1) + (a.finished !== undefined ? 0 : 1)) as 0 | 1 | 2,
  };
}
