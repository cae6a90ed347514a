#!/usr/bin/env node
// Which collector code does V8 throw away (deoptimize) while a program runs, after
// the collector warm-up optimized it? Each such deoptimization sends the rest of a
// collection's loop back to unoptimized code, inside the program's pause
// (docs/decisions/s36-01-warm-up-coverage.md). Runs every program under V8's
// --trace-deopt and prints the positions in dist/gc, dist/heap and
// dist/collectors that each program deoptimizes and an empty program does not
// (those are the warm-up's own, before the program starts).
//   node bench/deopt-probe.mjs [--gc auto] [--layout sable] [other run flags...]
// Build first (npm run build): it runs dist/cli/cli.js, the unbundled program, so
// that positions name source files.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const flags = process.argv.slice(2);
if (!flags.includes('--gc')) flags.push('--gc', 'auto');
const cli = join(root, 'dist', 'cli', 'cli.js');
const POSITION = /deoptimize at <file:\/\/[^>]*?\/dist\/((?:gc|heap|collectors)\/[^>]*)>/g;

function positions(program) {
  const r = spawnSync(process.execPath, ['--trace-deopt-verbose', cli, 'run', program, ...flags], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const text = `${r.stdout}\n${r.stderr}`;
  return { code: r.status, found: new Set([...text.matchAll(POSITION)].map((m) => m[1])) };
}

const empty = join(mkdtempSync(join(tmpdir(), 'minivm-deopt-')), 'empty.mini');
writeFileSync(empty, 'print(0);\n');
const baseline = positions(empty).found;
const dirs = [join(root, 'programs'), join(root, 'bench', 'programs')];
let total = 0;
for (const dir of dirs) {
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.mini')).sort()) {
    const { code, found } = positions(join(dir, f));
    const own = [...found].filter((p) => !baseline.has(p));
    total += own.length;
    console.log(`${f}${code === 0 ? '' : ` (exit ${code})`}: ${own.length === 0 ? 'none' : own.join(', ')}`);
  }
}
console.log(`flags: ${flags.join(' ')}; positions the empty program also deoptimizes (left out): ${[...baseline].join(', ') || 'none'}`);
console.log(`${total} collector-code deoptimizations in programs`);
