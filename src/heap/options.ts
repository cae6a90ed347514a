/**
 * Heap options and the space plan they produce.
 *
 * Sizes follow HotSpot's flags: the young generation defaults to a third of the heap
 * (NewRatio=2), eden/survivor = survivorRatio (SurvivorRatio=8), objects are promoted
 * once they have survived `tenureAge` young collections (MaxTenuringThreshold=15).
 * The spaces lie in address order eden | survivor 0 | survivor 1 | tenured, so that
 * young is the single range [youngStart, youngEnd) and a marker tests youth with two
 * compares.
 */

import type { GcRecord } from './telemetry.js';

export interface HeapOptions {
  /** Heap size in bytes (default 256 MiB). */
  heapBytes?: number;
  /** Young generation size in bytes (default a third of the heap). */
  youngBytes?: number;
  /** eden / one survivor space (default 8). */
  survivorRatio?: number;
  /** Young collections an object survives before promotion (default 15, at most 31). */
  tenureAge?: number;
  /** Object layout: 'sable' (default) or 'refgraph'. */
  layout?: string;
  /** Objects larger than this go straight to tenured (default 32 KiB, at most eden/4). */
  largeObjectBytes?: number;
  /**
   * `--gc-stress N`: every N allocations request a young collection (the allocation
   * returns 0 so the interpreter yields to its driver), and every 4th of those a full
   * one, so both kinds run often and at many different program points. 0 = off.
   */
  gcStress?: number;
  /** `--verify-gc`: check the heap after every collection (gc/verify.ts). */
  verifyGc?: boolean;
  /** `--log-gc`: called once per collection with the formatted line and the record. */
  logGc?: (line: string, record: GcRecord) => void;
}

export const DEFAULT_HEAP_BYTES = 256 * 1024 * 1024;
/** Word 0 is null; a few more words stay unused so no object ever sits near it. */
export const RESERVED_WORDS = 8;

/** The resolved sizes, in words. */
export interface SpacePlan {
  heapBytes: number;
  totalWords: number;
  edenStart: number;
  edenEnd: number;
  survivor0Start: number;
  survivor1Start: number;
  survivorWords: number;
  tenuredStart: number;
  tenuredEnd: number;
  largeObjectWords: number;
  survivorRatio: number;
  tenureAge: number;
}

function positiveInt(name: string, v: number): number {
  if (!Number.isFinite(v) || v < 0 || Math.floor(v) !== v) {
    throw new RangeError(`${name} must be a non-negative integer, got ${v}`);
  }
  return v;
}

export function planSpaces(o: HeapOptions): SpacePlan {
  const heapBytes = positiveInt('heapBytes', o.heapBytes ?? DEFAULT_HEAP_BYTES);
  const totalWords = Math.floor(heapBytes / 4);
  const youngWords = Math.floor(positiveInt('youngBytes', o.youngBytes ?? Math.floor(heapBytes / 3)) / 4);
  const survivorRatio = o.survivorRatio ?? 8;
  if (!(survivorRatio >= 1)) throw new RangeError(`survivorRatio must be at least 1, got ${survivorRatio}`);
  const tenureAge = positiveInt('tenureAge', o.tenureAge ?? 15);
  if (tenureAge > 31) throw new RangeError(`tenureAge must be at most 31 (5 age bits), got ${tenureAge}`);
  const survivorWords = Math.floor(youngWords / (survivorRatio + 2));
  const edenWords = youngWords - 2 * survivorWords;
  const edenStart = RESERVED_WORDS;
  const edenEnd = edenStart + edenWords;
  const survivor0Start = edenEnd;
  const survivor1Start = survivor0Start + survivorWords;
  const tenuredStart = survivor1Start + survivorWords;
  if (edenWords < 64 || survivorWords < 8 || totalWords - tenuredStart < 256) {
    throw new RangeError(
      `heap too small: ${heapBytes} bytes with ${youngWords * 4} bytes young leaves ` +
        `eden ${edenWords * 4}, survivor ${survivorWords * 4}, tenured ${(totalWords - tenuredStart) * 4} bytes`,
    );
  }
  const largeBytes = positiveInt('largeObjectBytes', o.largeObjectBytes ?? 32 * 1024);
  const largeObjectWords = Math.min(Math.floor(largeBytes / 4), Math.floor(edenWords / 4));
  return {
    heapBytes,
    totalWords,
    edenStart,
    edenEnd,
    survivor0Start,
    survivor1Start,
    survivorWords,
    tenuredStart,
    tenuredEnd: totalWords,
    largeObjectWords,
    survivorRatio,
    tenureAge,
  };
}

/** "256 MiB", "64 KiB" or "1000 bytes", for messages. */
export function formatHeapSize(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
