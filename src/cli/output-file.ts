/**
 * Output files (--report, --json-stats, --log-gc=FILE): checked before a run starts,
 * so that a bad path is a usage error and not a finished run's lost result, and
 * written to a temporary file in the same folder then renamed, so that a reader
 * never sees half a file and a failed write leaves the old one in place.
 */

import { accessSync, closeSync, constants, openSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { UsageError } from './options.js';

/** Throws a UsageError unless `path` can be created or replaced by this process. */
export function checkOutputPath(path: string, flag: string): void {
  const full = resolve(path);
  const dir = dirname(full);
  let dirStat;
  try {
    dirStat = statSync(dir);
  } catch {
    throw new UsageError(`${flag}: cannot write '${path}': folder '${dirname(path)}' does not exist`);
  }
  if (!dirStat.isDirectory()) throw new UsageError(`${flag}: cannot write '${path}': '${dirname(path)}' is not a folder`);
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    throw new UsageError(`${flag}: cannot write '${path}': folder '${dirname(path)}' is not writable`);
  }
  try {
    if (statSync(full).isDirectory()) throw new UsageError(`${flag}: cannot write '${path}': it is a folder`);
  } catch (e) {
    if (e instanceof UsageError) throw e;
  }
}

function tempPath(path: string): string {
  const tmp = join(dirname(resolve(path)), `.${basename(path)}.${process.pid}.tmp`);
  pendingTemps.add(tmp);
  return tmp;
}

/** Temporary files that may be half written now: a signal removes them. */
export const pendingTemps = new Set<string>();

/** The error of a failed write, with where the text was saved instead. */
export class OutputWriteError extends Error {}

/**
 * Writes `text` to `path` through a temporary file and a rename. Should that fail
 * (disk full, the folder removed during the run), the text goes to the system's
 * temporary folder and the error says where.
 */
export function writeOutputFile(path: string, text: string): void {
  const tmp = tempPath(path);
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, path);
    pendingTemps.delete(tmp);
  } catch (e) {
    rmSync(tmp, { force: true });
    const rescue = join(tmpdir(), `minivm-${process.pid}-${basename(path)}`);
    let saved = '';
    try {
      writeFileSync(rescue, text);
      saved = `; saved to ${rescue} instead`;
    } catch {
      saved = '; it could not be saved elsewhere either';
    }
    throw new OutputWriteError(`cannot write '${path}': ${(e as Error).message}${saved}`);
  }
}

/** A file written line by line as a run goes (the GC log), renamed into place at close. */
export class OutputStream {
  private readonly fd: number;
  private readonly tmp: string;

  constructor(private readonly path: string) {
    this.tmp = tempPath(path);
    this.fd = openSync(this.tmp, 'w');
  }

  write(text: string): void {
    writeSync(this.fd, text);
  }

  close(): void {
    closeSync(this.fd);
    try {
      renameSync(this.tmp, this.path);
      pendingTemps.delete(this.tmp);
    } catch (e) {
      throw new OutputWriteError(`cannot write '${this.path}': ${(e as Error).message}; the log is in ${this.tmp}`);
    }
  }
}
