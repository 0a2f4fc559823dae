import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.ts';

/**
 * `npm run test:quick`: the suite without the files that train, pretrain, evaluate a base, serve models, drive
 * Chromium, pack the tarball or run an experiment (minutes each on 2 cores), for daily work. `npm test`, which CI
 * runs, is always the whole suite. A file that starts training or serving belongs in this list.
 */
export const SLOW_TEST_FILES = [
  'test/cli/bench.test.ts',
  'test/cli/eval.test.ts',
  'test/cli/match.test.ts',
  'test/cli/pretrain.test.ts',
  'test/cli/serve.test.ts',
  'test/cli/tournament.test.ts',
  'test/cli/train-recovery.test.ts',
  'test/cli/train-tango.test.ts',
  'test/cli/train.test.ts',
  'test/cli/training/train-in-worker.test.ts',
  'test/docs/first-hour.test.ts',
  'test/engine/remote/http-runtime.test.ts',
  'test/engine/remote/remote-training.test.ts',
  'test/engine/remote/trainer-api-training.test.ts',
  'test/engine/trainer/adapter-policies.test.ts',
  'test/engine/trainer/grpo-learns.test.ts',
  'test/engine/trainer/multi-policy.test.ts',
  'test/engine/trainer/pinned-runs.test.ts',
  'test/engine/trainer/tango-training.test.ts',
  'test/engine/trainer/trainer-crash.test.ts',
  'test/engine/trainer/trainer.test.ts',
  'test/examples/**',
  'test/games/agon-stacked.test.ts',
  'test/games/agon-training.test.ts',
  'test/games/tandem-stacked.test.ts',
  'test/lab/eval/cascade-eval.test.ts',
  'test/lab/eval/eval-axes.test.ts',
  'test/lab/eval/solo-eval.test.ts',
  'test/lab/experiments/**',
  'test/lab/pretrain/pretrain.test.ts',
  'test/lab/tournament/adapters.test.ts',
  'test/lab/tournament/tournament.test.ts',
  'test/models/default-base.test.ts',
  'test/native/io/python-interop.test.ts',
  'test/native/real-size.test.ts',
  'test/package/pack.test.ts',
  'test/server/model-server/model-server.test.ts',
  'test/server/page/viewer.e2e.test.ts',
];

export default mergeConfig(base, defineConfig({ test: { exclude: [...SLOW_TEST_FILES, 'node_modules/**'] } }));
