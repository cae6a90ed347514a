/**
 * The one unit style of `--stats` (docs/cli.md): durations in milliseconds with two
 * decimals (`12.34 ms`), sizes in binary units with one decimal (`512 B`, `3.1 KiB`,
 * `8.0 MiB`), shares in percent with one decimal (`12.3%`), counts as plain integers.
 * The GC log keeps HotSpot's compact sizes (telemetry.ts formatBytes), which log
 * readers parse.
 */

export function statMs(ms: number): string {
  return `${ms.toFixed(2)} ms`;
}

const UNITS: Array<[number, string]> = [[2 ** 30, 'GiB'], [2 ** 20, 'MiB'], [2 ** 10, 'KiB']];

export function statSize(bytes: number): string {
  for (const [size, unit] of UNITS) {
    if (bytes >= size) return `${(bytes / size).toFixed(1)} ${unit}`;
  }
  return `${Math.round(bytes)} B`;
}

/** `ratio` as a percentage: 0.123 is `12.3%`. */
export function statPercent(ratio: number): string {
  return `${(ratio * 100).toFixed(1)}%`;
}
