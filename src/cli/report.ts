/**
 * Self-contained HTML reports for `compare --report` and `heapshape --report`: one
 * file with inline CSS and inline SVG plots drawn by minivm (no scripts, fonts,
 * images or other external resources), so a report opens offline and can be mailed
 * or archived as it is. The pieces live in report/: svg.ts draws, html.ts frames the
 * page, mmu.ts and metrics.ts compute, compare.ts, compare-plots.ts, csv.ts and
 * heapshape.ts assemble each command's report.
 */

export { barChart, escapeHtml, linePlot, logBound, logTicks, niceTicks, thin, type PlotOptions, type Series } from './report/svg.js';
export { htmlPage, htmlTable } from './report/html.js';
export { compareReport, withRates, writeCompareReport } from './report/compare.js';
export { compareCsv, csvPathFor } from './report/csv.js';
export { heapshapeReport } from './report/heapshape.js';
