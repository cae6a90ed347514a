/**
 * node:child_process, loaded when a command first starts a child rather than at
 * every start: it pulls in streams, sockets and more, and most runs start no
 * child. A require, because the CLI bundle runs as a script, which has no
 * dynamic import.
 */

import { createRequire } from 'node:module';

let loaded: typeof import('node:child_process') | null = null;

export function childProcess(): typeof import('node:child_process') {
  loaded ??= createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
  return loaded;
}
