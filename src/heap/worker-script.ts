/**
 * Where a worker thread's compiled module is. Under vitest the caller runs from
 * src/, but a worker thread is plain Node and loads JavaScript only: it takes
 * the build in dist/ (`npm test` builds first).
 */

import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `dist/<path>` (a path below dist/, e.g. `gc/parallel/worker.js`); `what` names it in the error when it is missing. */
export function workerScript(path: string, what: string): string {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.ts')) return existing(join(dirname(here), '..', '..', 'dist', path), what);
  // Built, this module is dist/heap/worker-script.js or part of a bundle one or
  // two folders below dist/ (the command line's, a worker thread's).
  const up = [join(dirname(here), '..'), join(dirname(here), '..', '..')];
  return existing(up.map((d) => join(d, path)).find((f) => existsSync(f)) ?? join(up[0]!, path), what);
}

function existing(script: string, what: string): string {
  if (!existsSync(script)) throw new Error(`${what} ${script} is missing: run npm run build`);
  return script;
}
