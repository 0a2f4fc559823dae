import { defineConfig } from 'vitest/config';
import { SLOW_TEST_FILES, testGlobs } from './test/slow-files.ts';
import { BASE_TEST_OPTIONS } from './vitest.config.ts';

/**
 * `npm run test:quick`: the suite without the slow files (test/slow-files.ts), two files at a time, for daily work.
 * `npm test`, which CI runs, is always the whole suite.
 */
export default defineConfig({
  test: { ...BASE_TEST_OPTIONS, include: ['test/**/*.test.ts'], exclude: testGlobs(SLOW_TEST_FILES), maxWorkers: 2 },
});
