// Compares builds on the serial young collection of 1M objects (bench/young-gc.mjs),
// interleaving them run by run so that a machine's drift falls on all alike:
//   node bench/ab-young.mjs RUNS NAME=DIST_DIR NAME=DIST_DIR ...   (LAYOUTS=sable,refgraph; PRETOUCH=1: --pretouch)
// Prints, per layout and build, the medians of collections 4..10 of every run.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
const runs = Number(process.argv[2]);
const builds = process.argv.slice(3).map((x) => /** @type {[string, string]} */ (x.split('=')));
const layouts = (process.env.LAYOUTS ?? 'sable,refgraph').split(',');
const res = {};
const med = (x) => { const s = [...x].sort((a, b) => a - b); return s[s.length >> 1]; };
for (let i = 0; i < runs; i++) for (const layout of layouts) for (let b = 0; b < builds.length; b++) {
  const [name, dist] = /** @type {[string, string]} */ (builds[(b + i) % builds.length]);
  const out = execFileSync(process.execPath, [join(dirname(fileURLToPath(import.meta.url)), 'young-gc.mjs'), '--dist', dist, '--n', '1000000', '--layout', layout, '--collections', '10', ...(process.env.PRETOUCH ? ['--pretouch'] : []), '--json']).toString();
  const r = JSON.parse(out.trim().split('\n').pop() ?? '');
  const k = `${layout} ${name}`;
  (res[k] ??= { pause: [], mark: [], copy: [], graph: [] });
  for (const c of r.records.slice(3)) { res[k].pause.push(c.pauseMs); res[k].mark.push(c.phases.mark); res[k].copy.push(c.phases.copy); res[k].graph.push(c.phases.graph); }
}
for (const [k, v] of Object.entries(res).sort()) console.log(k.padEnd(18), `n=${v.pause.length}`, 'pause', med(v.pause).toFixed(1), 'mark', med(v.mark).toFixed(1), 'copy', med(v.copy).toFixed(1), 'graph', med(v.graph).toFixed(1));
