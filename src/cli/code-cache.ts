/**
 * Starts the CLI's CommonJS bundles through V8's code cache. Node 20 compiles an ES
 * module's whole source at every start, and each function again when it first runs;
 * a code cache written by one run of the same bundle holds the bytecode of every
 * function that run compiled, so a start skips both (docs/decisions/s35-01-code-cache.md).
 * V8 checks a cache against its own version, its flags and the source's length, and
 * ignores one that does not match; the build writes each bundle and its cache together
 * (scripts/bundle.mjs), since a same-length edit of a bundle alone would pass.
 *
 * There are two bundles: the CLI (`cli.cjs`), which every run starts, and the front
 * end (`front.cjs`: the parser with chevrotain, the checker and the bytecode compiler),
 * which only a run that compiles a program loads (front-end.ts). A run whose bytecode
 * comes from the compile cache reads and deserializes neither the front end's source
 * nor its cache (docs/decisions/s66-01-start-up-without-node-v8.md).
 */

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Script } from 'node:vm';

/** The bundles' file names, beside this module (scripts/bundle.mjs writes them there). */
export const CLI_BUNDLE = 'cli.cjs';
export const FRONT_BUNDLE = 'front.cjs';

/** Set to 1, a run writes the bundles' caches as it exits (the build's training run, scripts/bundle.mjs). */
export const WRITE_CACHE_ENV = 'MINIVM_WRITE_CODE_CACHE';

/** What V8 made of the cache file. */
export type CacheUse = 'accepted' | 'rejected' | 'absent';

/** What a bundle's source evaluates to: its modules wrapped in one function of `require`,
 *  the URL every bundled module sees as its own, and, for the front end, the module
 *  object its exports go to (scripts/bundle.mjs). */
type BundleMain = (require: NodeJS.Require, entryUrl: string, module?: { exports: unknown }) => void;

export const cacheFileOf = (bundle: string): string => `${bundle}.cache`;

/** Compiles the bundle, with its cache when there is one. */
export function compileBundle(bundle: string): { script: Script; cache: CacheUse } {
  const cacheFile = cacheFileOf(bundle);
  const cachedData = existsSync(cacheFile) ? readFileSync(cacheFile) : undefined;
  const script = new Script(readFileSync(bundle, 'utf8'), { filename: bundle, cachedData });
  const cache = cachedData === undefined ? 'absent' : script.cachedDataRejected === true ? 'rejected' : 'accepted';
  return { script, cache };
}

/** The bundle's function, its cache written at exit when this is the training run. */
function startBundle(bundle: string): BundleMain {
  const training = process.env[WRITE_CACHE_ENV] === '1';
  // V8 drops the bytecode of functions that have not run for a while (the bundle's
  // top level first: it runs once, at the start), and a cache taken at the end of a
  // long training run would lack it, so every start would compile the whole bundle
  // again to run it. The flag goes back before the cache is taken: V8 stamps a
  // cache with its flags and rejects one taken under others
  // (docs/decisions/s47-01-code-cache-keeps-the-top-level.md). node:v8 is loaded only
  // here: it loads Node's stream modules with it (s66-01).
  const v8 = training ? (createRequire(import.meta.url)('node:v8') as typeof import('node:v8')) : undefined;
  v8?.setFlagsFromString('--no-flush-bytecode');
  const { script } = compileBundle(bundle);
  // At exit every function the run needed has been compiled, so the cache holds them all.
  if (v8) {
    process.on('exit', () => {
      v8.setFlagsFromString('--flush-bytecode');
      writeFileSync(cacheFileOf(bundle), script.createCachedData());
    });
  }
  return script.runInThisContext() as BundleMain;
}

/** Runs the bundle as the module at `entryUrl` (its `import.meta.url`). */
export function runBundle(bundle: string, entryUrl: string): void {
  startBundle(bundle)(createRequire(bundle), entryUrl);
}

/** Loads the bundle of a module as the module at `entryUrl`, and returns its exports. */
export function loadBundle<T>(bundle: string, entryUrl: string): T {
  const module = { exports: {} as unknown };
  startBundle(bundle)(createRequire(bundle), entryUrl, module);
  return module.exports as T;
}
