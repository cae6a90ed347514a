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
  const dist = here.endsWith('.ts') ? join(dirname(here), '..', '..', 'dist') : join(dirname(here), '..');
  const script = join(dist, path);
  if (!existsSync(script)) throw new Error(`${what} ${script} is missing: run npm run build`);
  return script;
}
