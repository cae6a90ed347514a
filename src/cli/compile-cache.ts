/**
 * The compile cache: a program's bytecode kept between runs, as CPython keeps a
 * module's in `__pycache__`. A run whose source was compiled before by the same
 * build loads the bytecode and never builds the parser (chevrotain's lexer and its
 * grammar analysis), nor parses, checks or compiles (docs/decisions/s37-01-compile-cache.md).
 *
 * One entry per program file (by its absolute path), replaced when the source
 * changes; an entry holds the build's identity, the file name as given and the
 * whole source, and is used only when all three match, so a stale or foreign
 * entry is a miss, never a wrong program. A run that compiled functions the entry
 * did not hold adds the compiled tier's code to it (s40-02). Programs that do not
 * compile are never cached: their diagnostics come from the front end every time.
 *
 * Only the bundled CLI (the `minivm` command) uses it: its build's two bundles, by
 * their sizes and modification times, name the compiler. `MINIVM_COMPILE_CACHE=off` turns
 * it off; `MINIVM_CACHE_DIR` moves it (default `$XDG_CACHE_HOME/minivm`, else
 * `~/.cache/minivm`). A cache that cannot be read or written costs only the compile.
 */

import { mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BytecodeProgram } from '../bytecode/program.js';
import type { TierCode } from '../vm/tier/tier.js';
import { CLI_BUNDLE, FRONT_BUNDLE } from './code-cache.js';
import { decodeEntry, encodeEntry } from './entry-codec.js';

/** Turns the cache off when set to `off` (or `0`). */
export const COMPILE_CACHE_ENV = 'MINIVM_COMPILE_CACHE';
/** The cache's directory. */
export const CACHE_DIR_ENV = 'MINIVM_CACHE_DIR';

/** Bumped when an entry's form changes. */
const FORMAT = 3;

interface Entry {
  readonly build: string;
  readonly file: string;
  readonly source: string;
  readonly program: BytecodeProgram;
  /** The compiled tier's code from the program's runs (s40-02). */
  readonly tier?: Map<string, TierCode>;
}

/** What an entry gives a run. */
export interface Cached {
  readonly program: BytecodeProgram;
  readonly tier: Map<string, TierCode> | undefined;
}

export class CompileCache {
  /** `build`: what names the compiler that wrote an entry; entries of another build are misses. */
  constructor(
    readonly dir: string,
    readonly build: string,
  ) {}

  /** The entry's path for a program file: one per absolute path. */
  entryPath(file: string): string {
    return join(this.dir, `${pathKey(resolve(file))}.bin`);
  }

  /** The cached bytecode (and compiled code) of `source` as file `file`, or undefined. */
  get(file: string, source: string): Cached | undefined {
    let entry: Entry;
    try {
      entry = decodeEntry(readFileSync(this.entryPath(file))) as Entry;
    } catch {
      return undefined; // absent, unreadable or not an entry
    }
    if (entry === null || typeof entry !== 'object') return undefined;
    if (entry.build !== this.build || entry.file !== file || entry.source !== source) return undefined;
    return { program: entry.program, tier: entry.tier instanceof Map ? entry.tier : undefined };
  }

  /** Keeps `program`, compiled from `source` as file `file`, and the compiled tier's code
   *  if given; false if it could not be written. */
  put(file: string, source: string, program: BytecodeProgram, tier?: Map<string, TierCode>): boolean {
    const path = this.entryPath(file);
    // Written aside and renamed: a run reading the entry meanwhile sees the old one or the new one.
    const tmp = `${path}.${process.pid}.tmp`;
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      writeFileSync(tmp, encodeEntry({ build: this.build, file, source, program, tier } satisfies Entry), { mode: 0o600 });
      renameSync(tmp, path);
      return true;
    } catch {
      try {
        unlinkSync(tmp);
      } catch {
        // nothing was written
      }
      return false;
    }
  }
}

/** Two 32-bit FNV-1a hashes of `text` in hex: names an entry's file (node:crypto
 *  takes milliseconds to load, and an entry is checked against its file anyway). */
function pathKey(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

/** The default directory: `MINIVM_CACHE_DIR`, else the user's cache directory. */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env[CACHE_DIR_ENV];
  if (dir) return resolve(dir);
  const xdg = env['XDG_CACHE_HOME'];
  return join(xdg ? resolve(xdg) : join(homedir(), '.cache'), 'minivm');
}

/**
 * The bundled CLI's cache, or null: off by the environment, or not running from
 * the bundle. In the bundle every module's `import.meta.url` is the entry point's
 * (`dist/cli/main.js`, scripts/bundle.mjs), and the bundle lies beside it.
 */
export function cliCompileCache(env: NodeJS.ProcessEnv = process.env): CompileCache | null {
  const off = env[COMPILE_CACHE_ENV];
  if (off === 'off' || off === '0') return null;
  const here = fileURLToPath(import.meta.url);
  if (basename(here) !== 'main.js') return null;
  try {
    // The front end's bundle makes the bytecode; the CLI's, the tier's code kept with it.
    const stamp = (name: string): string => {
      const s = statSync(join(dirname(here), name));
      return `${s.size}:${s.mtimeMs}`;
    };
    return new CompileCache(cacheDir(env), `${FORMAT}:${process.version}:${stamp(CLI_BUNDLE)}:${stamp(FRONT_BUNDLE)}`);
  } catch {
    return null;
  }
}
