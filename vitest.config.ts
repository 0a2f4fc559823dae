import { defineConfig } from 'vitest/config';
import type { InlineConfig } from 'vitest/node';
import { SERIAL_TEST_FILES, SLOW_TEST_FILES, TRAINER_DOOR_FILES, testGlobs } from './test/slow-files.ts';

/** What every group of the suite shares (and `npm run test:quick` too). */
export const BASE_TEST_OPTIONS: InlineConfig = {
  testTimeout: 120_000,
  hookTimeout: 120_000,
  pool: 'forks',
  // One temporary directory per run, removed at its end (LUDUS_KEEP_TEST_TMP=1 keeps it for a post-mortem).
  globalSetup: ['test/support/temp-root.ts'],
};

const slow = testGlobs(SLOW_TEST_FILES);
const serial = testGlobs(SERIAL_TEST_FILES);

/**
 * `npm test`, the whole suite, in three groups run one after another. Every file runs in a process of its own, makes
 * its temporary directories under the run's (test/support/temp-root.ts) and its servers on free ports, and trains and
 * evaluates on one ORT thread unless it says otherwise, so two files at a time share nothing but the 2 cores of CI:
 *   1. the light files, two at a time;
 *   2. the slow files (test/slow-files.ts: trainings, evaluations, model servers, experiments, the tarball), two at a
 *      time;
 *   3. the files that drive Chromium, one at a time.
 * The trainer server's door files run once more in the second group, with the torch backend behind the door.
 */
export default defineConfig({
  test: {
    ...BASE_TEST_OPTIONS,
    projects: [
      { extends: true, test: { name: 'light', include: ['test/**/*.test.ts'], exclude: slow, maxWorkers: 2, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'slow', include: slow, exclude: serial, maxWorkers: 2, sequence: { groupOrder: 1 } } },
      { extends: true, test: { name: 'torch-door', include: TRAINER_DOOR_FILES, env: { LUDUS_TEST_TRAINER_BACKEND: 'torch' }, maxWorkers: 2, sequence: { groupOrder: 1 } } },
      { extends: true, test: { name: 'serial', include: serial, maxWorkers: 1, sequence: { groupOrder: 2 } } },
    ],
  },
});
