/**
 * `--trace FILE`: the run as a Chrome trace-event timeline (the JSON object format
 * with `traceEvents`, which Perfetto and chrome://tracing open). One track, the
 * VM's thread, since every collection stops the program: set-up, the mutator's
 * spans between pauses, and each pause as a complete event (`ph: "X"`, microseconds)
 * with its phases, and a GPU marker's or evacuation's parts, nested inside
 * (pause-layout.ts says how they are placed); a `--verify-gc` check follows its pause.
 */

import type { TimedRunStats } from './run.js';
import { pauseSpans, type Span } from './pause-layout.js';

export interface TraceEvent {
  name: string;
  cat?: string;
  ph: 'X' | 'M';
  pid: number;
  tid: number;
  ts?: number;
  dur?: number;
  args?: Record<string, unknown>;
}

export interface Trace {
  traceEvents: TraceEvent[];
  displayTimeUnit: 'ms';
  otherData: Record<string, string>;
}

const PID = 1;
const TID = 1;

/** Times go through whole nanoseconds, start and end alike, so that a span laid inside
 *  another stays inside it after rounding (a trace viewer nests by these times). */
function complete(name: string, cat: string, startMs: number, ms: number, args?: Record<string, unknown>): TraceEvent {
  const startNs = Math.round(startMs * 1e6);
  const endNs = Math.max(startNs, Math.round((startMs + ms) * 1e6));
  return { name, cat, ph: 'X', pid: PID, tid: TID, ts: startNs / 1000, dur: (endNs - startNs) / 1000, ...(args ? { args } : {}) };
}

function spanEvents(s: Span, out: TraceEvent[]): void {
  out.push(complete(s.name, s.cat, s.startMs, s.ms));
  for (const c of s.children) spanEvents(c, out);
}

/** The trace of a finished run; `readyMs`: when set-up ended and the program began. */
export function traceOf(stats: TimedRunStats, readyMs: number, file: string): Trace {
  const events: TraceEvent[] = [
    { name: 'process_name', ph: 'M', pid: PID, tid: TID, args: { name: `minivm run ${file}` } },
    { name: 'thread_name', ph: 'M', pid: PID, tid: TID, args: { name: `vm (--gc ${stats.collector})` } },
    complete('set-up', 'vm', 0, readyMs, { note: 'heap, collector, worker pool and GPU start-up' }),
  ];
  let at = readyMs;
  for (const c of stats.collections) {
    if (c.startMs > at) events.push(complete('mutator', 'mutator', at, c.startMs - at));
    const kind = c.kind === 'young' ? 'Young' : 'Full';
    events.push(
      complete(`Pause ${kind} (${c.cause})`, 'gc', c.startMs, c.pauseMs, {
        number: c.number, kind: c.kind, cause: c.cause, collector: c.collector,
        usedBefore: c.usedBefore, usedAfter: c.usedAfter, capacity: c.capacity, pauseMs: c.pauseMs,
      }),
    );
    for (const s of pauseSpans(c, c.startMs)) spanEvents(s, events);
    if (c.phases.verify > 0) events.push(complete('verify-gc', 'verify', c.startMs + c.pauseMs, c.phases.verify));
    at = Math.max(at, c.endMs);
  }
  if (stats.wallMs > at) events.push(complete('mutator', 'mutator', at, stats.wallMs - at));
  return {
    traceEvents: events,
    displayTimeUnit: 'ms',
    otherData: { collector: stats.collector, layout: stats.layout, heapBytes: String(stats.heapBytes), program: file },
  };
}
