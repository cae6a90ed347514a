/**
 * The `--log-gc` lines in the three `--log-format`s (docs/cli.md):
 *   text     [0.071s][gc 1] young (eden full) serial 24M->8M(256M) 2.50ms roots=...
 *   hotspot  HotSpot's unified logging (-Xlog:gc*), as GCViewer's unified-logging
 *            reader accepts it: [0.071s][info][gc] GC(0) Pause Young (Allocation Failure) 24576K->8192K(262144K) 2.495ms
 *   jsonl    one JSON object per collection, the element --json-stats has in `collections`
 * Every line is written when its collection ends; the stamps are seconds since the run began.
 */

import { formatBytes, formatGcRecord, type GcRecord } from '../heap/index.js';
import type { LogFormatName, RunOptions } from './options.js';
import { pauseSpans, type Span } from './pause-layout.js';

/** A collection's record with when it happened: ms since the run started. */
export interface TimedGcRecord extends GcRecord {
  startMs: number;
  endMs: number;
}

function uptime(ms: number): string {
  return `[${(Math.max(0, ms) / 1000).toFixed(3)}s]`;
}

/** Our causes as HotSpot names its GCCause values, so log readers group them as usual. */
const HOTSPOT_CAUSES: Record<string, string> = {
  'eden full': 'Allocation Failure',
  'tenured full': 'Tenured Generation Full',
  'promotion failed': 'Promotion Failed',
  'gc() call': 'System.gc()',
  'minorGc() call': 'WhiteBox Initiated Young GC',
};

/** HotSpot's cause text for a record: GCViewer's type pattern takes letters, spaces,
 *  `.`, `-`, `:` and parentheses only, so anything else becomes a space. */
export function hotspotCause(r: GcRecord): string {
  const exhausted = r.cause.endsWith(', out of memory');
  const cause = exhausted ? r.cause.slice(0, -', out of memory'.length) : r.cause;
  const named = cause === 'gc stress' ? (r.kind === 'young' ? 'ScavengeAlot' : 'FullGCAlot') : HOTSPOT_CAUSES[cause];
  const text = named ?? cause.replace(/[^-.a-zA-Z: ()]+/g, ' ').trim();
  return `(${text || 'Unknown'})` + (exhausted ? ' (Heap Exhausted)' : '');
}

/** Bytes in whole kilobytes: GCViewer reads integers only, and megabytes would round a small heap away. */
function kb(bytes: number): string {
  return `${Math.round(bytes / 1024)}K`;
}

function hotspotLines(r: TimedGcRecord): string[] {
  const gc = `GC(${r.number - 1})`;
  const title = `Pause ${r.kind === 'young' ? 'Young' : 'Full'} ${hotspotCause(r)}`;
  const lines = [`${uptime(r.startMs)}[info][gc,start] ${gc} ${title}`];
  // A phase is logged when it ends, as HotSpot does: its parts before it. Debug
  // level, as HotSpot logs a collector's sub-phases: GCViewer warns about every
  // info-level phase whose name is not one of HotSpot's, and skips debug lines.
  const phase = (s: Span, depth: number): void => {
    for (const c of s.children) phase(c, depth + 1);
    lines.push(`${uptime(s.startMs + s.ms)}[debug][gc,phases] ${gc} ${'  '.repeat(depth)}${s.name} ${s.ms.toFixed(3)}ms`);
  };
  for (const s of pauseSpans(r, r.startMs)) phase(s, 0);
  const pauseEnd = r.startMs + r.pauseMs;
  if (r.auto) {
    lines.push(
      `${uptime(pauseEnd)}[info][gc,ergo] ${gc} auto chose ${r.auto.engine}: predicted ${r.auto.predictedMs.toFixed(3)}ms ` +
        `actual ${r.pauseMs.toFixed(3)}ms (${r.auto.samples} samples)`,
    );
  }
  lines.push(`${uptime(pauseEnd)}[info][gc] ${gc} ${title} ${kb(r.usedBefore)}->${kb(r.usedAfter)}(${kb(r.capacity)}) ${r.pauseMs.toFixed(3)}ms`);
  return lines;
}

/** Writes the log of one run in one format; `write` takes whole lines. */
export class GcLog {
  constructor(
    private readonly format: LogFormatName,
    private readonly write: (text: string) => void,
  ) {}

  /** The lines before the first collection (hotspot: the collector in use, as HotSpot's `Using ...`). */
  start(options: RunOptions): void {
    if (this.format !== 'hotspot') return;
    this.write(`${uptime(0)}[info][gc] Using ${options.gc} (minivm, ${options.layout} layout, heap ${formatBytes(options.heapBytes)})\n`);
  }

  collection(r: TimedGcRecord): void {
    switch (this.format) {
      case 'text':
        this.write(`${uptime(r.endMs)}${formatGcRecord(r)}\n`);
        break;
      case 'hotspot':
        this.write(hotspotLines(r).join('\n') + '\n');
        break;
      case 'jsonl':
        this.write(JSON.stringify(r) + '\n');
        break;
    }
  }
}
