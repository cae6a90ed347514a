// Section `young1m`: the serial young collection of 1 million live small objects, both
// layouts, through bench/young-gc.mjs (the heap API directly, no interpreter). Each run
// builds the list, then collects COLLECTIONS times; the first collection is reported on
// its own and the steady state is the median of collections 3..COLLECTIONS (two warm-up
// collections dropped), pooled over the runs.
import { join } from 'node:path';
import { fmt, log, median, runTimed, table } from './util.mjs';

const COLLECTIONS = 10;
const WARMUP = 2;

export async function young1m(ctx) {
  const { root, repeat, quick } = ctx;
  const n = quick ? 200000 : 1000000;
  const acc = { sable: [], refgraph: [] };
  const errors = [];
  for (let i = 0; i < repeat; i++) {
    for (const layout of ['sable', 'refgraph']) {
      log(`young1m ${i + 1}/${repeat} ${layout}`);
      const r = await runTimed(
        process.execPath,
        [join(root, 'bench', 'young-gc.mjs'), '--dist', join(root, 'dist'), '--n', String(n), '--layout', layout, '--collections', String(COLLECTIONS), '--json'],
        { cwd: root },
      );
      if (r.code !== 0) {
        errors.push(`${layout}: exit ${r.code} ${r.stderr.trim().split('\n').pop()}`);
        continue;
      }
      acc[layout].push(JSON.parse(r.stdout.trim().split('\n').pop() ?? ''));
    }
  }
  const raw = {};
  const rows = [];
  for (const layout of ['sable', 'refgraph']) {
    const runs = acc[layout];
    const first = runs.map((r) => r.records[0]);
    const steady = runs.flatMap((r) => r.records.slice(WARMUP + 1));
    const s = {
      runs: runs.length,
      firstPauseMs: median(first.map((c) => c.pauseMs)),
      firstMarkMs: median(first.map((c) => c.phases.mark)),
      steadyPauseMs: median(steady.map((c) => c.pauseMs)),
      steadyMarkMs: median(steady.map((c) => c.phases.mark)),
      steadyCopyMs: median(steady.map((c) => c.phases.copy)),
      steadyGraphMs: median(steady.map((c) => c.phases.graph)),
      steadyRootsMs: median(steady.map((c) => c.phases.roots)),
      live: median(steady.map((c) => c.live)),
      allPauses: runs.map((r) => r.records.map((c) => c.pauseMs)),
    };
    raw[layout] = s;
    rows.push([
      layout,
      fmt(s.live, 0),
      fmt(s.firstPauseMs, 1),
      fmt(s.steadyPauseMs, 1),
      fmt(s.steadyRootsMs, 1),
      fmt(s.steadyMarkMs, 1),
      fmt(s.steadyCopyMs, 1),
      fmt(s.steadyGraphMs, 1),
    ]);
  }
  const verdict = (layout) => {
    const s = raw[layout];
    if (s.steadyPauseMs === null) return `${layout}: not measured`;
    const ok = s.steadyPauseMs < 100;
    return (
      `${layout}: steady ${fmt(s.steadyPauseMs, 1)} ms (${ok ? `met, ${fmt(100 - s.steadyPauseMs, 1)} ms to spare` : `not met, ${fmt(s.steadyPauseMs - 100, 1)} ms over`}); ` +
      `first collection ${fmt(s.firstPauseMs, 1)} ms (${s.firstPauseMs < 100 ? 'under' : 'over'} 100 ms)`
    );
  };
  const text = [
    `### young1m: serial young collection of ${n.toLocaleString('en-US')} live small objects, ${repeat} run(s) x ${COLLECTIONS} collections`,
    '',
    `node bench/young-gc.mjs --n ${n} --layout LAYOUT --collections ${COLLECTIONS}: a list of Node {int, ref, ref}, one dead object per live one,`,
    `1 GiB heap; every collection copies all objects (tenure age 15). "first" = median of each run's first collection; the other columns are`,
    `medians of collections ${WARMUP + 1}..${COLLECTIONS} of every run (${WARMUP} warm-up collections dropped). Times in ms.`,
    '',
    table(['layout', 'live objects', 'first pause', 'steady pause', 'roots', 'mark', 'copy', 'graph'], rows),
    '',
    `Bar (under 100 ms): ${verdict('sable')}; ${verdict('refgraph')}.`,
    ...(errors.length ? ['', `Errors: ${errors.join('; ')}`] : []),
  ].join('\n');
  return { text, raw: { repeat, n, collections: COLLECTIONS, warmup: WARMUP, ...raw, errors } };
}
