/**
 * The CSV written beside `compare --report X.html` as `X.csv`: one row per
 * collection of each configuration's representative run (tidy, as R and pandas
 * read it), each row also carrying its configuration's figures; a configuration
 * without collections still has one row, its collection fields empty. Columns are
 * documented in docs/cli.md.
 */

import type { CompareResult } from '../results.js';
import { allocationRate, heapOf, promotionRate, throughputPct } from './metrics.js';

export const CSV_COLUMNS = [
  'collector', 'layout', 'heap_bytes', 'status', 'repeats', 'wall_ms', 'mutator_ms', 'throughput_pct',
  'alloc_mb_s', 'promo_mb_s', 'young_collections', 'full_collections', 'total_pause_ms', 'max_pause_ms',
  'gc', 'kind', 'cause', 'start_ms', 'end_ms', 'pause_ms', 'used_before', 'used_after',
] as const;

/** A field as RFC 4180 wants it: quoted when it holds a comma, quote or line break. */
export function csvField(v: string | number): string {
  const s = typeof v === 'number' ? (Number.isFinite(v) ? String(+v.toPrecision(10)) : '') : v;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function compareCsv(r: CompareResult): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const run of r.runs) {
    const config = [
      run.collector, run.layout, heapOf(run, r), run.status, run.repeats, run.wallMs, run.mutatorMs,
      throughputPct(run).median, allocationRate(run).median, promotionRate(run).median,
      run.youngCollections, run.fullCollections, run.totalPauseMs, run.maxPauseMs,
    ];
    const rows = run.collections.length > 0
      ? run.collections.map((c) => [...config, c.number, c.kind, c.cause, c.startMs, c.endMs, c.pauseMs, c.usedBefore, c.usedAfter])
      : [[...config, '', '', '', '', '', '', '', '']];
    for (const row of rows) lines.push(row.map(csvField).join(','));
  }
  return lines.join('\n') + '\n';
}

/** Where the CSV of a report goes: `x.html` gives `x.csv`, any other name gets `.csv` added. */
export function csvPathFor(reportPath: string): string {
  return /\.html?$/i.test(reportPath) ? reportPath.replace(/\.html?$/i, '.csv') : `${reportPath}.csv`;
}
