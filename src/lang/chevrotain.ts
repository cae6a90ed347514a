/**
 * Chevrotain, loaded from the single-file bundle its package ships.
 *
 * The package's entry point is some sixty ES modules plus lodash-es, which load
 * several times slower than `lib/chevrotain.mjs`, the same API in one file, on
 * every `minivm` start (docs/decisions/0000-chevrotain-bundle.md). The package's
 * `exports` map does not name the bundle, so it is found beside the entry point;
 * where it is missing (a future layout of the package) the entry point is used.
 */

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

type Chevrotain = typeof import('chevrotain');

async function load(): Promise<Chevrotain> {
  try {
    const entry = createRequire(import.meta.url).resolve('chevrotain'); // .../lib/src/api.js
    const bundle = join(dirname(entry), '..', 'chevrotain.mjs');
    if (existsSync(bundle)) return (await import(pathToFileURL(bundle).href)) as Chevrotain;
  } catch {
    // Fall through to the package's own entry point.
  }
  return import('chevrotain');
}

const chevrotain = await load();
export const { createToken, Lexer, CstParser, EOF } = chevrotain;
