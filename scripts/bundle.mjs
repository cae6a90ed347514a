// Bundles dist/'s entry points after tsc (`npm run build` runs both), so that Node
// loads one file of the project's at each start instead of about a hundred
// (docs/decisions/s34-01-start-up.md):
// - the command-line program (dist/cli/cli.js) into dist/cli/cli.cjs, one function
//   that dist/cli/main.js starts through V8's code cache; a training run writes the
//   cache (docs/decisions/s35-01-code-cache.md);
// - the front end (dist/cli/compile-source.js), chevrotain included, into
//   dist/cli/front.cjs, which the CLI loads the same way when it compiles a program
//   (src/cli/front-end.ts, docs/decisions/s66-01-start-up-without-node-v8.md);
// - main.js as CommonJS (dist/cli/main.cjs), which bin/minivm.js loads;
// - each worker thread's script, in place, packages left external.
// Every other module in dist/ stays as tsc emitted it.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BUILD_INFO, checkoutCommit } from './build-commit.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

/** The scripts `workerScript` hands to worker threads. */
const WORKER_SCRIPTS = ['gc/parallel/worker.js', 'gpu/worker/gpu-worker.js', 'gpu/worker/heap-writer.js', 'heap/pretouch-worker.js'];

const need = (p) => {
  if (!existsSync(p)) throw new Error(`${p} is missing: run tsc -p tsconfig.json first`);
  return p;
};

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  // Maps back through tsc's maps to src/ (esbuild reads each input's map).
  sourcemap: 'linked',
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
};

await build({
  ...common,
  entryPoints: WORKER_SCRIPTS.map((p) => need(join(dist, p))),
  outdir: dist,
  outbase: dist,
  allowOverwrite: true,
  format: 'esm',
  packages: 'external',
});

/** Chevrotain's single-file build beside its entry point (lib/src/api.js), which loads
 *  faster than the entry point's modules (docs/decisions/0000-chevrotain-bundle.md). */
function chevrotainBundle() {
  const file = join(dirname(createRequire(import.meta.url).resolve('chevrotain')), '..', 'chevrotain.mjs');
  return existsSync(file) ? { chevrotain: file } : {};
}

// The bundle's name, its cache's and the training switch: the loader's own (tsc has built it).
const { CLI_BUNDLE, FRONT_BUNDLE, WRITE_CACHE_ENV, cacheFileOf } = await import(pathToFileURL(need(join(dist, 'cli', 'code-cache.js'))).href);
const { COMPILE_CACHE_ENV } = await import(pathToFileURL(need(join(dist, 'cli', 'compile-cache.js'))).href);
const bundle = join(dist, 'cli', CLI_BUNDLE);
const front = join(dist, 'cli', FRONT_BUNDLE);
/** The front end's module, which the CLI's bundle leaves to front.cjs (src/cli/front-end.ts). */
const FRONT_ENTRY = need(join(dist, 'cli', 'compile-source.js'));
const frontEndApart = {
  name: 'front-end-apart',
  setup(b) {
    b.onResolve({ filter: /compile-source\.js$/ }, (args) =>
      join(args.resolveDir, args.path) === FRONT_ENTRY ? { path: './compile-source.js', external: true } : undefined);
  },
};
// Each bundle is one function of `require` and the URL of the module that starts it
// (src/cli/code-cache.ts), which every bundled module sees as its own; the front
// end's also takes the module object its exports go to.
await build({
  ...common,
  entryPoints: [need(join(dist, 'cli', 'cli.js'))],
  outfile: bundle,
  format: 'cjs',
  plugins: [frontEndApart],
  define: { 'import.meta.url': '__minivmEntryUrl' },
  banner: { js: '(function (require, __minivmEntryUrl) {"use strict";' },
  footer: { js: '})' },
});
await build({
  ...common,
  entryPoints: [FRONT_ENTRY],
  outfile: front,
  format: 'cjs',
  alias: chevrotainBundle(),
  define: { 'import.meta.url': '__minivmEntryUrl' },
  banner: { js: '(function (require, __minivmEntryUrl, module) {"use strict";' },
  footer: { js: '})' },
});

// The launcher bin/minivm.js loads: main.js and its code-cache loader as one CommonJS
// file beside main.js, standing in for it (its import.meta.url is main.js's), so that
// Node starts without its ES module loader (docs/decisions/s58-02-commonjs-launcher.md).
await build({
  ...common,
  sourcemap: false,
  entryPoints: [need(join(dist, 'cli', 'main.js'))],
  outfile: join(dist, 'cli', 'main.cjs'),
  format: 'cjs',
  packages: 'external',
  external: ['./cli.js'],
  define: { 'import.meta.url': '__minivmMainUrl' },
  banner: { js: `"use strict";const __minivmMainUrl=require("node:url").pathToFileURL(require("node:path").join(__dirname,"main.js")).href;` },
});

// The training run: the programs and their expected errors, in one process, every
// one compiled (the compile cache off), so that the front end's cache is written too.
const caches = [cacheFileOf(bundle), cacheFileOf(front)];
for (const c of caches) rmSync(c, { force: true });
const train = spawnSync(process.execPath, [join(root, 'bin', 'minivm.js'), 'test', join(root, 'programs')], {
  env: { ...process.env, [WRITE_CACHE_ENV]: '1', [COMPILE_CACHE_ENV]: 'off' },
  encoding: 'utf8',
});
if (train.status !== 0 || !caches.every((c) => existsSync(c))) {
  for (const c of caches) rmSync(c, { force: true });
  process.stderr.write(`bundle: the code cache's training run failed (exit ${train.status}); minivm starts without it\n${train.stdout}${train.stderr}`);
}

// The commit the build was made from, for the bench's provenance lines.
writeFileSync(join(dist, BUILD_INFO), `${JSON.stringify({ commit: checkoutCommit(root) })}\n`);
