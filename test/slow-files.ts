/**
 * The files that train, pretrain, evaluate a base, serve models, drive Chromium, pack the tarball or run an experiment
 * (seconds to minutes each on 2 cores). `npm run test:quick` leaves them out; `npm test` runs them after every other
 * file (vitest.config.ts). A file that starts training or serving belongs here.
 */
export const SLOW_TEST_FILES = [
  'test/cli/bench.test.ts',
  'test/cli/eval.test.ts',
  'test/cli/match.test.ts',
  'test/cli/pretrain.test.ts',
  'test/cli/serve.test.ts',
  'test/cli/tournament.test.ts',
  'test/cli/train-mlflow.test.ts',
  'test/cli/train-recovery.test.ts',
  'test/cli/train-tango.test.ts',
  'test/cli/train.test.ts',
  'test/cli/training/train-in-worker.test.ts',
  'test/docs/first-hour.test.ts',
  'test/engine/remote/http-runtime.test.ts',
  'test/engine/remote/kept-weights.test.ts',
  'test/engine/remote/remote-training.test.ts',
  'test/engine/remote/torch-trainer-training.test.ts',
  'test/engine/remote/trainer-api-training.test.ts',
  'test/engine/trainer/adapter-policies.test.ts',
  'test/engine/trainer/endpoint-policies.test.ts',
  'test/engine/trainer/grpo-learns.test.ts',
  'test/engine/trainer/multi-policy.test.ts',
  'test/engine/trainer/opponent-pool.test.ts',
  'test/engine/trainer/pinned-runs.test.ts',
  'test/engine/trainer/tango-training.test.ts',
  'test/engine/trainer/trainer-crash.test.ts',
  'test/engine/trainer/trainer-mlflow.test.ts',
  'test/engine/trainer/trainer.test.ts',
  'test/engine/trainer/world-training.test.ts',
  'test/examples/**',
  'test/games/agon-stacked.test.ts',
  'test/games/agon-training.test.ts',
  'test/games/tandem-stacked.test.ts',
  'test/lab/eval/cascade-eval.test.ts',
  'test/lab/eval/endpoint-players.test.ts',
  'test/lab/eval/eval-axes.test.ts',
  'test/lab/eval/solo-eval.test.ts',
  'test/lab/experiments/**',
  'test/lab/pretrain/pretrain.test.ts',
  'test/lab/tournament/adapters.test.ts',
  'test/lab/tournament/tournament.test.ts',
  'test/models/default-base.test.ts',
  'test/native/io/python-interop.test.ts',
  'test/native/real-size.test.ts',
  'test/native/torch/torch-learner.test.ts',
  'test/package/pack.test.ts',
  'test/server/model-server/model-server.test.ts',
  'test/server/page/viewer.e2e.test.ts',
  'test/server/page/world-scene.e2e.test.ts',
  'test/server/page/tool-turns.e2e.test.ts',
];

/**
 * The slow files that must have the machine to themselves, which `npm test` runs one at a time after the rest: the ones
 * that drive Chromium (a browser of several processes beside the ludus it watches, and a live match at its own pace).
 */
export const SERIAL_TEST_FILES = ['test/server/page/viewer.e2e.test.ts', 'test/server/page/world-scene.e2e.test.ts', 'test/server/page/tool-turns.e2e.test.ts'];

/** A list's entries as vitest globs: a folder (`dir/**`) stands for the test files under it. */
export const testGlobs = (patterns: readonly string[]): string[] => patterns.map((pattern) => (pattern.endsWith('/**') ? `${pattern}/*.test.ts` : pattern));

/**
 * The files that hold the trainer server's door (its token, checks, bounds, confinement, futures and logs): `npm test`
 * runs them a second time with the torch backend behind it (LUDUS_TEST_TRAINER_BACKEND=torch).
 */
export const TRAINER_DOOR_FILES = ['test/server/security.test.ts', 'test/server/security-paths.test.ts', 'test/server/security-trainer.test.ts', 'test/server/security-load.test.ts'];
