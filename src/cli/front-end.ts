/**
 * The front end (compile-source.ts: the parser with chevrotain, the checker, the
 * bytecode compiler), loaded when a run compiles a program. The bundled CLI loads it
 * from its own bundle and code cache (code-cache.ts), so a run whose bytecode is in
 * the compile cache reads neither; a build without the bundles imports the module.
 */

import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FRONT_BUNDLE, loadBundle } from './code-cache.js';

type FrontEnd = typeof import('./compile-source.js');

/** The front end's module. In the bundle every module's `import.meta.url` is the entry
 *  point's (`dist/cli/main.js`, scripts/bundle.mjs), and the bundles lie beside it. */
export async function frontEnd(): Promise<FrontEnd> {
  const here = fileURLToPath(import.meta.url);
  const bundle = join(dirname(here), FRONT_BUNDLE);
  if (basename(here) === 'main.js' && existsSync(bundle)) return loadBundle<FrontEnd>(bundle, import.meta.url);
  return import('./compile-source.js');
}
