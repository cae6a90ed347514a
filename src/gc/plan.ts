/**
 * The generational plan: HotSpot's serial collector's policy with the trace
 * delegated to a `Marker` (gc/marker.ts), so the same plan runs with the serial CPU
 * marker and with the GPU markers.
 *
 * Young collection (eden + from-survivor → to-survivor / tenured):
 *   roots (interpreter slots + young referents in dirty cards) → mark (young) →
 *   evacuate (assign destinations, copy and forward, fix copies) → fix the root slots
 *   and the remembered-set slots → clean the scanned cards, re-dirty those that still
 *   hold old-to-young references → flip the survivor spaces.
 *   If tenured cannot take the promotions, nothing has moved yet: the collection
 *   becomes a full one with cause "promotion failed".
 * Full collection:
 *   roots (interpreter slots) → mark (whole heap) → sweep tenured into the free list
 *   → evacuate the live young objects exactly as a young collection would (aging
 *   them into to-survivor or promoting them by age or overflow), with their
 *   old-to-young slots taken from the dirty cards, which after the sweep hold only
 *   live objects. Young objects thus keep their ages across full collections rather
 *   than being promoted wholesale; if tenured cannot take an object it stays in
 *   survivor regardless of age, and if neither can, the heap is out of memory.
 *
 * Constraints of this plan: moves young objects (copying), never moves tenured ones
 * (mark-sweep), needs the card-marking write barrier.
 */

import { CARD_CLEAN } from '../heap/card-table.js';
import { OutOfMemoryError } from '../heap/api.js';
import type { Collector } from '../heap/collector.js';
import type { HeapImpl } from '../heap/heap.js';
import { emptyPhases, type CollectionKind, type EvacuationRecord, type GcRecord, type PhaseTimes } from '../heap/telemetry.js';
import { abandonDeviceEvacuation, evacuateOnDevice, evacuationMs, fixRememberedSlots, prepareDeviceEvacuation } from './device-evacuation.js';
import { Evacuator } from './evacuate.js';
import { appendSetBits, IntList } from './int-list.js';
import { copierOf, heapCopyOf, MarkerFaultError, sweeperOf, youngEvacuatorOf, type EvacuateAhead, type MarkRequest, type MarkResult, type MarkTimes, type Marker } from './marker.js';
import { dirtyCardRanges, fixRoots, gatherRoots, RememberedRuns, scanRanges, YoungRoots } from './roots.js';
import { sweepTenured } from './sweep.js';
import { verifyHeap, verifyHeapCopy, verifyMarks } from './verify.js';
import { now } from '../heap/clock.js';

export class GenerationalPlan implements Collector {
  readonly collects = true;
  /** A full collection's roots. */
  private readonly roots = new IntList();
  /** A young collection's roots, each once. */
  private readonly youngRoots = new YoungRoots();
  private readonly dirtyCards = new IntList();
  private readonly remembered = new RememberedRuns();
  /** The dirty cards' slot ranges, and (refgraph) each range's object. */
  private readonly cardRanges = new IntList();
  private readonly rangeObjects = new IntList();
  private readonly youngLive = new IntList();
  private readonly evacuator: Evacuator;
  private markTimes: MarkTimes = { mark: 0 };
  /** What the last evacuation moved: objects, words to survivor, words promoted. */
  private moved = { count: 0, survivedWords: 0, promotedWords: 0 };
  /** Where the last collection evacuated, for a marker that can on its device. */
  private evacuation: EvacuationRecord | undefined;

  constructor(
    readonly heap: HeapImpl,
    readonly marker: Marker,
    /** The collector's name in logs; the marker's name by default. */
    readonly name: string = marker.name,
  ) {
    this.evacuator = new Evacuator(heap);
  }

  async collect(kind: CollectionKind, cause: string, startedAt?: number): Promise<CollectionKind> {
    const h = this.heap;
    const usedBefore = h.usedBytes();
    const t0 = startedAt ?? now();
    // A marker that replays the moves on its copy needs the copy's eden as it is
    // before the evacuation writes forwarding headers into it: the uploads ahead
    // land first. Otherwise the copy takes eden again after the collection.
    if (this.marker.constraints.replaysEvacuation) await h.landUploads();
    const phases = emptyPhases();
    let done = kind;
    const evacuator = youngEvacuatorOf(this.marker);
    this.evacuation = evacuator ? { where: 'cpu', reason: 'full collection' } : undefined;
    // The collection that finds the heap exhausted is logged and counted like any
    // other before the error goes on to the program; it changed nothing young.
    let exhausted: OutOfMemoryError | null = null;
    try {
      if (kind === 'young' && !(await this.young(phases))) {
        done = 'full';
        cause = 'promotion failed';
      }
      if (done === 'full') await this.full(phases);
    } catch (e) {
      if (!(e instanceof OutOfMemoryError)) throw e;
      exhausted = e;
      cause += ', out of memory';
    }
    const moved = this.moved;
    const pauseMs = now() - t0 - phases.verify;
    const record: GcRecord = {
      number: h.nextCollectionNumber(),
      kind: done,
      cause,
      collector: this.name,
      usedBefore,
      usedAfter: h.usedBytes(),
      capacity: h.capacityBytes(),
      pauseMs,
      phases,
      marker: this.markTimes,
      liveYoungObjects: moved.count,
      survivedBytes: moved.survivedWords * 4,
      promotedBytes: moved.promotedWords * 4,
      ...(this.evacuation ? { evacuation: this.evacuation } : {}),
    };
    if (h.options.verifyGc) {
      const tv = now();
      try {
        verifyHeap(h);
        const copy = heapCopyOf(this.marker);
        if (copy !== null) await copy.verifyCopy((words) => verifyHeapCopy(h, words, copy.name));
      } finally {
        // Logged even when verification fails, so the log shows the collection at fault.
        phases.verify += now() - tv;
        h.recordCollection(record);
      }
    } else {
      h.recordCollection(record);
    }
    if (exhausted !== null) throw exhausted;
    return done;
  }

  dispose(): void {
    this.marker.dispose();
  }

  private async runMarker(kind: CollectionKind, roots: Int32Array, phases: PhaseTimes, evacuate?: EvacuateAhead): Promise<MarkResult> {
    const h = this.heap;
    const t = now();
    const request: MarkRequest = {
      roots,
      kind,
      youngStart: h.youngStart,
      youngEnd: h.youngEnd,
      ...(evacuate ? { evacuate } : {}),
    };
    let result = await this.marker.mark(request);
    if (h.options.verifyGc && result.liveReady !== undefined) {
      // The check reads the whole list; a device gone with it leaves the marker fallen back.
      try {
        result.liveReady(result.live!.length);
      } catch (e) {
        if (!(e instanceof MarkerFaultError)) throw e;
        result = await this.marker.mark(request);
      }
    }
    phases.mark += now() - t;
    this.markTimes = result.times;
    if (h.options.verifyGc) {
      // Every marker's result is checked against an independent traversal.
      const tv = now();
      verifyMarks(h, request, result, this.marker.name);
      phases.verify += now() - tv;
    }
    return result;
  }

  /**
   * The remembered set: the CPU walks the dirty cards' objects into slot ranges,
   * then a marker that keeps a copy of the heap may read the slots itself (a GPU
   * marker reads them from its mirror); otherwise, or when it declines, the CPU
   * does. `roots` (young collections) takes the young referents, each once.
   * Returns the part of the marker's call spent bringing its copy up to date for
   * the mark that follows (0 when the CPU scanned).
   */
  private async scanRemembered(roots: YoungRoots | null): Promise<number> {
    const h = this.heap;
    const m = heapCopyOf(this.marker);
    // The reference graphs' rebuild needs each run's object: the CPU's walk of
    // the cards lists each range's, and a marker's runs are matched to ranges.
    const withObjects = h.graph !== null;
    this.dirtyCards.clear();
    this.remembered.clear();
    this.cardRanges.clear();
    this.rangeObjects.clear();
    dirtyCardRanges(h, this.dirtyCards, this.cardRanges, withObjects ? this.rangeObjects : null);
    const r = this.cardRanges.view();
    if (m !== null && m.constraints.scansRememberedSet) {
      // A full collection's scan, after its mark, needs only the runs.
      const found = await m.scanRememberedSet(r, h.youngStart, h.youngEnd, roots !== null);
      if (found !== null) {
        if (roots !== null) for (let i = 0; i < found.roots.length; i++) roots.push(found.roots[i]!);
        if (withObjects) this.remembered.setRunsIn(found.runs, r, this.rangeObjects.view());
        else this.remembered.setRuns(found.runs);
        return found.syncMs;
      }
      // Too small to be worth the device, or more than its lists hold.
    }
    scanRanges(h, r, withObjects ? this.rangeObjects.view() : null, this.remembered, roots);
    return 0;
  }

  /** Returns false, having changed nothing, when the promotions would not fit. */
  private async young(phases: PhaseTimes): Promise<boolean> {
    if (await this.copyYoung(phases, false)) return true;
    const h = this.heap;
    let t = now();
    const roots = this.youngRoots;
    roots.begin(h.youngStart, h.youngEnd);
    gatherRoots(h, true, roots);
    // A marker that scans the remembered set first brings its heap copy up to
    // date for the mark: that part is the mark's.
    const syncMs = await this.scanRemembered(roots);
    const rootList = roots.end();
    phases.roots += now() - t - syncMs;
    phases.mark += syncMs;

    // A marker that evacuates on its device may do so with the mark, given the
    // evacuation's arguments now (not under --verify-gc, whose snapshot of the
    // heap comes between them: docs/decisions/s62-04).
    const early = youngEvacuatorOf(this.marker) !== null && !h.options.verifyGc ? prepareDeviceEvacuation(h, this.evacuator, this.remembered) : null;
    let result = await this.runMarker('young', rootList, phases, early ?? undefined);
    let live = result.live ?? this.liveFromBitmap(result.bitmap);
    // The device's evacuation done in the mark's call is the copy phase's.
    const withMark = result.evacuation?.ok === true ? evacuationMs(result.evacuation) : 0;
    phases.mark -= withMark;
    phases.copy += withMark;

    t = now();
    const device = youngEvacuatorOf(this.marker);
    // The marker evacuated on its device when the collection began, and has fallen back since.
    if (device === null && this.evacuation !== undefined) this.evacuation = { where: 'cpu', reason: 'the GPU marker fell back to the CPU' };
    if (device === null && early !== null) abandonDeviceEvacuation(h, early);
    if (device !== null) {
      const made = early && { args: early, assignment: result.evacuation };
      const e = await evacuateOnDevice(h, device, live, result.liveReady, this.evacuator, this.dirtyCards, this.remembered, phases, made);
      this.evacuation = e;
      if (e.where === 'gpu') {
        const ev = this.evacuator;
        this.moved = { count: live.length, survivedWords: ev.survivedWords, promotedWords: ev.promotedWords };
        phases.copy += now() - t - phases.graph;
        return true;
      }
    }
    let assigned: boolean;
    try {
      assigned = this.evacuator.assign(live, false, result.liveReady);
    } catch (e) {
      // The device went with the live list before this thread had it (the list's
      // first wait, before anything moved): the marker has fallen back, so mark again.
      if (!(e instanceof MarkerFaultError)) throw e;
      result = await this.runMarker('young', rootList, phases);
      live = result.live ?? this.liveFromBitmap(result.bitmap);
      assigned = this.evacuator.assign(live, false, result.liveReady);
    }
    if (!assigned) {
      phases.copy += now() - t;
      return false;
    }
    // A marker that replays the evacuation on its heap copy is handed the moves;
    // the heap does not record them as written words.
    await this.finishEvacuation(live, phases);
    phases.copy += now() - t - phases.graph - phases.sync;
    return true;
  }

  private async full(phases: PhaseTimes): Promise<void> {
    const h = this.heap;
    let t = now();
    this.roots.clear();
    gatherRoots(h, false, this.roots);
    phases.roots += now() - t;

    const result = await this.runMarker('full', this.roots.view(), phases);

    t = now();
    const graph = h.graph;
    if (graph !== null) {
      // The sweep meets the live tenured objects in address order: their vertices
      // move into a compacted tenured graph as it goes.
      graph.beginTenuredCompaction();
      sweepTenured(h, result.bitmap, (a) => graph.keepTenured(a));
      const tg = now();
      graph.endTenuredCompaction();
      phases.graph += now() - tg;
    } else if (sweeperOf(this.marker)?.sweep(result.bitmap) !== true) {
      sweepTenured(h, result.bitmap);
    }
    phases.sweep += now() - t;

    // After the sweep the dirty cards hold live objects only: their young slots
    // are the remaining old-to-young references to fix.
    if (await this.copyYoung(phases, true)) return;
    t = now();
    await this.scanRemembered(null);
    phases.roots += now() - t;

    t = now();
    let live = this.liveFromBitmap(result.bitmap);
    if (!this.evacuator.assign(live, true)) {
      live = this.evacuator.largestFirst(live);
      if (!this.evacuator.assign(live, true)) throw h.outOfMemory();
    }
    const graphBefore = phases.graph;
    const syncBefore = phases.sync;
    await this.finishEvacuation(live, phases);
    phases.copy += now() - t - (phases.graph - graphBefore) - (phases.sync - syncBefore);
  }

  /** Cleans the cards `dirtyCards` lists (the remembered set's walk found them). */
  private cleanDirtyCards(): void {
    const cards = this.heap.cards.cards;
    const dc = this.dirtyCards.data;
    for (let i = 0; i < this.dirtyCards.length; i++) cards[dc[i]!] = CARD_CLEAN;
  }

  /** Copies, forwards and fixes every reference to the moved objects; a marker
   *  that replays evacuations is asked to make the same moves on its heap copy. */
  private async finishEvacuation(live: Int32Array, phases: PhaseTimes): Promise<void> {
    const h = this.heap;
    const replayer = this.marker.constraints.replaysEvacuation ? heapCopyOf(this.marker) : null;
    const replay = replayer !== null;
    const ev = this.evacuator;
    // Clean the scanned cards first: copying re-dirties the cards of promoted copies
    // that refer to survivors, and fixing the remembered slots those still holding
    // old-to-young references.
    this.cleanDirtyCards();
    // Without a replaying marker, the mirror (if any) learns of the moves as writes.
    const log = replay ? null : h.mirror;
    ev.copy(live, log);
    // Every remembered slot held a young reference when the cards were scanned, and
    // nothing has written them since: each is redirected to its referent's copy,
    // and its card stays dirty if that copy is young. A replaying marker redirects
    // the runs in its copy itself; otherwise they are recorded as written words.
    const r = this.remembered.runs.view();
    fixRememberedSlots(h, r);
    if (log !== null) for (let i = 0; i < r.length; i += 2) log.noteWrite(r[i]!, r[i]! + r[i + 1]!);
    fixRoots(h);
    if (h.graph !== null) {
      const tg = now();
      h.graph.rebuildAfterEvacuation(ev.forward.data, ev.forward.length, r, this.remembered.objects.data);
      phases.graph += now() - tg;
    }
    if (replay) {
      const ts = now();
      await replayer.replayEvacuation(live, ev.forward.view(), r);
      phases.sync += now() - ts;
    }
    h.flipSurvivors(ev.toTop, replay);
    this.moved = { count: ev.forward.length, survivedWords: ev.survivedWords, promotedWords: ev.promotedWords };
  }

  /**
   * Young objects copied by the marker's copier (`CopyingMarker.copier`, the parallel
   * collector's threads) instead of marked and evacuated: the roots and the
   * dirty cards go to the copier, which copies, forwards and redirects the
   * remembered slots; then the root slots are fixed and, under refgraph, the
   * graph rebuilt (every range's slots count as remembered). Under sable the
   * copier's threads find, clean and walk the dirty cards themselves; the
   * graph's rebuild needs each remembered slot's object, so under refgraph the
   * main thread walks the cards into slot ranges (dirtyCardRanges) first.
   * False, having changed nothing, when the copier cannot reserve the space.
   */
  private async copyYoung(phases: PhaseTimes, fullCollection: boolean): Promise<boolean> {
    const copier = copierOf(this.marker);
    if (copier === null) return false;
    await copier.start();
    if (!copier.reserve()) return false;
    const h = this.heap;
    let t = now();
    const roots = this.youngRoots;
    roots.begin(h.youngStart, h.youngEnd);
    gatherRoots(h, true, roots);
    const rootList = roots.end();
    this.dirtyCards.clear();
    this.cardRanges.clear();
    this.rangeObjects.clear();
    const byCards = h.layout.contiguousRefs;
    if (!byCards) {
      dirtyCardRanges(h, this.dirtyCards, this.cardRanges, this.rangeObjects);
      this.cleanDirtyCards();
    }
    phases.roots += now() - t;
    t = now();
    const graphBefore = phases.graph;
    const ranges = this.cardRanges.view();
    const r = copier.copy(rootList, byCards ? null : ranges);
    const log = h.mirror;
    if (log !== null) {
      // The remembered slots were rewritten: the dirty cards' words, or the ranges.
      // A run of neighbouring cards is one range: a large remembered set lists
      // a card for every one its arrays span.
      const ct = h.cards;
      const cs = r.cards;
      for (let i = 0; i < cs.length; ) {
        const first = cs[i]!;
        let next = first + 1;
        for (i++; i < cs.length && cs[i] === next; i++) next++;
        log.noteWrite(ct.cardStart(first), Math.min(ct.cardStart(next), h.tenuredEnd));
      }
      for (let i = 0; i < ranges.length; i += 2) log.noteWrite(ranges[i]!, ranges[i + 1]!);
    }
    fixRoots(h);
    if (h.graph !== null) {
      const tg = now();
      // The ranges as (first slot, count) runs of their objects.
      const runs = this.remembered.runs;
      runs.clear();
      for (let i = 0; i < ranges.length; i += 2) {
        runs.push(ranges[i]!);
        runs.push(ranges[i + 1]! - ranges[i]!);
      }
      h.graph.rebuildAfterEvacuation(r.moved, r.moved.length, runs.view(), this.rangeObjects.view());
      phases.graph += now() - tg;
    }
    h.flipSurvivors(r.toTop);
    phases.copy += now() - t - (phases.graph - graphBefore);
    // One field of per-thread work: the copy's (a full collection's mark has its own).
    this.markTimes = fullCollection ? { ...this.markTimes, threads: r.threads } : { mark: 0, threads: r.threads };
    this.moved = { count: r.count, survivedWords: r.survivedWords, promotedWords: r.promotedWords };
    return true;
  }

  /** The live young objects of a full mark (or of a marker that gives no list). */
  private liveFromBitmap(bitmap: Uint32Array): Int32Array {
    const h = this.heap;
    const out = this.youngLive;
    out.clear();
    const ranges = h.youngRanges();
    for (let r = 0; r < 4; r += 2) appendSetBits(out, bitmap, ranges[r]!, ranges[r + 1]!);
    return out.view();
  }
}
