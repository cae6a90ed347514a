// The HTML reports of `compare --report` and `heapshape --report`, rendered for real
// in headless Chromium (Debian's `chromium` package, /usr/bin/chromium, which .ci/run
// installs): the rendered DOM must hold the table rows and the SVG plots, and the
// screenshot must be a real picture. Also the plotting helpers on their own.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseArgs } from '../../src/cli/args.js';
import { compareCommand } from '../../src/cli/compare.js';
import { heapshapeCommand } from '../../src/cli/heapshape.js';
import { minivm } from '../minivm.js';
import { barChart, escapeHtml, linePlot, logBound, logTicks, niceTicks, thin } from '../../src/cli/report.js';

const CHROMIUM = '/usr/bin/chromium';
const dir = mkdtempSync(join(tmpdir(), 'minivm-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function writeReport(command: 'compare' | 'heapshape', argv: string[], out: string): Promise<string> {
  const cmd = parseArgs([command, ...argv, '--report', out]);
  let stderr = '';
  const io = { stdout: () => {}, stderr: (t: string) => (stderr += t) };
  const run = command === 'compare' ? compareCommand : heapshapeCommand;
  const code = await run(cmd, readFileSync(cmd.file, 'utf8'), io);
  expect(code, stderr).toBe(0);
  expect(stderr).toContain(`report written to ${out}`);
  return readFileSync(out, 'utf8');
}

/** Chromium, headless, in a fresh profile, offline-minded flags; returns its stdout. */
function chromium(args: string[]): string {
  expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium (as .ci/run does)`).toBe(true);
  const profile = mkdtempSync(join(dir, 'profile-'));
  return execFileSync(
    CHROMIUM,
    [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      `--user-data-dir=${profile}`, '--window-size=1200,1600', ...args,
    ],
    { encoding: 'utf8', timeout: 90_000, maxBuffer: 64 * 2 ** 20, stdio: ['ignore', 'pipe', 'pipe'] },
  );
}

function count(text: string, re: RegExp): number {
  return (text.match(re) ?? []).length;
}

/** Nothing in the page may be fetched: no scripts, links, images, imports or URLs. */
function expectSelfContained(html: string): void {
  expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(|\bsrc=|\bhref=/i);
  expect(html).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
}

function expectScreenshot(page: string, png: string): void {
  chromium([`--screenshot=${png}`, `file://${page}`]);
  expect(existsSync(png), 'chromium wrote no screenshot').toBe(true);
  const bytes = readFileSync(png);
  expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  // A blank 1200x1600 page compresses to a few KB; tables and plots make far more.
  expect(statSync(png).size).toBeGreaterThan(30_000);
}

describe('reports in headless Chromium', () => {
  it('compare --report: table with rates, pause distribution, MMU and occupancy per collector, CSV beside it', async () => {
    const page = join(dir, 'compare.html');
    const html = await writeReport('compare', ['programs/cycles.mini', '--gc', 'none,serial', '--layout', 'sable,refgraph'], page);
    expectSelfContained(html);
    const dom = chromium(['--dump-dom', `file://${page}`]);
    for (const [gc, layout] of [['none', 'sable'], ['none', 'refgraph'], ['serial', 'sable'], ['serial', 'refgraph']]) {
      expect(dom).toMatch(new RegExp(`<tr><td class="l">${gc}</td><td class="l">${layout}</td><td>`));
    }
    // The results table, then the provenance table.
    expect(count(dom, /<tbody>[\s\S]*?<\/tbody>/g)).toBe(2);
    const results = /<table id="results"[\s\S]*?<\/table>/.exec(dom)![0];
    expect(count(results, /<tr><td/g)).toBe(4);
    expect(results).toMatch(/<th>throughput %<\/th><th>alloc MB\/s<\/th><th>promo MB\/s<\/th><\/tr>/);
    // none never pauses: its throughput is all of its wall time.
    expect(results).toMatch(/<td class="l">none<\/td><td class="l">sable<\/td>(<td>[^<]*<\/td>){11}<td>100\.0<\/td>/);
    expect(dom).toContain('output identical across 4 runs');
    expect(dom).toContain('<h2>Provenance</h2>');
    expect(dom).toMatch(/<td class="l">command<\/td><td class="l">minivm compare programs\/cycles\.mini --gc none,serial --layout sable,refgraph --report /);
    expect(dom).toMatch(/<td class="l">mode<\/td><td class="l">fresh process<\/td>/);
    expect(dom).toMatch(/<td class="l">minivm<\/td><td class="l">\d+\.\d+\.\d+/);
    expect(dom).toMatch(/<td class="l">heap<\/td><td class="l">--heap 256m \(256M\)<\/td>/);
    expect(dom).toMatch(/<td class="l">cpu<\/td><td class="l">.+, \d+ cores<\/td>/);
    expect(dom).toMatch(/<td class="l">GPU adapter<\/td><td class="l">-<\/td>/);

    // The CSV: one row per collection of each collecting configuration, one row for each none.
    const csv = readFileSync(join(dir, 'compare.csv'), 'utf8').trimEnd().split('\n').map((l) => l.split(','));
    const col = (name: string): number => csv[0]!.indexOf(name);
    const kinds = (config: string): string[] => csv.slice(1).filter((r) => `${r[col('collector')]}/${r[col('layout')]}` === config).map((r) => r[col('kind')]!);
    expect(kinds('none/sable')).toEqual(['']);
    expect(kinds('none/refgraph')).toEqual(['']);
    const collecting = ['serial/sable', 'serial/refgraph'];
    for (const config of collecting) expect(kinds(config).length).toBeGreaterThan(0);

    // Only serial collects: one series per serial configuration in each plot.
    const svg = (id: string): string => new RegExp(`<svg[^>]*id="${id}"[\\s\\S]*?</svg>`).exec(dom)?.[0] ?? '';
    const pauses = svg('pause-distribution');
    expect(pauses).toContain('(log)');
    expect(count(pauses, /<g class="pause-strip"/g)).toBe(2);
    const mmu = svg('mmu');
    expect(mmu).toContain('window (ms) (log)');
    expect(count(mmu, /<polyline class="series"/g)).toBe(2);
    const occupancy = /<div id="occupancy"[\s\S]*?<\/div>/.exec(dom)?.[0] ?? '';
    expect(count(occupancy, /<svg[^>]*class="plot occupancy"/g)).toBe(2);
    for (const config of collecting) {
      const strip = new RegExp(`<g class="pause-strip" data-config="${config}">[\\s\\S]*?</g>`).exec(pauses)?.[0] ?? '';
      // Every pause is a mark: young as circles, full as squares, as many as the CSV lists.
      expect(count(strip, /<circle class="pause gc-young"/g)).toBe(kinds(config).filter((k) => k === 'young').length);
      expect(count(strip, /<rect class="pause gc-full"/g)).toBe(kinds(config).filter((k) => k === 'full').length);
      expect(count(strip, /<rect class="box"/g)).toBe(1);
      expect(mmu).toContain(`data-series="${config}"`);
      const small = new RegExp(`<svg[^>]*class="plot occupancy"[^>]*aria-label="${config}"[\\s\\S]*?</svg>`).exec(occupancy)?.[0] ?? '';
      expect(count(small, /<polyline class="series"/g)).toBe(1);
      expect(count(small, /class="gc gc-young"/g)).toBe(kinds(config).filter((k) => k === 'young').length);
      expect(count(small, /class="gc gc-full"/g)).toBe(kinds(config).filter((k) => k === 'full').length);
    }
    expect(count(dom, /<svg/g)).toBe(4);
    expect(dom).not.toContain('never collected');
    expectScreenshot(page, join(dir, 'compare.png'));
  });

  it('compare --report of runs that never collect: a hint, not plots of zeros', async () => {
    const page = join(dir, 'idle.html');
    const html = await writeReport('compare', ['programs/numbers.mini', '--gc', 'serial', '--layout', 'sable', '--in-process'], page);
    expectSelfContained(html);
    expect(html).toContain('numbers never collected under serial/sable at --heap 256m');
    expect(html).toContain('try a smaller --heap');
    expect(html).toContain('No run collected');
    expect(count(html, /<svg/g)).toBe(0);
    expect(readFileSync(join(dir, 'idle.csv'), 'utf8').trimEnd().split('\n').length).toBe(2);
  });

  it('compare checks the CSV path before it runs: a folder named x.csv is exit 64', () => {
    mkdirSync(join(dir, 'blocked.csv'));
    const r = minivm(['compare', 'programs/numbers.mini', '--gc', 'serial', '--layout', 'sable', '--report', join(dir, 'blocked.html')]);
    expect(r.status, r.stderr).toBe(64);
    expect(r.stderr).toContain(`--report: cannot write '${join(dir, 'blocked.csv')}': it is a folder`);
    expect(existsSync(join(dir, 'blocked.html'))).toBe(false);
  });

  it('heapshape --report: shape tables, verdicts, histogram bars and width plots', async () => {
    const page = join(dir, 'heapshape.html');
    const html = await writeReport('heapshape', ['programs/complete_graph.mini'], page);
    expectSelfContained(html);
    const dom = chromium(['--dump-dom', `file://${page}`]);
    const snapshots = count(dom, /<li[^>]*>gc \d+: /g);
    expect(snapshots).toBeGreaterThan(0);
    expect(dom).toMatch(/<td class="l">gc\(\) call<\/td>/);
    expect(count(dom, /<svg/g)).toBe(1 + snapshots); // the histogram + one width plot each
    expect(count(dom, /<rect class="bar"/g)).toBeGreaterThan(0);
    expect(count(dom, /<polyline/g)).toBe(snapshots);
    expect(dom).toContain('Out-degree distribution');
    expect(dom).toMatch(/<td class="l">command<\/td><td class="l">minivm heapshape programs\/complete_graph\.mini --report /);
    expect(dom).toMatch(/<td class="l">heap<\/td><td class="l">--heap 256m \(256M\)<\/td>/);
    expectScreenshot(page, join(dir, 'heapshape.png'));
  });
});

describe('plot helpers', () => {
  it('niceTicks picks round steps', () => {
    expect(niceTicks(0, 10)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(niceTicks(0, 0.9)).toEqual([0, 0.2, 0.4, 0.6, 0.8]);
    expect(niceTicks(5, 5).length).toBeGreaterThan(0);
  });

  it('logTicks gives powers of ten, and 2 and 5 times them over a short range', () => {
    expect(logTicks(0.5, 2000)).toEqual([1, 10, 100, 1000]);
    expect(logTicks(0.3, 9)).toEqual([0.5, 1, 2, 5]);
  });

  it('logBound ends a log axis on a 1-2-5 tick', () => {
    expect([logBound(0.37, false), logBound(0.37, true), logBound(140, false), logBound(140, true), logBound(500, true), logBound(999, true)]).toEqual([0.2, 0.5, 100, 200, 500, 1000]);
  });

  it('a log x axis places decades evenly', () => {
    const svg = linePlot([{ name: 's', points: [[1, 0], [10, 0.5], [100, 1]] }], { title: 't', xLabel: 'w', yLabel: 'y', logX: true, yRange: [0, 1] });
    const xs = /points="([^"]*)"/.exec(svg)![1]!.split(' ').map((p) => Number(p.split(',')[0]));
    expect(xs[1]! - xs[0]!).toBeCloseTo(xs[2]! - xs[1]!, 0);
  });

  it('thin keeps the envelope of long series', () => {
    const pts = Array.from({ length: 50_000 }, (_, i) => [i, i === 31_337 ? 999 : 1] as [number, number]);
    const t = thin(pts, 1000);
    expect(t.length).toBeLessThanOrEqual(1000);
    expect(t.some(([, y]) => y === 999)).toBe(true);
    expect(t.map(([x]) => x)).toEqual([...t.map(([x]) => x)].sort((a, b) => a - b));
  });

  it('plots escape names and draw what they are given', () => {
    expect(escapeHtml('<a & "b">')).toBe('&lt;a &amp; &quot;b&quot;&gt;');
    const svg = linePlot([{ name: '<x>', points: [[0, 1], [1, 2]], markers: true }], { title: 't', xLabel: 'x', yLabel: 'y' });
    expect(svg).toContain('&lt;x&gt;');
    expect(count(svg, /<polyline/g)).toBe(1);
    expect(count(svg, /class="marker"/g)).toBe(2);
    const bars = barChart(['a', 'b'], [{ name: 's', values: [3, 0] }], { title: 'b', xLabel: '', yLabel: '', logY: true });
    expect(count(bars, /class="bar"/g)).toBe(1);
    expect(linePlot([], { title: 'empty', xLabel: '', yLabel: '' })).toContain('no data');
  });
});
