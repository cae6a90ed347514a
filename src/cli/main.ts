/**
 * The `minivm` entry point (bin/minivm.js imports it). It starts the command-line
 * program (cli.ts) from the bundle `cli.cjs` that `npm run build` makes, through
 * V8's code cache (code-cache.ts); a build without the bundle (tsc alone) starts
 * tsc's own modules instead.
 */

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CLI_BUNDLE, runBundle } from './code-cache.js';

const bundle = fileURLToPath(new URL(`./${CLI_BUNDLE}`, import.meta.url));
if (existsSync(bundle)) runBundle(bundle, import.meta.url);
else await import('./cli.js');
