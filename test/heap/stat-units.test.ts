// `--stats` writes every figure in one unit style (src/heap/stat-units.ts): the
// formatters, and whole summaries of real runs scanned for any figure in another style.
import { describe, expect, it } from 'vitest';
import { statMs, statPercent, statSize } from '../../src/heap/stat-units.js';
import { formatStats } from '../../src/collectors/memory.js';
import { formatTierStats } from '../../src/cli/tier-stats.js';
import { runCaptured } from '../expectations.js';

/** Every number in `text` followed by a unit or a percent sign, with the unit. */
function figures(text: string): string[] {
  return [...text.matchAll(/\d[\d.,]*\s*(?:ms|s|[KMG]i?B|[KMG]\b|B\b|%)/g)].map((m) => m[0]);
}

const STYLE = /^(\d+\.\d\d ms|\d+ B|\d+\.\d [KMG]iB|\d+\.\d%)$/;

describe('the --stats unit style', () => {
  it('writes milliseconds with two decimals, sizes in binary units with one, percent with one', () => {
    expect(statMs(3)).toBe('3.00 ms');
    expect(statMs(1234.5678)).toBe('1234.57 ms');
    expect(statSize(0)).toBe('0 B');
    expect(statSize(1023)).toBe('1023 B');
    expect(statSize(1024)).toBe('1.0 KiB');
    expect(statSize(3.25 * 2 ** 20)).toBe('3.3 MiB');
    expect(statSize(8 * 2 ** 20)).toBe('8.0 MiB');
    expect(statSize(2 ** 31)).toBe('2.0 GiB');
    expect(statPercent(0.0604)).toBe('6.0%');
  });

  it('finds figures in another style (the scan can fail)', () => {
    expect(figures('gc 28.49ms, heap 8 MiB, 3.1M, 12.34 ms').filter((f) => !STYLE.test(f))).toEqual(['28.49ms', '8 MiB', '3.1M']);
  });

  for (const options of [
    { gc: 'serial', layout: 'sable' },
    { gc: 'serial', layout: 'refgraph' },
    { gc: 'parallel', layout: 'sable', threads: 2 },
  ] as const) {
    it(`has no figure in another style: ${options.gc}/${options.layout}`, async () => {
      const run = await runCaptured('programs/linked_list.mini', { ...options, heapBytes: 2 * 2 ** 20, gcStress: 500, stats: true });
      expect(run.exitCode).toBe(0);
      const text = formatStats(run.stats!) + '\n' + formatTierStats(run.tier!, run.stats!.mutatorMs);
      const found = figures(text);
      // wall, mutator, gc, total, max, allocated, promoted, p95, mark, transfer, peak, the heap, compile/compiled/interpreted.
      expect(found.length).toBeGreaterThanOrEqual(14);
      expect(found.filter((f) => !STYLE.test(f)), text).toEqual([]);
      expect(text).toMatch(/^collector: .*, heap 2\.0 MiB$/m);
    });
  }
});
