/**
 * Node's worker_threads module, loaded at its first use: a run whose collector
 * starts no thread (serial, none) never loads it (docs/decisions/s58-02-commonjs-launcher.md).
 */

import { createRequire } from 'node:module';

type WorkerThreads = typeof import('node:worker_threads');

let loaded: WorkerThreads | null = null;

export function workerThreads(): WorkerThreads {
  return (loaded ??= createRequire(import.meta.url)('node:worker_threads') as WorkerThreads);
}
