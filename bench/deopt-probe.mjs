#!/usr/bin/env node
// Which collector and heap code does V8 throw away (deoptimize) once a program runs,
// after the collector warm-up optimized it? Each such deoptimization inside a
// collection sends the rest of its loop back to unoptimized code, inside the pause
// (docs/decisions/s36-01-warm-up-coverage.md). Runs every program of programs/ and
// bench/programs/ under V8's --trace-deopt (bench/lib/deopt-child.mjs: set-up and
// warm-up, a line, then the program) and prints, per program, the positions in
// dist/gc, dist/heap and dist/collectors deoptimized after that line. Positions in
// heap/heap.js, heap/mirror-log.js and heap/ref-graph.js's writeEdge are the
// mutator's allocation and write barrier, not collections.
//   node bench/deopt-probe.mjs [--gc auto] [other run flags...]
// Build first (npm run build); needs `stdbuf` (coreutils).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROGRAM_STARTS } from './lib/deopt-child.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const flags = process.argv.slice(2);
if (!flags.includes('--gc')) flags.push('--gc', 'auto');
const child = join(root, 'bench', 'lib', 'deopt-child.mjs');
const POSITION = /deoptimize at <file:\/\/[^>]*?\/dist\/((?:gc|heap|collectors)\/[^>]*)>/g;

let total = 0;
const byPosition = new Map();
for (const dir of [join(root, 'programs'), join(root, 'bench', 'programs')]) {
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.mini')).sort()) {
    const r = spawnSync('stdbuf', ['-o0', process.execPath, '--trace-deopt-verbose', child, join(dir, f), ...flags], { encoding: 'utf8', maxBuffer: 1 << 28 });
    if (r.error) throw new Error(`deopt-probe: cannot run stdbuf: ${r.error.message}`);
    const at = r.stdout.indexOf(PROGRAM_STARTS);
    const after = at < 0 ? '' : r.stdout.slice(at);
    const found = [...new Set([...after.matchAll(POSITION)].map((m) => m[1]))];
    for (const p of found) byPosition.set(p, (byPosition.get(p) ?? 0) + 1);
    total += found.length;
    console.log(`${f}${r.status === 0 && at >= 0 ? '' : ` (exit ${r.status}${at < 0 ? ', never started' : ''})`}: ${found.length === 0 ? 'none' : found.join(', ')}`);
  }
}
console.log(`flags: ${flags.join(' ')}; programs deoptimizing each position:`);
for (const [p, n] of [...byPosition].sort((a, b) => b[1] - a[1])) console.log(`${String(n).padStart(4)}  ${p}`);
console.log(`${total} deoptimizations of collector and heap code after the warm-up`);
