// The compile cache folder of a test run: the `minivm` processes the tests start
// keep their cache there (vitest.config.ts), not in the user's; vitest's global
// set-up removes it once every test file has run. Config and set-up both run in
// vitest's main process, so its pid names the folder.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const testCacheDir = (): string => join(tmpdir(), `minivm-test-cache-${process.pid}`);

export function setup(): () => void {
  return () => rmSync(testCacheDir(), { recursive: true, force: true });
}
