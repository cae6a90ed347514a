// Whole `minivm run` processes with the compile cache on (hits) and off, rounds taking
// turns and the order alternating, so that a machine's drift falls on both alike:
//   node bench/compile-cache-ab.mjs ROUNDS PROGRAM...
// The cache is a fresh folder, filled by one run of each program first. Prints, per
// program, the median and minimum ms of each (docs/decisions/s37-01-compile-cache.md).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, runTimed } from './lib/util.mjs';

const [roundsArg, ...programs] = process.argv.slice(2);
const rounds = Number(roundsArg);
if (!(rounds > 0) || programs.length === 0) {
  console.error('usage: node bench/compile-cache-ab.mjs ROUNDS PROGRAM...');
  process.exit(64);
}
const dir = mkdtempSync(join(tmpdir(), 'minivm-cache-ab-'));
const bin = join(import.meta.dirname ?? '.', '..', 'bin', 'minivm.js');
/** @param {string} program @param {'on' | 'off'} mode */
async function once(program, mode) {
  const env = { ...process.env, MINIVM_CACHE_DIR: dir, MINIVM_COMPILE_CACHE: mode };
  const r = await runTimed(process.execPath, [bin, 'run', program], { env });
  if (r.code !== 0) throw new Error(`${program} (cache ${mode}) exited ${r.code}: ${r.stderr.trim()}`);
  return r.ms;
}
try {
  for (const p of programs) await once(p, 'on');
  /** @type {Map<string, { on: number[], off: number[] }>} */
  const ms = new Map(programs.map((p) => [p, { on: [], off: [] }]));
  for (let i = 0; i < rounds; i++) {
    for (const p of programs) {
      const row = /** @type {{ on: number[], off: number[] }} */ (ms.get(p));
      /** @type {('on' | 'off')[]} */
      const order = i % 2 === 0 ? ['on', 'off'] : ['off', 'on'];
      for (const mode of order) row[mode].push(await once(p, mode));
    }
  }
  for (const [p, { on, off }] of ms) {
    const f = (/** @type {number[]} */ xs) => `${median(xs).toFixed(0)} (min ${Math.min(...xs).toFixed(0)})`;
    console.log(`${p}: cache off ${f(off)} ms, cache on ${f(on)} ms`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
