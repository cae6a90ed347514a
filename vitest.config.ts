import { defineConfig } from 'vitest/config';
import { testCacheDir } from './test/cache-folder.js';

// Each test file runs in a forked process of its own (vitest's default pool, kept
// explicit), so a GPU suite's Dawn device and lavapipe's threads end with its file.
// Dawn runs in worker threads too: the CLI runs its device in one.
// GPU tests on lavapipe are slow: generous timeouts.
// The `minivm` processes the tests start keep their compile cache in a folder of
// this test run (test/cache-folder.ts).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    env: { MINIVM_CACHE_DIR: testCacheDir() },
    globalSetup: ['test/cache-folder.ts'],
  },
});
