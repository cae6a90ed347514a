/**
 * Plain-text output shared by the commands: aligned tables and a progress line.
 */

import type { Io } from './run.js';

/** Columns padded to their widest cell: names left-aligned, numbers right-aligned. */
export function formatTextTable(header: string[], rows: string[][], leftColumns = 2): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells.map((c, i) => (i < leftColumns ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** Progress on a terminal: one line rewritten in place with \r, cleared at the end. */
export class Progress {
  constructor(private readonly io: Io, private readonly enabled: boolean) {}
  show(text: string): void {
    if (this.enabled) this.io.stderr(`\r${text}\x1b[K`);
  }
  done(): void {
    if (this.enabled) this.io.stderr('\r\x1b[K');
  }
}


export interface CommandDeps {
  /** Show progress on stderr (the CLI passes whether stderr is a terminal). */
  progress?: boolean;
}
