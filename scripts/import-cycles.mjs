// Lists the import cycles among the TypeScript files under the given folders
// (default: src), counting `import type` and `export ... from` too; exits 1 if any.
//   node scripts/import-cycles.mjs [src/heap src/gc src/collectors ...]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const roots = (process.argv.length > 2 ? process.argv.slice(2) : ['src']).map((r) => resolve(r));
const files = [];
const walk = (d) => {
  for (const n of readdirSync(d)) {
    const p = join(d, n);
    if (statSync(p).isDirectory()) walk(p);
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) files.push(p);
  }
};
roots.forEach(walk);
const inScope = new Set(files);
const edges = new Map();
for (const f of files) {
  const text = readFileSync(f, 'utf8');
  const out = new Set();
  for (const m of text.matchAll(/^\s*(?:import|export)\s[^'";]*?from\s+['"](\.[^'"]+)['"]/gms)) {
    const target = resolve(dirname(f), m[1].replace(/\.js$/, '.ts'));
    if (inScope.has(target)) out.add(target);
  }
  edges.set(f, [...out]);
}
// Tarjan's strongly connected components: every component of two or more files is a cycle.
let index = 0;
const idx = new Map(), low = new Map(), stack = [], on = new Set(), cycles = [];
const visit = (v) => {
  idx.set(v, index); low.set(v, index); index++;
  stack.push(v); on.add(v);
  for (const w of edges.get(v)) {
    if (!idx.has(w)) { visit(w); low.set(v, Math.min(low.get(v), low.get(w))); }
    else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
  }
  if (low.get(v) === idx.get(v)) {
    const c = [];
    let w;
    do { w = stack.pop(); on.delete(w); c.push(w); } while (w !== v);
    if (c.length > 1) cycles.push(c);
  }
};
for (const f of files) if (!idx.has(f)) visit(f);
for (const c of cycles) console.log('cycle: ' + c.map((f) => relative(process.cwd(), f)).join(' <-> '));
console.log(`${files.length} files, ${cycles.length} import cycle(s)`);
process.exit(cycles.length > 0 ? 1 : 0);
