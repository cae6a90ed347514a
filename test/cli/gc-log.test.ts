/**
 * `--log-format text|hotspot|jsonl` and `--trace FILE`, through the real binary.
 * The hotspot log is read by a small reference parser built on the patterns of
 * GCViewer's unified-logging reader (DataReaderUnifiedJvmLogging on its master branch,
 * 1.37-SNAPSHOT, commit af97692):
 * every line must be one it accepts, and the figures it reads must be the run's
 * own (--json-stats).
 */

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { minivm as runMinivm, scratch } from '../minivm.js';

const { dir, program } = scratch('minivm-gc-log-');
const minivm = (args: string[]) => runMinivm(args, { timeout: 60_000 });

// Young collections as eden fills, a growing list promoted to tenured, and a
// full collection at every gc() call.
const CHURN = program('churn.mini', [
  'class Cell { var next: Cell; var pad: int[]; }',
  'var keep: Cell = null;',
  'var i = 0;',
  'while (i < 20000) {',
  '  var c = new Cell();',
  '  c.pad = new int[32];',
  '  if (i % 10 == 0) { c.next = keep; keep = c; }',
  '  if (i % 5000 == 4999) { gc(); }',
  '  i = i + 1;',
  '}',
  'print(i);',
].join('\n'));

// Runs out of memory: the collection that finds the heap exhausted must be logged.
const CHAIN = program('chain.mini', [
  'class Cell { var next: Cell; var pad: int[]; }',
  'var head: Cell = null;',
  'while (true) { var c = new Cell(); c.pad = new int[64]; c.next = head; head = c; }',
].join('\n'));

interface Collection {
  number: number;
  kind: 'young' | 'full';
  cause: string;
  startMs: number;
  endMs: number;
  usedBefore: number;
  usedAfter: number;
  capacity: number;
  pauseMs: number;
}

interface Stats {
  youngCollections: number;
  fullCollections: number;
  wallMs: number;
  collections: Collection[];
}

// --- the reference parser -------------------------------------------------------
// GCViewer's decorator pattern: [time][uptime s][level][tags] GC(n) type tail, where
// the type is letters, spaces, '.', '-', ':' and parentheses (or HotSpot's "Phase N: ..."),
// and the tail starts with a digit.
const DECORATORS =
  /^(?:\[(?<time>[0-9-T:.+]*)\])?(?:\[(?<uptime>[^ms]*)(?<uptimeunit>m?s)\])?\[(?<level>[^\]]+)\]\[(?:(?<tags>[^\] ]+)[ ]*)\][ ](GC\((?<gcnumber>[0-9]+)\)[ ])?(?<type>(?:Phase [0-9]{1}: [a-zA-Z ]+)|[-.a-zA-Z: ()]+|[a-zA-Z1 ()]+|[a-zA-Z ]+\(.+\))(?:(?:[ ](?<tail>[0-9]{1}.*))|$)/;
// The memory-and-pause tail of a pause: 4848K->4855K(4998K) 2.872ms (whole units only).
const MEMORY_PAUSE = /^([0-9]+)([BKMG])->([0-9]+)([BKMG])\(([0-9]+)([BKMG])\)(?:(?:[ ]([0-9]+[.,][0-9]+)ms)|$)/;
const PAUSE = /^([0-9]+[.,][0-9]+)ms/;
// The lines GCViewer logs but does not parse as events ("Using Serial").
const LOG_ONLY = /^\[[0-9.]+s\]\[info\]\[gc\] Using /;
const UNIT_KB: Record<string, number> = { B: 1 / 1024, K: 1, M: 1024, G: 1024 * 1024 };

interface ParsedPause {
  number: number;
  type: string;
  startS: number | undefined;
  endS: number;
  beforeKb: number;
  afterKb: number;
  totalKb: number;
  pauseMs: number;
  phasesMs: number;
}

/** GCViewer's lookup strips the cause's parentheses until a known type remains. */
function baseType(type: string): string {
  let t = type.trim();
  while (t !== 'Pause Young' && t !== 'Pause Full' && /\(.*\)/.test(t)) t = t.replace(/\s*\([^()]*(\(\))?[^()]*\)\s*$/, '').trim();
  return t;
}

function parseHotspot(text: string): { pauses: ParsedPause[]; using: string[] } {
  const pauses = new Map<number, ParsedPause>();
  const using: string[] = [];
  let last = 0;
  for (const line of text.trimEnd().split('\n')) {
    if (LOG_ONLY.test(line)) {
      using.push(line);
      continue;
    }
    const m = DECORATORS.exec(line);
    if (!m) throw new Error(`GCViewer's pattern does not match: ${line}`);
    const g = m.groups!;
    expect(g['uptimeunit'], line).toBe('s');
    expect(g['gcnumber'], line).toBeDefined();
    const n = Number(g['gcnumber']);
    const uptime = Number(g['uptime']);
    expect(Number.isFinite(uptime)).toBe(true);
    // Lines are written as their events end: the stamps never go back.
    expect(uptime, line).toBeGreaterThanOrEqual(last);
    last = uptime;
    const p = pauses.get(n) ?? { number: n, type: '', startS: undefined, endS: NaN, beforeKb: NaN, afterKb: NaN, totalKb: NaN, pauseMs: NaN, phasesMs: 0 };
    pauses.set(n, p);
    switch (g['tags']) {
      case 'gc,start':
        expect(g['tail']).toBeUndefined();
        expect(['Pause Young', 'Pause Full']).toContain(baseType(g['type']!));
        p.startS = uptime;
        p.type = g['type']!.trim();
        break;
      case 'gc,phases': {
        // GCViewer reads info-level phases of HotSpot's names only and skips debug
        // lines: ours are debug, the top-level ones not indented.
        expect(g['level'], line).toBe('debug');
        const pm = PAUSE.exec(g['tail'] ?? '');
        if (!pm) throw new Error(`a phase line without a duration: ${line}`);
        if (!g['type']!.startsWith(' ')) p.phasesMs += Number(pm[1]!.replace(',', '.'));
        break;
      }
      case 'gc,ergo':
        break;
      case 'gc': {
        expect(g['level']).toBe('info');
        expect(g['type']!.trim()).toBe(p.type);
        const mm = MEMORY_PAUSE.exec(g['tail'] ?? '');
        if (!mm || mm[7] === undefined) throw new Error(`a pause line without memory and pause: ${line}`);
        p.beforeKb = Number(mm[1]) * UNIT_KB[mm[2]!]!;
        p.afterKb = Number(mm[3]) * UNIT_KB[mm[4]!]!;
        p.totalKb = Number(mm[5]) * UNIT_KB[mm[6]!]!;
        p.pauseMs = Number(mm[7].replace(',', '.'));
        p.endS = uptime;
        break;
      }
      default:
        throw new Error(`a tag this log should not have: ${line}`);
    }
  }
  return { pauses: [...pauses.values()], using };
}

function checkAgainstStats(pauses: ParsedPause[], stats: Stats): void {
  expect(pauses).toHaveLength(stats.collections.length);
  pauses.forEach((p, i) => {
    const c = stats.collections[i]!;
    expect(p.number).toBe(c.number - 1);
    expect(baseType(p.type)).toBe(c.kind === 'young' ? 'Pause Young' : 'Pause Full');
    expect(p.beforeKb).toBe(Math.round(c.usedBefore / 1024));
    expect(p.afterKb).toBe(Math.round(c.usedAfter / 1024));
    expect(p.totalKb).toBe(Math.round(c.capacity / 1024));
    expect(Math.abs(p.pauseMs - c.pauseMs)).toBeLessThanOrEqual(0.0005 + 1e-9);
    expect(Math.abs(p.startS! - c.startMs / 1000)).toBeLessThanOrEqual(0.0005 + 1e-9);
    expect(Math.abs(p.endS - (c.startMs + c.pauseMs) / 1000)).toBeLessThanOrEqual(0.0005 + 1e-9);
    // The phases are parts of the pause (each rounded to a microsecond).
    expect(p.phasesMs).toBeLessThanOrEqual(p.pauseMs + 0.01);
  });
}

describe('--log-format hotspot', () => {
  it.each([['serial'], ['parallel']])('%s: every line is one GCViewer reads, with the figures of --json-stats', (gc) => {
    const log = join(dir, `${gc}.log`);
    const stats = join(dir, `${gc}.json`);
    const r = minivm(['run', CHURN, '--gc', gc, '--threads', '2', '--heap', '1m', `--log-gc=${log}`, '--log-format', 'hotspot', '--json-stats', stats]);
    expect(r).toMatchObject({ status: 0, stdout: '20000\n', stderr: '' });
    const s = JSON.parse(readFileSync(stats, 'utf8')) as Stats;
    expect(s.youngCollections).toBeGreaterThan(0);
    expect(s.fullCollections).toBe(4);
    const text = readFileSync(log, 'utf8');
    const { pauses, using } = parseHotspot(text);
    expect(using).toEqual([expect.stringMatching(new RegExp(`^\\[0\\.000s\\]\\[info\\]\\[gc\\] Using ${gc} `))]);
    checkAgainstStats(pauses, s);
    expect(text).toMatch(/\]\[info\]\[gc\] GC\(\d+\) Pause Young \(Allocation Failure\) \d+K->\d+K\(1024K\) \d+\.\d{3}ms$/m);
    expect(text).toMatch(/\]\[info\]\[gc\] GC\(\d+\) Pause Full \(System\.gc\(\)\) \d+K->\d+K\(1024K\) \d+\.\d{3}ms$/m);
    expect(text).toMatch(/\]\[debug\]\[gc,phases\] GC\(\d+\) Sweep \d+\.\d{3}ms$/m);
  });

  it('logs the collection that finds the heap exhausted, and counts it', () => {
    const stats = join(dir, 'oom.json');
    const trace = join(dir, 'oom-trace.json');
    const r = minivm(['run', CHAIN, '--heap', '1m', '--log-gc', '--log-format', 'hotspot', '--json-stats', stats, '--trace', trace]);
    expect(r.status).toBe(70);
    expect(r.stderr).toContain('runtime error: out of memory');
    const logLines = r.stderr.split('\n').filter((l) => l.startsWith('['));
    const { pauses } = parseHotspot(logLines.join('\n'));
    const s = JSON.parse(readFileSync(stats, 'utf8')) as Stats;
    checkAgainstStats(pauses, s);
    expect(pauses.length).toBe(s.youngCollections + s.fullCollections);
    expect(pauses.at(-1)!.type).toMatch(/^Pause Full \(.*\) \(Heap Exhausted\)$/);
    expect(s.collections.at(-1)!.cause).toMatch(/out of memory$/);
    // The trace of a run that ran out of memory is written too, with that pause.
    const events = (JSON.parse(readFileSync(trace, 'utf8')) as { traceEvents: TraceEvent[] }).traceEvents;
    const tracedPauses = events.filter((e) => e.args?.['number'] !== undefined);
    expect(tracedPauses).toHaveLength(s.collections.length);
    expect(tracedPauses.at(-1)!.args?.['cause']).toMatch(/out of memory$/);
  });
});

describe('a GPU collector (lavapipe)', () => {
  it('logs the GPU parts of a mark at debug level and nests them (and the evacuation\'s) in the trace', () => {
    const log = join(dir, 'gpu.log');
    const stats = join(dir, 'gpu.json');
    const trace = join(dir, 'gpu-trace.json');
    const r = minivm(['run', CHURN, '--gc', 'gpu-dfs', '--heap', '1m', `--log-gc=${log}`, '--log-format', 'hotspot', '--json-stats', stats, '--trace', trace]);
    expect(r).toMatchObject({ status: 0, stdout: '20000\n' });
    const text = readFileSync(log, 'utf8');
    const s = JSON.parse(readFileSync(stats, 'utf8')) as Stats;
    checkAgainstStats(parseHotspot(text).pauses, s);
    for (const part of ['GPU upload', 'GPU kernel', 'GPU read-back']) {
      expect(text.match(new RegExp(`\\]\\[debug\\]\\[gc,phases\\] GC\\(\\d+\\)   ${part} \\d+\\.\\d{3}ms$`, 'gm'))).toHaveLength(s.collections.length);
    }
    const events = (JSON.parse(readFileSync(trace, 'utf8')) as { traceEvents: TraceEvent[] }).traceEvents;
    const marks = events.filter((e) => e.name === 'Mark');
    const evacuations = events.filter((e) => e.name === 'Evacuate');
    const gpu = events.filter((e) => e.cat === 'gpu');
    expect(marks).toHaveLength(s.collections.length);
    expect(gpu.length).toBeGreaterThanOrEqual(3 * marks.length);
    // Young collections evacuate on the GPU by default: those parts sit in Evacuate.
    expect(gpu.some((g) => g.name.startsWith('GPU evacuation'))).toBe(true);
    for (const g of gpu) {
      const parents = g.name.startsWith('GPU evacuation') ? evacuations : marks;
      const inside = parents.filter((m) => g.ts! >= m.ts! - 1e-6 && g.ts! + g.dur! <= m.ts! + m.dur! + 1e-6);
      expect(inside, g.name).toHaveLength(1);
    }
  });
});

describe('--log-format jsonl', () => {
  it('writes one object per collection, the element --json-stats has for it', () => {
    const log = join(dir, 'gc.jsonl');
    const stats = join(dir, 'jsonl.json');
    const r = minivm(['run', CHURN, '--heap', '1m', `--log-gc=${log}`, '--log-format', 'jsonl', '--json-stats', stats]);
    expect(r).toMatchObject({ status: 0, stderr: '' });
    const lines = readFileSync(log, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Collection);
    const s = JSON.parse(readFileSync(stats, 'utf8')) as Stats;
    expect(lines).toHaveLength(s.youngCollections + s.fullCollections);
    expect(lines).toEqual(s.collections);
    expect(lines.map((l) => l.number)).toEqual(lines.map((_, i) => i + 1));
    for (const l of lines) expect(l.endMs).toBeGreaterThanOrEqual(l.startMs + l.pauseMs - 1e-6);
  });

  it('on stderr, logs the out-of-memory collection before the error', () => {
    const r = minivm(['run', CHAIN, '--heap', '1m', '--log-gc', '--log-format', 'jsonl', '--stats']);
    expect(r.status).toBe(70);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Collection);
    expect(lines.at(-1)).toMatchObject({ kind: 'full', cause: expect.stringMatching(/out of memory$/) });
    const full = lines.filter((l) => l.kind === 'full').length;
    expect(r.stderr).toContain(`gc: ${lines.length - full} young, ${full} full collections`);
    expect(r.stderr.indexOf('runtime error: out of memory')).toBeGreaterThan(r.stderr.lastIndexOf('{"number"'));
  });
});

describe('--log-format text', () => {
  it('stamps every line with the uptime at the collection\'s end', () => {
    const stats = join(dir, 'text.json');
    const r = minivm(['run', CHURN, '--heap', '1m', '--log-gc', '--json-stats', stats]);
    expect(r.status).toBe(0);
    const lines = r.stderr.trimEnd().split('\n');
    const s = JSON.parse(readFileSync(stats, 'utf8')) as Stats;
    expect(lines).toHaveLength(s.collections.length);
    lines.forEach((l, i) => {
      const m = /^\[(\d+\.\d{3})s\]\[gc (\d+)\] (young|full) \(/.exec(l);
      expect(m, l).not.toBeNull();
      expect(Number(m![2])).toBe(i + 1);
      expect(Math.abs(Number(m![1]) - s.collections[i]!.endMs / 1000)).toBeLessThanOrEqual(0.0005 + 1e-9);
    });
  });
});

interface TraceEvent {
  name: string;
  cat?: string;
  ph: string;
  pid: number;
  tid: number;
  ts?: number;
  dur?: number;
  args?: Record<string, unknown>;
}

describe('--trace FILE', () => {
  it('is a trace-event timeline: mutator and pauses on one track, each phase inside its pause', () => {
    const trace = join(dir, 'trace.json');
    const stats = join(dir, 'trace-stats.json');
    const r = minivm(['run', CHURN, '--heap', '1m', '--verify-gc', '--trace', trace, '--json-stats', stats]);
    expect(r).toMatchObject({ status: 0, stderr: '' });
    const s = JSON.parse(readFileSync(stats, 'utf8')) as Stats;
    const t = JSON.parse(readFileSync(trace, 'utf8')) as { traceEvents: TraceEvent[]; displayTimeUnit: string };
    expect(t.displayTimeUnit).toBe('ms');
    const meta = t.traceEvents.filter((e) => e.ph === 'M');
    expect(meta.map((e) => e.name).sort()).toEqual(['process_name', 'thread_name']);
    for (const m of meta) expect(typeof m.args?.['name']).toBe('string');
    const spans = t.traceEvents.filter((e) => e.ph === 'X');
    expect(spans.length + meta.length).toBe(t.traceEvents.length);
    for (const e of spans) {
      expect(e).toMatchObject({ pid: 1, tid: 1 });
      expect(e.ts).toBeGreaterThanOrEqual(0);
      expect(e.dur).toBeGreaterThanOrEqual(0);
    }
    const pauses = spans.filter((e) => e.cat === 'gc' && e.args?.['number'] !== undefined);
    expect(pauses).toHaveLength(s.collections.length);
    pauses.forEach((p, i) => {
      const c = s.collections[i]!;
      expect(p.args).toMatchObject({ number: c.number, kind: c.kind, usedBefore: c.usedBefore, usedAfter: c.usedAfter });
      expect(p.ts! / 1000).toBeCloseTo(c.startMs, 6);
      expect(p.dur! / 1000).toBeCloseTo(c.pauseMs, 6);
    });
    // The top-level spans (set-up, mutator, pauses, checks) follow one another;
    // every other span is a phase inside exactly one pause, and a pause's phases
    // follow one another too.
    const eps = 1e-6; // below the trace's nanosecond resolution
    const end = (e: TraceEvent): number => e.ts! + e.dur!;
    const inside = (e: TraceEvent, p: TraceEvent): boolean => e.ts! >= p.ts! - eps && end(e) <= end(p) + eps;
    const isTop = (e: TraceEvent): boolean => ['mutator', 'set-up', 'verify-gc'].includes(e.name) || pauses.includes(e);
    const follow = (list: TraceEvent[]): void => {
      const byStart = [...list].sort((x, y) => x.ts! - y.ts!);
      for (let i = 1; i < byStart.length; i++) expect(byStart[i]!.ts, byStart[i]!.name).toBeGreaterThanOrEqual(end(byStart[i - 1]!) - eps);
    };
    follow(spans.filter(isTop));
    let phases = 0;
    for (const p of pauses) {
      const own = spans.filter((e) => !isTop(e) && inside(e, p));
      expect(own.map((e) => e.name).slice(0, 2)).toEqual(['Roots', 'Mark']);
      expect(own.map((e) => e.name)).toContain('Evacuate');
      if (p.args?.['kind'] === 'full') expect(own.map((e) => e.name)).toContain('Sweep');
      follow(own);
      phases += own.length;
    }
    expect(phases).toBe(spans.filter((e) => !isTop(e)).length);
    expect(spans.filter((e) => e.name === 'mutator').length).toBeGreaterThan(0);
    expect(spans.filter((e) => e.name === 'verify-gc')).toHaveLength(s.collections.length);
  });

  it('a bad --trace path is exit 64 before the program runs', () => {
    const r = minivm(['run', CHURN, '--trace', join(dir, 'no-such-folder', 't.json')]);
    expect(r.status).toBe(64);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^minivm: --trace: cannot write .* does not exist/);
    expect(minivm(['run', CHURN, '--trace', dir]).stderr).toMatch(/--trace: cannot write .*it is a folder/);
  });

  it('is not written when the run cannot start', () => {
    const trace = join(dir, 'never.json');
    const r = minivm(['run', program('bad.mini', 'print(;'), '--trace', trace]);
    expect(r.status).toBe(65);
    expect(existsSync(trace)).toBe(false);
  });
});

describe('usage', () => {
  it('--log-format needs --log-gc and one of its names', () => {
    const alone = minivm(['run', CHURN, '--log-format', 'hotspot']);
    expect(alone.status).toBe(64);
    expect(alone.stderr).toMatch(/^minivm: --log-format needs --log-gc/);
    const bad = minivm(['run', CHURN, '--log-gc', '--log-format', 'xml']);
    expect(bad.status).toBe(64);
    expect(bad.stderr).toMatch(/^minivm: --log-format must be one of text, hotspot, jsonl \(got 'xml'\)/);
    expect(minivm(['compare', CHURN, '--trace', 't.json']).stderr).toMatch(/compare does not take --trace/);
  });
});
