import { defineConfig } from 'vitest/config';

// Dawn's node bindings crash inside worker threads, so every test file runs in a
// forked process. GPU tests on lavapipe are slow: generous timeouts.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
