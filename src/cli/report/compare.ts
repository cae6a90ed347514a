/**
 * `compare --report`: the table with throughput and rates added, notes and hints,
 * the pause distribution, MMU curves and heap occupancy plots, and provenance; and
 * the CSV written beside it.
 */

import { formatBytes } from '../../heap/telemetry.js';
import type { CompareResult, CompareRun } from '../results.js';
import { writeOutputFile } from '../output-file.js';
import { mmuPlot, occupancyMultiples, pauseDistribution, type PlottedRun } from './compare-plots.js';
import { compareCsv, csvPathFor } from './csv.js';
import { htmlPage, htmlTable } from './html.js';
import { provenanceTable } from './provenance.js';
import { allocationRate, configName, heapFlag, heapOf, neverCollectedHint, promotionRate, throughputPct, type Spread } from './metrics.js';
import { escapeHtml } from './svg.js';

const RATE_HEADER = ['throughput %', 'alloc MB/s', 'promo MB/s'];

/** compare's table with the report's three columns appended. */
export function withRates(r: CompareResult, table: { header: string[]; rows: string[][] }): { header: string[]; rows: string[][] } {
  const show = (run: CompareRun, s: Spread, digits: number): string =>
    run.repeats > 1 && s.max > s.min ? `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}-${s.max.toFixed(digits)})` : s.median.toFixed(digits);
  const rows = table.rows.map((row, i) => {
    const run = r.runs[i];
    if (run === undefined || run.status === 'out of memory') return [...row, '-', '-', '-'];
    return [...row, show(run, throughputPct(run), 1), show(run, allocationRate(run), 2), show(run, promotionRate(run), 2)];
  });
  return { header: [...table.header, ...RATE_HEADER], rows };
}

function provenanceOf(r: CompareResult): string {
  const p = r.provenance;
  const heaps = [...new Set(r.runs.map((run) => heapOf(run, r)))].sort((a, b) => a - b);
  const heap = heaps.length > 1
    ? `${heaps.length} sizes: ${heaps.map(heapFlag).join(', ')}`
    : `--heap ${heapFlag(heaps[0] ?? p.heapBytes)} (${formatBytes(heaps[0] ?? p.heapBytes)})`;
  return provenanceTable(p, heap, [['warm-up runs', String(p.warmup)], ['repeats', String(r.repeat)]]);
}

export function compareReport(r: CompareResult, table: { header: string[]; rows: string[][] }): string {
  const parts: string[] = [];
  parts.push(
    `<p>Program <code>${escapeHtml(r.file)}</code>, ${r.repeat > 1 ? `medians (min-max) of ${r.repeat} runs` : 'one run'} per configuration` +
      `${r.warmup > 0 ? ` after ${r.warmup} warm-up runs` : ''}, ${escapeHtml(r.provenance.mode === 'fresh process' ? 'each run in a fresh process' : 'all runs in one process')}, rounds interleaved. ` +
      `Throughput is mutator time over wall time; rates are MB (10<sup>6</sup> bytes) per second of wall time.</p>`,
  );
  const t = withRates(r, table);
  parts.push(htmlTable(t.header, t.rows, 2, 'results'));
  for (const run of r.runs) {
    for (const i of run.outliers) parts.push(`<p class="note">${escapeHtml(`${configName(run, r)} run ${i}: wall time outside Tukey's fences (outlier)`)}</p>`);
  }
  parts.push(
    r.outputIdentical
      ? `<p class="good">output identical across ${r.comparedRuns} runs</p>`
      : `<p class="bad">outputs differ</p><pre>${escapeHtml(r.difference ?? '')}</pre>`,
  );
  for (const run of r.runs) {
    if (run.status !== 'ok') {
      const why = run.collector === 'none' && run.status === 'out of memory' ? ' (never collects; excluded from the output check)' : '';
      parts.push(`<p class="note">${escapeHtml(`${configName(run, r)}: ${run.status}, exit ${run.exitCode}${why}`)}</p>`);
    }
    const hint = neverCollectedHint(run, r);
    if (hint !== null) parts.push(`<p class="hint">${escapeHtml(hint)}</p>`);
  }
  for (const s of r.skipped) parts.push(`<p class="note">skipped ${escapeHtml(`${s.collector}/${s.layout}: ${s.reason}`)}</p>`);
  const plotted: PlottedRun[] = r.runs
    .filter((run) => run.collections.length > 0)
    .map((run) => ({ name: configName(run, r), collections: run.collections, wallMs: run.wallMs }));
  if (plotted.length === 0) {
    parts.push('<p class="hint">No run collected: there are no pauses to plot. A smaller --heap (or --gc-stress N) makes the collectors work.</p>');
  } else {
    const which = r.repeat > 1 ? ' Plots show each configuration\'s representative run (the one nearest its median wall time).' : '';
    parts.push('<h2>Pause distribution</h2>');
    parts.push(`<p class="note">Every pause of each configuration, on a log axis.${which}</p>`);
    parts.push(pauseDistribution(plotted));
    parts.push('<h2>Minimum mutator utilization</h2>');
    parts.push(
      '<p class="note">MMU(w): the smallest share of any window of w ms in which the program ran rather than the collector ' +
        '(0 up to the longest pause; the throughput at the run\'s length).</p>',
    );
    parts.push(mmuPlot(plotted));
    parts.push('<h2>Heap occupancy over time</h2>');
    parts.push('<p class="note">One plot per configuration on shared axes; circles mark young collections, squares full ones.</p>');
    parts.push(occupancyMultiples(plotted));
  }
  parts.push('<h2>Provenance</h2>');
  parts.push(provenanceOf(r));
  return htmlPage(`minivm compare: ${r.file}`, parts.join('\n'));
}

/** Writes the report and the CSV beside it; returns the CSV's path. */
export function writeCompareReport(path: string, r: CompareResult, table: { header: string[]; rows: string[][] }): string {
  const csv = csvPathFor(path);
  writeOutputFile(path, compareReport(r, table));
  writeOutputFile(csv, compareCsv(r));
  return csv;
}
