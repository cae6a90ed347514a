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
  const { script } = compileBundle(bundle);
  // At exit every function the run needed has been compiled, so the cache holds them all.
  if (process.env[WRITE_CACHE_ENV] === '1') process.on('exit', () => writeFileSync(cacheFileOf(bundle), script.createCachedData()));
  (script.runInThisContext() as BundleMain)(createRequire(bundle), entryUrl);
}
