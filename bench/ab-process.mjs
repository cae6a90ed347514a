// Compares builds on whole processes (start-up included), interleaving them run by run
// so that a machine's drift falls on all alike:
//   node bench/ab-process.mjs RUNS NAME=ROOT NAME=ROOT ... -- PROGRAM [PROGRAM ...]   (FLAGS='--gc gpu-dfs')
// ROOT is a checkout with a built dist/; each build gets a compile cache folder of its own,
// warmed by two runs of each program first, so the rounds measure runs from the cache
// as a user's second and later runs are. Prints per program and build the median and
// minimum wall time of `node ROOT/bin/minivm.js run PROGRAM FLAGS` in ms, its output discarded,
// and `node -e 0` beside them for Node's own start.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { median } from './lib/util.mjs';

const args = process.argv.slice(2);
const split = args.indexOf('--');
const runs = Number(args[0]);
const builds = (split < 0 ? [] : args.slice(1, split)).map((b) => b.split('='));
const programs = split < 0 ? [] : args.slice(split + 1);
if (!(runs > 0) || builds.length === 0 || builds.some((b) => b.length !== 2) || programs.length === 0) {
  console.error('usage: node bench/ab-process.mjs RUNS NAME=ROOT NAME=ROOT ... -- PROGRAM [PROGRAM ...]');
  process.exit(64);
}
const caches = mkdtempSync(join(tmpdir(), 'minivm-ab-process-'));
const flags = (process.env.FLAGS ?? '').split(' ').filter(Boolean);

/** One process's wall time, ms; throws if it fails. */
function timed(cmd, argv, env) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, argv, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')}: exit ${r.status}\n${r.stderr}`);
  return ms;
}

/** @param {string[]} build NAME and ROOT @param {string} program */
const runOf = ([name, root], program) => () =>
  timed(process.execPath, [join(resolve(root), 'bin', 'minivm.js'), 'run', program, ...flags], { MINIVM_CACHE_DIR: join(caches, name) });
const node = () => timed(process.execPath, ['-e', '0'], {});

for (const program of programs) {
  const each = builds.map((b) => ({ name: b[0], run: runOf(b, program), ms: /** @type {number[]} */ ([]) }));
  for (const b of each) for (let i = 0; i < 2; i++) b.run();
  const bare = /** @type {number[]} */ ([]);
  for (let i = 0; i < runs; i++) {
    // The order alternates, so neither build always runs right after the other.
    for (const b of i % 2 === 0 ? each : [...each].reverse()) b.ms.push(b.run());
    bare.push(node());
  }
  console.log(program);
  for (const b of each) console.log(`  ${b.name.padEnd(12)} ${median(b.ms).toFixed(1).padStart(7)} (min ${Math.min(...b.ms).toFixed(1)})`);
  console.log(`  ${'node -e 0'.padEnd(12)} ${median(bare).toFixed(1).padStart(7)} (min ${Math.min(...bare).toFixed(1)})`);
}
