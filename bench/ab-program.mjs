// Compares builds on one program's young pauses, interleaving them run by run (the order
// alternating) so that a machine's drift falls on all alike:
//   node bench/ab-program.mjs RUNS PROGRAM GC NAME=ROOT NAME=ROOT ...   (EXTRA='--heap 1g')
// ROOT is a checkout with a built dist/; PROGRAM is read from each root (an older build
// runs its own copy). Prints, per build, the medians of the first young pause and of the
// later ones (with their range) and of the later marks, ms.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { median } from './lib/util.mjs';

const [runsArg, program, gc, ...builds] = process.argv.slice(2);
const runs = Number(runsArg);
if (!(runs > 0) || !program || !gc || builds.length === 0 || builds.some((b) => !b.includes('='))) {
  console.error('usage: node bench/ab-program.mjs RUNS PROGRAM GC NAME=ROOT NAME=ROOT ...');
  process.exit(64);
}
const extra = (process.env.EXTRA ?? '--heap 1g').split(' ').filter(Boolean);
const stats = join(mkdtempSync(join(tmpdir(), 'minivm-ab-')), 'stats.json');
/** @typedef {{ first: number[], later: number[], mark: number[], errors: number }} Pauses */
/** @type {Map<string, Pauses>} */
const res = new Map(builds.map((b) => [b.split('=')[0] ?? b, { first: [], later: [], mark: [], errors: 0 }]));
for (let i = 0; i < runs; i++) {
  const order = i % 2 === 0 ? builds : [...builds].reverse();
  for (const b of order) {
    const [name, root] = b.split('=');
    const r = /** @type {Pauses} */ (res.get(name ?? b));
    try {
      execFileSync(process.execPath, [join(resolve(root ?? '.'), 'dist', 'cli', 'main.js'), 'run', join(resolve(root ?? '.'), program), '--gc', gc, ...extra, '--json-stats', stats], { stdio: 'ignore', timeout: 120_000 });
    } catch {
      r.errors++;
      continue;
    }
    const young = JSON.parse(readFileSync(stats, 'utf8')).collections.filter((c) => c.kind === 'young');
    if (young.length === 0) continue;
    r.first.push(young[0].pauseMs);
    for (const c of young.slice(1)) {
      r.later.push(c.pauseMs);
      r.mark.push(c.phases.mark ?? 0);
    }
  }
}
const f = (x) => (x === undefined ? '-' : x.toFixed(1));
for (const [name, r] of res) {
  const range = r.later.length ? ` (${f(Math.min(...r.later))}-${f(Math.max(...r.later))})` : '';
  console.log(`${gc} ${name}`.padEnd(20), `runs=${r.first.length}`, 'first', f(median(r.first)), 'later', f(median(r.later)) + range, 'mark', f(median(r.mark)), r.errors ? `errors=${r.errors}` : '');
}
