// Running minivm: the build check, programs sized through their arguments (sizeArgs),
// runs with --json-stats (cached per configuration and repeat index, so that sections
// share runs), and the GPU adapter probe.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { log, runTimed, scratch } from './util.mjs';

/** Newest modification time under dir of files ending in ext. */
function newest(dir, ext) {
  let t = 0;
  if (!existsSync(dir)) return t;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newest(p, ext));
    else if (e.name.endsWith(ext)) t = Math.max(t, statSync(p).mtimeMs);
  }
  return t;
}

/** Builds dist/ (`npm run build`: tsc, then the entry points' bundles) when it is
 *  missing or older than src/ (or tsconfig.json). */
export function ensureBuilt(root, { force = false } = {}) {
  const main = join(root, 'dist', 'cli', 'main.js');
  const built = existsSync(main) ? statSync(main).mtimeMs : 0;
  const src = Math.max(newest(join(root, 'src'), '.ts'), statSync(join(root, 'tsconfig.json')).mtimeMs);
  if (!force && built >= src) return;
  log(built ? 'dist/ is older than src/: building (npm run build)' : 'dist/ missing: building (npm run build)');
  const r = spawnSync('npm', ['run', 'build'], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) {
    process.stderr.write(`${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? `${r.error}\n` : ''}`);
    if (!existsSync(main)) throw new Error('build failed and there is no dist/: run npm install, then npm run build');
    log('warning: the build reported errors (output above); going on with what it emitted');
  }
}

/**
 * Size globals a program reads from its arguments (`if (SIZE_ARGS.length > K) NAME =
 * parseInt(SIZE_ARGS[K]);`), in argument order, with their defaults (`var NAME = value;`).
 */
export function sizeGlobals(root, program) {
  const text = readFileSync(join(root, program), 'utf8');
  const defaults = {};
  for (const m of text.matchAll(/^var ([A-Z][A-Z0-9_]*) = (-?\d+);/gm)) defaults[m[1]] = Number(m[2]);
  const out = {};
  for (const m of text.matchAll(/^if \(SIZE_ARGS\.length > (\d+)\) ([A-Z][A-Z0-9_]*) = parseInt\(SIZE_ARGS\[\1\]\);/gm)) {
    out[m[2]] = defaults[m[2]];
  }
  return out;
}

/** The program arguments that give it `sizes` (the others at their defaults); [] for none. */
export function sizeArgs(root, program, sizes) {
  if (!sizes || Object.keys(sizes).length === 0) return [];
  const all = sizeGlobals(root, program);
  for (const name of Object.keys(sizes)) {
    if (!(name in all)) throw new Error(`${program}: no size argument ${name}`);
  }
  return Object.keys(all).map((name) => String(sizes[name] ?? all[name]));
}

const cache = new Map();
let counter = 0;

/** Options every run of this harness gets (bench/run.mjs --pretouch), and HotSpot's counterparts. */
export const harnessFlags = { minivm: /** @type {string[]} */ ([]), java: /** @type {string[]} */ ([]) };

/**
 * One run of `minivm run PROGRAM` with the given options (spec: program, gc, layout,
 * heap, sizes, gpuBenchmark, gpuOpt, tag, threads, flags: more command-line options, env: more environment);
 * `index` is the repeat number,
 * and a configuration's run with the same index is taken only once per harness run.
 * Result: { code, ms (process wall clock), stdout, stderr, stats (the --json-stats
 * object, or null), error (a line, when the run failed) }.
 */
export async function runMinivm(root, spec, index) {
  const { program, gc = 'serial', layout = 'sable', heap = null, sizes = null, gpuBenchmark = false, gpuOpt = null, tag = null, threads = null, flags = [], env = null } = spec;
  // tag: a section that must not share runs (e.g. to pair runs in time) gives its own.
  const key = JSON.stringify({ program, gc, layout, heap, sizes, gpuBenchmark, gpuOpt, tag, threads, flags, env });
  let runs = cache.get(key);
  if (!runs) cache.set(key, (runs = []));
  if (runs[index]) return runs[index];
  const file = join(root, program);
  const json = join(scratch(), `stats-${++counter}.json`);
  const args = [join(root, 'bin', 'minivm.js'), 'run', file, '--gc', gc, '--layout', layout, '--json-stats', json];
  if (heap) args.push('--heap', heap);
  if (gpuBenchmark) args.push('--gpu-benchmark');
  if (gpuOpt) args.push('--gpu-opt', gpuOpt);
  if (threads) args.push('--threads', String(threads));
  args.push(...flags, ...harnessFlags.minivm);
  const programArgs = sizeArgs(root, program, sizes);
  if (programArgs.length > 0) args.push('--', ...programArgs);
  const r = await runTimed(process.execPath, args, { cwd: root, env: env ? { ...process.env, ...env } : undefined });
  let stats = null;
  if (r.code === 0 && existsSync(json)) {
    try {
      stats = JSON.parse(readFileSync(json, 'utf8'));
    } catch {
      stats = null;
    }
  }
  /** @type {{ code: number, ms: number, stdout: string, stderr: string, stats: any, error: string | null }} */
  const result = { code: r.code, ms: r.ms, stdout: r.stdout, stderr: r.stderr, stats, error: null };
  // Exit 69 is also an adapter limit (a heap too large for its bindings): only
  // a missing adapter reads 'no adapter', which the sections take as final.
  if (r.code === 69 && /no WebGPU adapter/.test(r.stderr)) result.error = 'no adapter';
  else if (r.code !== 0) {
    const line = r.stderr.split('\n').find((l) => /error|Error/.test(l)) ?? r.stderr.trim().split('\n').pop() ?? '';
    result.error = `exit ${r.code}: ${line.replace(/^minivm: /, '').slice(0, 160)}`;
  }
  runs[index] = result;
  return result;
}

/**
 * Probes the GPU: a tiny program under gpu-dfs with --stats. Returns
 * { available, software, adapter, line } (available false: exit 69, no adapter).
 */
export async function probeGpu(root) {
  const file = join(scratch(), 'gpu_probe.mini');
  writeFileSync(file, 'class N { var next: N; }\nvar a = new N();\na.next = new N();\ngc();\nprint(1);\n');
  const r = await runTimed(process.execPath, [join(root, 'bin', 'minivm.js'), 'run', file, '--gc', 'gpu-dfs', '--stats'], {
    cwd: root,
    timeoutMs: 120000,
  });
  if (r.code === 69) return { available: false, software: false, adapter: null, line: 'no adapter (exit 69)' };
  const m = r.stderr.match(/^gpu: (.+)$/m);
  if (r.code !== 0 || !m) {
    return { available: false, software: false, adapter: null, line: `probe failed (exit ${r.code}): ${r.stderr.trim().split('\n').pop() ?? ''}` };
  }
  const adapter = m[1].trim();
  const software = /software|llvmpipe|lavapipe|swiftshader/i.test(adapter);
  return { available: true, software, adapter, line: adapter };
}

/** The forced collections of a run: cause "gc() call" or "minorGc() call". */
export function forcedCollections(stats) {
  return (stats?.collections ?? []).filter((c) => c.cause === 'gc() call' || c.cause === 'minorGc() call');
}
