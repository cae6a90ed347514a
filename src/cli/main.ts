/**
 * The `minivm` entry point. It starts the command-line program (cli.ts) from the
 * bundle `cli.cjs` that `npm run build` makes, through V8's code cache
 * (code-cache.ts); a build without the bundle (tsc alone) starts tsc's own modules
 * instead. bin/minivm.js loads it as `main.cjs`, the CommonJS copy the build makes
 * beside this module, so that Node starts without its ES module loader
 * (docs/decisions/s58-02-commonjs-launcher.md); that copy passes this module's URL
 * as its own, so the bundle sees the same entry point either way.
 */

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CLI_BUNDLE, runBundle } from './code-cache.js';

const bundle = fileURLToPath(new URL(`./${CLI_BUNDLE}`, import.meta.url));
if (existsSync(bundle)) runBundle(bundle, import.meta.url);
else void import('./cli.js');
