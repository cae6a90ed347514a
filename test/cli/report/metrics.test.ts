// The report's per-configuration figures (throughput, allocation and promotion
// rates), the never-collected hint and the CSV, on hand-made compare rows.
import { describe, expect, it } from 'vitest';
import { compareCsv, csvField, csvPathFor, CSV_COLUMNS } from '../../../src/cli/report/csv.js';
import { allocationRate, configName, heapFlag, neverCollectedHint, promotionRate, throughputPct } from '../../../src/cli/report/metrics.js';
import type { CompareResult, CompareRun } from '../../../src/cli/results.js';

function row(over: Partial<CompareRun> & Record<string, unknown> = {}): CompareRun {
  return {
    collector: 'serial', layout: 'sable', status: 'ok', exitCode: 0, repeats: 1,
    wallMs: 2000, mutatorMs: 1500, gcMs: 500, youngCollections: 2, fullCollections: 1, totalPauseMs: 500,
    maxPauseMs: 300, p95PauseMs: 300, markMs: 100, transferMs: 0, bytesAllocated: 50e6, bytesPromoted: 4e6,
    peakHeapBytes: 1 << 20, parallel: null, min: {}, max: {}, samples: {}, outliers: [],
    collections: [
      { number: 1, kind: 'young', cause: 'eden full', startMs: 100, endMs: 200, pauseMs: 100, usedBefore: 3 << 20, usedAfter: 1 << 20 },
      { number: 2, kind: 'full', cause: 'gc() call, "x"', startMs: 900, endMs: 1300, pauseMs: 400, usedBefore: 2 << 20, usedAfter: 1 << 19 },
    ],
    ...over,
  } as CompareRun;
}

function result(runs: CompareRun[], heapBytes = 256 << 20): CompareResult {
  return {
    file: 'programs/binary_trees.mini', repeat: 1, warmup: 0, runs, skipped: [], comparedRuns: runs.length, outputIdentical: true, difference: null, heaps: null, minHeaps: null,
    provenance: {
      version: '0.1.0', commit: null, node: 'v20', os: 'linux', cpu: 'cpu', cores: 2, memoryBytes: 1 << 30, argv: [],
      mode: 'fresh process', warmup: 0, heapBytes, adapter: null, date: '2026-01-01T00:00:00Z',
    },
  };
}

describe('throughput and rates', () => {
  it('one repeat: mutator over wall, MB per second of wall time', () => {
    const r = row();
    expect(throughputPct(r)).toEqual({ median: 75, min: 75, max: 75 });
    expect(allocationRate(r).median).toBeCloseTo(25, 12); // 50 MB in 2 s
    expect(promotionRate(r).median).toBeCloseTo(2, 12); // 4 MB in 2 s
  });

  it('repeats: the median of each repeat\'s ratio, with its range', () => {
    const r = row({
      repeats: 3, wallMs: 2000, mutatorMs: 1000,
      samples: { wallMs: [1000, 2000, 4000], mutatorMs: [900, 1900, 1000], bytesAllocated: [10e6, 10e6, 10e6], bytesPromoted: [0, 1e6, 4e6] },
    });
    // Ratios 90%, 95%, 25%: their median is 90%, where the ratio of the medians (1000/2000) would say 50%.
    expect(throughputPct(r)).toEqual({ median: 90, min: 25, max: 95 });
    const alloc = allocationRate(r); // 10, 5, 2.5 MB/s
    expect([alloc.median, alloc.min, alloc.max]).toEqual([5, 2.5, 10]);
    const promo = promotionRate(r); // 0, 0.5, 1 MB/s
    expect([promo.median, promo.min, promo.max]).toEqual([0.5, 0, 1]);
  });

  it('a zero wall time gives zero, not NaN', () => {
    expect(throughputPct(row({ wallMs: 0, mutatorMs: 0 })).median).toBe(0);
    expect(allocationRate(row({ wallMs: 0 })).median).toBe(0);
  });
});

describe('names and hints', () => {
  it('heapFlag writes sizes as --heap takes them', () => {
    expect([heapFlag(256 << 20), heapFlag(1 << 30), heapFlag(48 << 10), heapFlag(1000)]).toEqual(['256m', '1g', '48k', '1000']);
  });

  it('a run that never collected gets a hint naming program and heap; none and collecting runs do not', () => {
    const idle = row({ youngCollections: 0, fullCollections: 0, collections: [] });
    const r = result([idle, row(), row({ collector: 'none', youngCollections: 0, fullCollections: 0, collections: [] })]);
    expect(neverCollectedHint(idle, r)).toMatch(/^binary_trees never collected under serial\/sable at --heap 256m: .*try a smaller --heap/);
    expect(neverCollectedHint(r.runs[1]!, r)).toBeNull();
    expect(neverCollectedHint(r.runs[2]!, r)).toBeNull();
  });

  it('rows carrying their own heap (a sweep) are named by it', () => {
    const r = result([row({ heap: 4 << 20 }), row({ heap: 8 << 20 })]);
    expect(r.runs.map((run) => configName(run, r))).toEqual(['serial/sable @4m', 'serial/sable @8m']);
    const one = result([row({ heap: 4 << 20 })]);
    expect(configName(one.runs[0]!, one)).toBe('serial/sable');
    expect(neverCollectedHint(row({ heap: 4 << 20, youngCollections: 0, fullCollections: 0, collections: [] }), one)).toContain('--heap 4m');
  });

  it('a sweep\'s heapBytes and heapMultiple fields name the row too', () => {
    const r = result([row({ heapBytes: 3 << 20, heapMultiple: 2 }), row({ heapBytes: 6 << 20, heapMultiple: null })]);
    expect(r.runs.map((run) => configName(run, r))).toEqual(['serial/sable @3m (2x)', 'serial/sable @6m']);
    expect(compareCsv(r).split('\n')[1]!.split(',')[2]).toBe(String(3 << 20));
  });
});

describe('CSV', () => {
  it('one row per collection, a configuration without collections still one row', () => {
    const r = result([row(), row({ collector: 'none', youngCollections: 0, fullCollections: 0, collections: [] })]);
    const lines = compareCsv(r).trimEnd().split('\n');
    expect(lines[0]).toBe(CSV_COLUMNS.join(','));
    expect(lines.length).toBe(1 + 2 + 1);
    const col = (line: string, name: string): string => line.split(',')[CSV_COLUMNS.indexOf(name as (typeof CSV_COLUMNS)[number])]!;
    expect(col(lines[1]!, 'throughput_pct')).toBe('75');
    expect(col(lines[1]!, 'alloc_mb_s')).toBe('25');
    expect(col(lines[1]!, 'heap_bytes')).toBe(String(256 << 20));
    expect(col(lines[1]!, 'kind')).toBe('young');
    expect(lines[2]).toContain(',full,"gc() call, ""x""",900,1300,400,');
    expect(col(lines[3]!, 'collector')).toBe('none');
    expect(lines[3]!.endsWith(',,,,,,,,')).toBe(true);
    expect(lines[3]!.split(',').length).toBe(CSV_COLUMNS.length);
  });

  it('fields are quoted as RFC 4180 says, and the path sits beside the HTML', () => {
    expect([csvField('a'), csvField('a,b'), csvField('say "hi"'), csvField(0.1 + 0.2)]).toEqual(['a', '"a,b"', '"say ""hi"""', '0.3']);
    expect([csvPathFor('out/x.html'), csvPathFor('x.HTM'), csvPathFor('report')]).toEqual(['out/x.csv', 'x.csv', 'report.csv']);
  });
});
