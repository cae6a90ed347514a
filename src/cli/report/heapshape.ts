/**
 * `heapshape --report`: the shape tables, the verdicts, the out-degree histogram and
 * one objects-per-depth plot per snapshot.
 */

import type { HeapshapeResult } from '../results.js';
import { formatBytes } from '../../heap/telemetry.js';
import { htmlPage, htmlTable } from './html.js';
import { heapFlag } from './metrics.js';
import { provenanceTable } from './provenance.js';
import { barChart, escapeHtml, linePlot } from './svg.js';

/** The table, then per snapshot the width per depth and the out-degree histogram. */
export function heapshapeReport(r: HeapshapeResult, table: { header: string[]; rows: string[][] }, limit = 60): string {
  const parts: string[] = [];
  parts.push(
    `<p>Program <code>${escapeHtml(r.file)}</code> under ${escapeHtml(`${r.collector}/${r.layout}`)}; ` +
      `a level is narrow below ${r.narrowThreshold} objects (Maas et al. 5.4's fallback threshold).</p>`,
  );
  // Two tables (shape, then out-degree bins) so that neither runs off the page.
  const split = table.header.findIndex((h) => h.startsWith('deg '));
  const cut = split < 0 ? table.header.length : split;
  parts.push(htmlTable(table.header.slice(0, cut), table.rows.map((row) => row.slice(0, cut)), 3));
  if (cut < table.header.length) {
    parts.push('<p>Objects by number of non-null references (out-degree):</p>');
    parts.push(htmlTable(['gc', ...table.header.slice(cut)], table.rows.map((row) => [row[0]!, ...row.slice(cut)]), 1));
  }
  if (r.snapshots.length === 0) {
    parts.push('<p class="hint">No collection happened, so there is no heap shape to show: call gc() in the program, or use a smaller --heap or --gc-stress N.</p>');
  }
  parts.push('<h2>Verdicts</h2><ul>');
  for (const s of r.snapshots) parts.push(`<li class="${s.verdict.rating === 'poor' ? 'bad' : s.verdict.rating === 'good' ? 'good' : ''}">gc ${s.collection}: ${escapeHtml(s.verdict.text)}</li>`);
  parts.push('</ul>');
  if (r.snapshots.length > 0) {
    parts.push('<h2>Out-degree distribution (section 3.2)</h2>');
    const pick = r.snapshots.length <= 8 ? r.snapshots : [r.snapshots[0]!, r.snapshots[Math.floor(r.snapshots.length / 2)]!, r.snapshots[r.snapshots.length - 1]!];
    parts.push(
      barChart(
        r.outDegreeBins,
        pick.map((s) => ({ name: `gc ${s.collection}`, values: s.outDegree })),
        { title: 'Objects by number of non-null references', xLabel: 'out-degree', yLabel: 'objects', logY: true },
      ),
    );
  }
  parts.push('<h2>Objects per BFS depth (section 3.1)</h2>');
  const shown = r.snapshots.slice(0, limit);
  for (const s of shown) {
    parts.push(
      linePlot([{ name: `gc ${s.collection}`, points: s.widths.map((w, d) => [d, w] as [number, number]), markers: s.widths.length <= 60 }], {
        title: `gc ${s.collection} (${s.kind}, ${s.cause}): ${s.objects} objects, depth ${s.depth}, max width ${s.maxWidth}`,
        xLabel: 'BFS depth from the roots',
        yLabel: 'objects at depth',
        logY: true,
        height: 240,
      }),
    );
  }
  if (r.snapshots.length > shown.length) parts.push(`<p class="note">${r.snapshots.length - shown.length} more snapshots not plotted.</p>`);
  if (r.provenance !== undefined) {
    parts.push('<h2>Provenance</h2>');
    parts.push(provenanceTable(r.provenance, `--heap ${heapFlag(r.provenance.heapBytes)} (${formatBytes(r.provenance.heapBytes)})`));
  }
  return htmlPage(`minivm heapshape: ${r.file}`, parts.join('\n'));
}
