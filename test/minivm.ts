/**
 * The real `minivm` binary as a child process, for the tests that check what a
 * user sees (exit status, stdout, stderr), and programs written for it to a
 * temporary folder removed after the tests that use it.
 */

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, onTestFinished } from 'vitest';

export interface ChildRun {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs bin/minivm.js with `args` to its end (killed after `timeout` ms if given); `env` adds to this process's environment. */
export function minivm(args: string[], options: { env?: Record<string, string>; timeout?: number } = {}): ChildRun {
  const r = spawnSync(process.execPath, ['bin/minivm.js', ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...options.env },
    timeout: options.timeout,
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** A fresh temporary folder named from `prefix`, and `program`, which writes a source file into it and returns its path. */
export function scratch(prefix: string): { dir: string; program: (name: string, text: string) => string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const remove = (): void => rmSync(dir, { recursive: true, force: true });
  // Made in a test, the folder goes when the test ends; made at a file's top
  // level (where onTestFinished throws), when the file's tests have run.
  try {
    onTestFinished(remove);
  } catch {
    afterAll(remove);
  }
  return {
    dir,
    program(name, text) {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    },
  };
}
