/**
 * Starts the CLI's CommonJS bundle through V8's code cache. Node 20 compiles an ES
 * module's whole source at every start, and each function again when it first runs;
 * a code cache written by one run of the same bundle holds the bytecode of every
 * function that run compiled, so a start skips both (docs/decisions/s35-01-code-cache.md).
 * V8 checks a cache against its own version, its flags and the source's length, and
 * ignores one that does not match; the build writes the bundle and its cache together
 * (scripts/bundle.mjs), since a same-length edit of the bundle alone would pass.
 */

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';

/** The bundle's file name, beside this module (scripts/bundle.mjs writes it there). */
export const CLI_BUNDLE = 'cli.cjs';

/** Set to 1, a run writes the bundle's cache as it exits (the build's training run, scripts/bundle.mjs). */
export const WRITE_CACHE_ENV = 'MINIVM_WRITE_CODE_CACHE';

/** What V8 made of the cache file. */
export type CacheUse = 'accepted' | 'rejected' | 'absent';

/** What the bundle's source evaluates to: its modules wrapped in one function (scripts/bundle.mjs). */
type BundleMain = (require: NodeJS.Require, entryUrl: string) => void;

export const cacheFileOf = (bundle: string): string => `${bundle}.cache`;

/** Compiles the bundle, with its cache when there is one. */
export function compileBundle(bundle: string): { script: Script; cache: CacheUse } {
  const cacheFile = cacheFileOf(bundle);
  const cachedData = existsSync(cacheFile) ? readFileSync(cacheFile) : undefined;
  const script = new Script(readFileSync(bundle, 'utf8'), { filename: bundle, cachedData });
  const cache = cachedData === undefined ? 'absent' : script.cachedDataRejected === true ? 'rejected' : 'accepted';
  return { script, cache };
}

/** Runs the bundle as the module at `entryUrl` (its `import.meta.url`). */
export function runBundle(bundle: string, entryUrl: string): void {
  const training = process.env[WRITE_CACHE_ENV] === '1';
  // V8 drops the bytecode of functions that have not run for a while (the bundle's
  // top level first: it runs once, at the start), and a cache taken at the end of a
  // long training run would lack it, so every start would compile the whole bundle
  // again to run it. The flag goes back before the cache is taken: V8 stamps a
  // cache with its flags and rejects one taken under others
  // (docs/decisions/s47-01-code-cache-keeps-the-top-level.md).
  if (training) setFlagsFromString('--no-flush-bytecode');
  const { script } = compileBundle(bundle);
  // At exit every function the run needed has been compiled, so the cache holds them all.
  if (training) {
    process.on('exit', () => {
      setFlagsFromString('--flush-bytecode');
      writeFileSync(cacheFileOf(bundle), script.createCachedData());
    });
  }
  (script.runInThisContext() as BundleMain)(createRequire(bundle), entryUrl);
}
