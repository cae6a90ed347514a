// Replaces each of dist/'s entry points (the CLI and the worker threads' scripts)
// with one esbuild bundle of itself and the project's modules it imports, so that
// Node loads one file at each start instead of about a hundred
// (docs/decisions/s34-01-start-up.md). Packages stay external: chevrotain's own
// bundle and webgpu load as before. Run after tsc (`npm run build` does both);
// every other module in dist/ stays as tsc emitted it.
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

/** The modules Node starts from: the CLI (bin/minivm.js) and the scripts
 *  `workerScript` hands to worker threads. */
export const ENTRY_POINTS = ['cli/main.js', 'gc/parallel/worker.js', 'gpu/worker/gpu-worker.js', 'heap/pretouch-worker.js'];

const entryPoints = ENTRY_POINTS.map((p) => join(dist, p));
for (const e of entryPoints) if (!existsSync(e)) throw new Error(`${e} is missing: run tsc -p tsconfig.json first`);

await build({
  entryPoints,
  outdir: dist,
  outbase: dist,
  allowOverwrite: true,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  // Maps back through tsc's maps to src/ (esbuild reads each input's map).
  sourcemap: 'linked',
  minifyWhitespace: true,
  logLevel: 'warning',
});
