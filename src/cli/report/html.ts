/**
 * The report page around the plots: one HTML file with its CSS inline, and tables
 * of text cells. Nothing in it is fetched from elsewhere, so a report opens offline
 * and can be mailed or archived as it is.
 */

import { escapeHtml } from './svg.js';

export function htmlTable(header: string[], rows: string[][], leftColumns = 2, id?: string): string {
  const cls = (i: number): string => (i < leftColumns ? ' class="l"' : '');
  const head = `<tr>${header.map((h, i) => `<th${cls(i)}>${escapeHtml(h)}</th>`).join('')}</tr>`;
  const body = rows.map((r) => `<tr>${r.map((c, i) => `<td${cls(i)}>${escapeHtml(c)}</td>`).join('')}</tr>`).join('\n');
  const attr = id !== undefined ? ` id="${escapeHtml(id)}"` : '';
  return `<table${attr} class="data"><thead>${head}</thead><tbody>\n${body}\n</tbody></table>`;
}

const CSS = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; background: #fff; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; }
table.data { border-collapse: collapse; margin: 8px 0; font-size: 13px; }
table.data th, table.data td { border: 1px solid #ccc; padding: 3px 8px; text-align: right; white-space: nowrap; }
table.data th { background: #f0f0f0; } table.data .l { text-align: left; }
.note { color: #666; } .bad { color: #b00; font-weight: bold; } .good { color: #070; } .hint { color: #8a5a00; }
svg.plot { display: block; margin: 12px 0; font: 12px system-ui, sans-serif; }
div.multiples { display: flex; flex-wrap: wrap; gap: 4px 12px; } div.multiples svg.plot { margin: 4px 0; }
svg .title { font-weight: bold; font-size: 13px; } svg .area { fill: #fafafa; stroke: #999; }
svg .grid { stroke: #e4e4e4; } svg .series { stroke-width: 1.5; } svg .label { fill: #444; }
svg .box { fill: none; stroke: #444; } svg .median { stroke: #000; stroke-width: 2; } svg .whisker { stroke: #444; }
svg .pause { fill-opacity: 0.55; } svg .gc-full { stroke: #000; stroke-width: 0.8; }
`;

export function htmlPage(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>${CSS}</style></head>
<body>
<h1>${escapeHtml(title)}</h1>
${body}
</body></html>
`;
}
