// The commit a build is made from: scripts/bundle.mjs writes it into dist/ when it
// builds, and the bench's provenance lines (bench/lib/machine.mjs) read it there,
// since a build carried to another machine is measured beside a checkout whose git
// state may be another's.
import { spawnSync } from 'node:child_process';

/** The file in dist/ that holds `{ commit }`. */
export const BUILD_INFO = 'build-info.json';

/** The checkout's short commit, with "+changes" when src/ differs from it; null outside a clone. */
export function checkoutCommit(root) {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' });
  if (head.status !== 0) return null;
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no', '--', 'src'], { cwd: root, encoding: 'utf8' });
  return `${head.stdout.trim()}${dirty.stdout.trim() ? ' (+uncommitted changes in src/)' : ''}`;
}
