/**
 * Where a comparison's numbers came from: minivm's version and commit, Node, the
 * machine, the options and the GPU adapter, written into `compare --json` and the
 * report so that a figure can be traced and rerun.
 */

import { cpus, totalmem, release, platform, arch } from 'node:os';
import { fileURLToPath } from 'node:url';
import { childProcess } from './child-process.js';
import { version } from './help.js';

export interface Provenance {
  version: string;
  /** The git commit of minivm's folder, with `-dirty` when it has changes; null outside a clone. */
  commit: string | null;
  node: string;
  os: string;
  cpu: string;
  cores: number;
  memoryBytes: number;
  /** The command line after `minivm`. */
  argv: string[];
  /** `fresh process` (each run its own `minivm run`) or `in process`. */
  mode: string;
  warmup: number;
  heapBytes: number;
  /** The GPU adapter of the GPU runs, when any ran. */
  adapter: string | null;
  date: string;
}

function gitCommit(): string | null {
  const dir = fileURLToPath(new URL('../..', import.meta.url));
  try {
    const { execFileSync } = childProcess();
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return dirty === '' ? head : `${head}-dirty`;
  } catch {
    return null;
  }
}

export function provenance(fields: Pick<Provenance, 'argv' | 'mode' | 'warmup' | 'heapBytes' | 'adapter'>): Provenance {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown';
  return {
    version: version(),
    commit: gitCommit(),
    node: process.version,
    os: `${platform()} ${release()} ${arch()}`,
    cpu,
    cores: cpus().length,
    memoryBytes: totalmem(),
    ...fields,
    date: new Date().toISOString(),
  };
}
