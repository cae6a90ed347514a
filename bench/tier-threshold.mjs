// Whole `minivm run` processes of the interpreter section's programs at several
// `--tier-threshold` values, rounds taking turns and the order alternating:
//   node bench/tier-threshold.mjs ROUNDS N N ...
// Prints per program the median process ms and VM wall ms at each threshold, and the
// geometric mean of process time against the last threshold given
// (docs/decisions/s37-02-tier-threshold.md).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { interpPrograms } from './lib/interp.mjs';
import { geomean, median, runTimed } from './lib/util.mjs';

const [roundsArg, ...thresholdArgs] = process.argv.slice(2);
const rounds = Number(roundsArg);
const thresholds = thresholdArgs.map(Number);
if (!(rounds > 0) || thresholds.length === 0 || !thresholds.every((t) => Number.isInteger(t) && t >= 0)) {
  console.error('usage: node bench/tier-threshold.mjs ROUNDS N N ...');
  process.exit(64);
}
const root = join(import.meta.dirname ?? '.', '..');
const dir = mkdtempSync(join(tmpdir(), 'minivm-tier-threshold-'));
const stats = join(dir, 'stats.json');
const programs = interpPrograms(root);
/** @type {Map<string, { proc: number[], wall: number[] }>} */
const samples = new Map();
try {
  for (let i = 0; i < rounds; i++) {
    for (const p of programs) {
      for (const t of i % 2 === 0 ? thresholds : [...thresholds].reverse()) {
        const args = [join(root, 'bin', 'minivm.js'), 'run', join(root, p.program), '--tier-threshold', String(t), '--json-stats', stats];
        const r = await runTimed(process.execPath, args, { cwd: root });
        if (r.code !== 0) throw new Error(`${p.name} at threshold ${t} exited ${r.code}: ${r.stderr.trim()}`);
        const key = `${p.name} ${t}`;
        const s = samples.get(key) ?? { proc: [], wall: [] };
        s.proc.push(r.ms);
        s.wall.push(JSON.parse(readFileSync(stats, 'utf8')).wallMs);
        samples.set(key, s);
      }
    }
  }
  const last = thresholds[thresholds.length - 1];
  /** @type {Map<number, number[]>} */
  const ratios = new Map(thresholds.map((t) => [t, []]));
  for (const p of programs) {
    const at = (/** @type {number} */ t) => samples.get(`${p.name} ${t}`) ?? { proc: [], wall: [] };
    const base = median(at(last ?? 0).proc);
    const cells = thresholds.map((t) => {
      const s = at(t);
      ratios.get(t)?.push(median(s.proc) / base);
      return `${t}: ${median(s.proc).toFixed(0)} / ${median(s.wall).toFixed(0)}`;
    });
    console.log(`${p.name.padEnd(14)} ${cells.join('   ')}`);
  }
  console.log(`process ms / VM wall ms, median of ${rounds}; geometric mean of process time against threshold ${last}: ` +
    thresholds.map((t) => `${t}: ${(geomean(ratios.get(t) ?? []) ?? NaN).toFixed(3)}`).join(', '));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
