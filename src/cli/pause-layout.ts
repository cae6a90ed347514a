/**
 * A collection's pause as nested spans, for `--log-format hotspot`'s phase lines and
 * `--trace`: the collector measures each phase's duration, not when it began, so the
 * phases are laid end to end from the pause's start in the order the collector runs
 * them, and a GPU marker's or evacuation's parts likewise inside their phase. A span
 * never reaches past its parent (a phase's time can include a part counted again in
 * another, such as the reference graph's share of a sweep).
 */

import type { GcRecord } from '../heap/index.js';

export interface Span {
  name: string;
  /** The part of the collector or device the span is in: `gc` (phase) or `gpu`. */
  cat: 'gc' | 'gpu';
  startMs: number;
  ms: number;
  children: Span[];
}

interface Part {
  name: string;
  cat: 'gc' | 'gpu';
  ms: number | undefined;
  parts?: Part[];
}

/** The record's phases in the order the collector runs them; absent ones left out. */
function partsOf(r: GcRecord): Part[] {
  const p = r.phases;
  const m = r.marker;
  const e = r.evacuation?.where === 'gpu' ? r.evacuation : undefined;
  const parts: Part[] = [
    { name: 'Roots', cat: 'gc', ms: p.roots },
    {
      name: 'Mark', cat: 'gc', ms: p.mark,
      parts: [
        { name: 'GPU upload', cat: 'gpu', ms: m.upload },
        { name: 'GPU kernel', cat: 'gpu', ms: m.kernel },
        { name: 'GPU read-back', cat: 'gpu', ms: m.readback },
        { name: 'CPU fallback', cat: 'gc', ms: m.cpuFallback },
      ],
    },
  ];
  if (r.kind === 'full') parts.push({ name: 'Sweep', cat: 'gc', ms: p.sweep });
  parts.push({
    name: 'Evacuate', cat: 'gc', ms: p.copy,
    parts: e
      ? [
          { name: 'GPU evacuation assign', cat: 'gpu', ms: e.assignMs },
          { name: 'GPU evacuation copy and fix', cat: 'gpu', ms: e.copyMs },
          { name: 'GPU evacuation read-back', cat: 'gpu', ms: e.readbackMs },
          { name: 'Heap write', cat: 'gc', ms: e.writeMs },
          { name: 'CPU fix', cat: 'gc', ms: e.fixMs },
        ]
      : [],
  });
  if (p.graph > 0) parts.push({ name: 'Reference graph', cat: 'gc', ms: p.graph });
  if (p.sync > 0) parts.push({ name: 'Mirror sync', cat: 'gc', ms: p.sync });
  return parts;
}

function lay(parts: readonly Part[], startMs: number, endMs: number): Span[] {
  const spans: Span[] = [];
  let at = startMs;
  for (const part of parts) {
    if (part.ms === undefined) continue;
    const ms = Math.max(0, Math.min(part.ms, endMs - at));
    spans.push({ name: part.name, cat: part.cat, startMs: at, ms, children: lay(part.parts ?? [], at, at + ms) });
    at += ms;
  }
  return spans;
}

/** The pause of `r`, which began at `startMs`, as its phases with their parts inside. */
export function pauseSpans(r: GcRecord, startMs: number): Span[] {
  return lay(partsOf(r), startMs, startMs + r.pauseMs);
}
