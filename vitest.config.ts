import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // One temporary directory per run, removed at its end (LUDUS_KEEP_TEST_TMP=1 keeps it for a post-mortem).
    globalSetup: ['test/support/temp-root.ts'],
  },
});
