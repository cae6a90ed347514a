/**
 * The change log a copy of the heap kept elsewhere (a GPU marker's mirror) reads
 * to catch up: which words changed since it last looked. It sits beside the card
 * table, which serves the heap's own young collections; a heap gets one only when
 * a collector that keeps a copy asks for it (`HeapImpl.attachMirrorLog`), so a
 * heap without one pays nothing in its write barrier.
 *
 * It records
 *  - mirror cards: cards of 128 words over the whole heap but eden's part above
 *    `edenMirrored`, written since the last `takeDirtyRanges`: reference and
 *    scalar stores into survivors and tenured, and into eden objects the copy
 *    already has;
 *    tenured allocation, promotion and remembered-slot fix-ups. Unlike the card
 *    table, which keeps old-to-young stores only and is cleaned by collections;
 *  - a summary byte per 2^6 mirror cards, so that a collection after few writes
 *    scans the summary, not every card;
 *  - the tenured blocks where objects were ever allocated (`objectRanges`), so
 *    that a marker reads back only those words' mark bits;
 *  - how far the copy has eden (`edenMirrored`) and whether it has the occupied
 *    survivor space, and the optional uploads of eden ahead of the collection.
 */

import { CARD_SHIFT, nextSetByte } from './card-table.js';

/** A byte of the summary covers 2^6 mirror cards. */
const SUMMARY_SHIFT = 6;
/** Tenured blocks of `objectRanges` are 2^15 words. */
const OBJECT_BLOCK_SHIFT = 15;

/** Where eden goes ahead of the collection (`MirrorLog.setEdenUpload`). */
export interface EdenUpload {
  /** Whether the copy can take uploads yet (a GPU device still starting cannot):
   *  while not, eden grows on and the next try comes a step later. */
  ready(): boolean;
  /** Starts copying heap words [start, end) to the copy; the program runs on
   *  meanwhile. The copy reads the words whenever it gets to them: a store made
   *  meanwhile marks a mirror card (`noteStore`), which the next
   *  `takeDirtyRanges` hands over again, so either value it reads is put right.
   *  `room`: how far eden will have gone two uploads on, at most its end, for the
   *  copy to make room that far ahead: the last upload before a collection then
   *  finds the room made, and makes none while the collection runs. */
  start(start: number, end: number, room: number): Promise<void>;
  /** Blocks until the copy has taken every range started: the ms it blocked. */
  land(): number;
}

/** No copy takes eden ahead (the default, and after a GPU marker fell back). */
export const NO_EDEN_UPLOAD: EdenUpload = { ready: () => true, start: () => Promise.resolve(), land: () => 0 };

/** The heap's spaces as the log reads them (heap.ts's HeapImpl). */
export interface LoggedSpaces {
  readonly edenStart: number;
  readonly edenEnd: number;
  readonly edenTop: number;
  readonly fromStart: number;
  readonly fromTop: number;
  readonly tenuredStart: number;
  readonly tenuredEnd: number;
}

/** A byte per 2^shift words of a `words`-long range, a multiple of 8 bytes long
 *  (`nextSetByte` reads it eight bytes at a time). */
function byteMap(words: number, shift: number): Uint8Array {
  return new Uint8Array(((words >>> shift) + 8) & ~7);
}

/** Sets the bytes of `map` (one per 2^shift words from `base`) covering [start, end). */
function markRange(map: Uint8Array, base: number, shift: number, start: number, end: number): void {
  const first = (start - base) >>> shift;
  const last = (end - 1 - base) >>> shift;
  if (first === last) map[first] = 1;
  else map.fill(1, first, last + 1);
}

/** The bytes of `map`, eight at a time (its length is a multiple of 8, see `byteMap`). */
function words64(map: Uint8Array): Float64Array {
  return new Float64Array(map.buffer, map.byteOffset, map.length >>> 3);
}

/** Appends the word ranges of the runs of set bytes of `map` in [from, to) to `out`
 *  (clipped at `limit`), clearing them when `clear`; a run that starts where the
 *  last range ends extends it. */
function pushRuns(
  map: Uint8Array,
  base: number,
  shift: number,
  limit: number,
  out: number[],
  from = 0,
  to = map.length,
  clear = false,
  map64 = words64(map),
): void {
  for (let pos = nextSetByte(map, map64, from, to); pos < to; pos = nextSetByte(map, map64, pos, to)) {
    const s = pos;
    while (pos < to && map[pos] !== 0) {
      if (clear) map[pos] = 0;
      pos++;
    }
    const a = base + (s << shift);
    const b = Math.min(limit, base + (pos << shift));
    if (out.length > 0 && out[out.length - 1] === a) out[out.length - 1] = b;
    else out.push(a, b);
  }
}

export class MirrorLog {
  private readonly cards: Uint8Array;
  private readonly summary: Uint8Array;
  private readonly tenuredBlocks: Uint8Array;
  /** The first word of the mirror cards (eden's start). */
  private readonly base: number;
  private readonly edenEnd: number;
  /** Eden words below this are in the copy as allocated (`takeDirtyRanges` or an
   *  upload ahead handed them over); later reference stores into them mark
   *  mirror cards. Eden's start after a collection. */
  private edenMirrored: number;
  /** The occupied survivor space is in the copy as it is now: set when a
   *  `takeDirtyRanges` hands it over or a collection's evacuation was replayed on
   *  the copy (`afterEvacuation(true)`); cleared by other evacuations. */
  private survivorsMirrored = false;
  /** Uploads ahead (`setEdenUpload`): where they go, and how far past `edenMirrored`
   *  eden may grow before an allocation starts one (Infinity: never). */
  private edenUpload: EdenUpload = NO_EDEN_UPLOAD;
  private edenUploadWords = Infinity;
  /** Eden's top when the upload was last not ready (`EdenUpload.ready`): the next
   *  try comes a step past it (0: since the last upload, or the last collection). */
  private declinedAt = 0;
  /** The uploads ahead started since the heap last landed them (`landUploads`). */
  private uploading: Promise<void> | null = null;
  /** How long the program waited for uploads ahead since the last `takeAheadWaitMs`, ms. */
  private aheadBlockedMs = 0;

  constructor(private readonly spaces: LoggedSpaces) {
    this.base = spaces.edenStart;
    this.edenEnd = spaces.edenEnd;
    this.edenMirrored = spaces.edenStart;
    this.cards = byteMap(spaces.tenuredEnd - this.base, CARD_SHIFT);
    this.summary = byteMap(spaces.tenuredEnd - this.base, CARD_SHIFT + SUMMARY_SHIFT);
    this.tenuredBlocks = byteMap(spaces.tenuredEnd - spaces.tenuredStart, OBJECT_BLOCK_SHIFT);
  }

  /** The write barrier's one call: a reference was stored into `slot` of the
   *  object at `obj`. Stores into eden the copy does not have yet need no note. */
  noteStore(obj: number, slot: number): void {
    if (obj >= this.edenEnd || slot < this.edenMirrored) {
      const card = (slot - this.base) >> CARD_SHIFT;
      this.cards[card] = 1;
      this.summary[card >> SUMMARY_SHIFT] = 1;
    }
  }

  /** A scalar field or element stored at `slot`. The copy holds scalars as well
   *  (a GPU evacuation moves them), so a store into words it already has is
   *  logged as a reference store is; an object's slots all lie in its space. */
  noteScalar(slot: number): void {
    this.noteStore(slot, slot);
  }

  /** Records that words [start, end) outside eden changed (see `takeDirtyRanges`). */
  noteWrite(start: number, end: number): void {
    // An empty range (a remembered-set run with no young slot) wrote nothing.
    if (end <= start) return;
    markRange(this.cards, this.base, CARD_SHIFT, start, end);
    markRange(this.summary, this.base, CARD_SHIFT + SUMMARY_SHIFT, start, end);
  }

  /** Records that an object now lies in tenured words [start, end). */
  noteTenuredObject(start: number, end: number): void {
    markRange(this.tenuredBlocks, this.spaces.tenuredStart, OBJECT_BLOCK_SHIFT, start, end);
  }

  /**
   * Word ranges ([start, end) pairs, sorted) outside which no object lies: the
   * occupied young spaces and the tenured blocks where anything was ever
   * allocated. A GPU marker reads back only these words' mark bits.
   */
  objectRanges(): number[] {
    const s = this.spaces;
    const out = [s.edenStart, s.edenTop, s.fromStart, s.fromTop];
    pushRuns(this.tenuredBlocks, s.tenuredStart, OBJECT_BLOCK_SHIFT, s.tenuredEnd, out);
    return out;
  }

  /**
   * Uploads ahead of the collection: each time eden grows by `stepWords` past
   * what the copy has, the allocation hands `upload` the eden words allocated
   * since (complete objects; stores into them later mark mirror cards) and goes
   * on, while the copy takes them. The collection's own upload is then only the
   * eden allocated since the last step, plus the cards: the copy moves from the
   * pause into the program's time, on the copy's own thread.
   */
  setEdenUpload(stepWords: number, upload: EdenUpload): void {
    this.edenUpload = upload;
    this.edenUploadWords = Math.max(1, Math.floor(stepWords));
  }

  /** Where an allocation from eden's top makes the next upload ahead due (`uploadDue`). */
  nextUploadEnd(): number {
    return Math.max(this.edenMirrored, this.declinedAt) + this.edenUploadWords;
  }

  /** Allocation of eden words [start, end): true when an upload ahead
   *  (`uploadEden`) should start first. */
  uploadDue(start: number, end: number): boolean {
    return end > this.nextUploadEnd() && start > this.edenMirrored;
  }

  /** Starts handing eden from what the copy has up to `edenTop` to the upload
   *  ahead; the program goes on. One upload is under way at a time: a program that
   *  allocates faster than the copy takes eden waits here for the last one. A
   *  collection need not wait for it: the copy's own requests queue behind it,
   *  and a CPU evacuation that the copy does not replay leaves the copy's eden to
   *  be taken again; a collection whose moves it replays lands it first
   *  (`landUploads`). */
  uploadEden(edenTop: number): void {
    if (!this.edenUpload.ready()) {
      this.declinedAt = edenTop;
      return;
    }
    this.declinedAt = 0;
    if (this.uploading !== null) this.aheadBlockedMs += this.edenUpload.land();
    const start = this.edenMirrored;
    this.edenMirrored = edenTop;
    const started = this.edenUpload.start(start, edenTop, Math.min(this.edenEnd, edenTop + 2 * this.edenUploadWords));
    const all = this.uploading === null ? started : Promise.all([this.uploading, started]).then(() => undefined);
    // Its failure is met where the heap lands the uploads (`landUploads`).
    all.catch(() => undefined);
    this.uploading = all;
  }

  /** Before a collection whose moves the copy replays (the copy relies on the
   *  uploads, and the evacuation writes eden), or at the heap's end: blocks until the copy has
   *  every upload ahead started, and gives the ms that took with the uploads'
   *  outcome to await; null when none was started since the last call. */
  landUploads(): { blockedMs: number; done: Promise<void> } | null {
    const done = this.uploading;
    if (done === null) return null;
    this.uploading = null;
    return { blockedMs: this.edenUpload.land(), done };
  }

  /** The ms the program waited for uploads ahead since the last call. */
  takeAheadWaitMs(): number {
    const ms = this.aheadBlockedMs;
    this.aheadBlockedMs = 0;
    return ms;
  }

  /**
   * The word ranges ([start, end) pairs) that a copy of the heap made at the
   * previous call must re-read before tracing: eden from what the copy has
   * (`edenMirrored`; eden changes wholesale between collections, but an upload
   * ahead may have taken part of it) up to its top, the occupied survivor space
   * unless the copy has it already (handed over by the last call, or moved there
   * by a replayed evacuation, see `afterEvacuation`), and the mirror cards written
   * since (survivors, tenured, and eden the copy had). Words outside these
   * ranges may differ only where no reachable object lies (free chunks, swept or
   * dead objects' mark bits). The first call answers the same way, for a copy
   * that started all zero as the heap did: not the whole heap.
   */
  takeDirtyRanges(): number[] {
    const sp = this.spaces;
    const out = [this.edenMirrored, sp.edenTop];
    this.edenMirrored = sp.edenTop;
    this.declinedAt = 0;
    if (!this.survivorsMirrored) out.push(sp.fromStart, sp.fromTop);
    this.survivorsMirrored = true;
    // The summary's set bytes name the chunks of cards to look at.
    const cards = this.cards;
    const cards64 = words64(cards);
    const summary = this.summary;
    const summary64 = words64(summary);
    for (let k = nextSetByte(summary, summary64, 0); k < summary.length; k = nextSetByte(summary, summary64, k + 1)) {
      summary[k] = 0;
      const from = k << SUMMARY_SHIFT;
      const to = Math.min(cards.length, from + (1 << SUMMARY_SHIFT));
      pushRuns(cards, this.base, CARD_SHIFT, sp.tenuredEnd, out, from, to, true, cards64);
    }
    return out;
  }

  /** After a young collection's evacuation emptied eden: `mirrored`, the copy
   *  replayed the evacuation itself, so the new survivor space need not be
   *  handed to it again. */
  afterEvacuation(mirrored: boolean): void {
    this.survivorsMirrored = mirrored;
    this.edenMirrored = this.base;
    this.declinedAt = 0;
  }
}
