import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composePlugins } from '../../../composition/compose.ts';
import { advantageFor, gameFor } from '../../../engine/trainer/run-pieces.ts';
import { train } from '../../../engine/trainer/trainer.ts';
import { startMlflowStandIn, type MlflowStandIn } from '../../support/mlflow-server.ts';
import { runTraining, tinyConfig } from '../../support/training.ts';

describe('the trainer, tracked by MLflow', () => {
  let server: MlflowStandIn;
  const tracked = (experiment: string) => tinyConfig({ steps: 2, groupSize: 2, maxNewTokens: 48, tracking: { mlflow: { uri: server.url, experiment } } });
  const runOf = (experiment: string) => [...server.runs.values()].find((run) => run.experimentId === server.experiments.get(experiment));
  beforeAll(async () => {
    server = await startMlflowStandIn();
  });
  afterAll(async () => {
    await server.close();
  });

  describe('having the run stopped after its first step (what Ctrl-C and SIGTERM do)', () => {
    it('should end the MLflow run KILLED, with the step it took', async () => {
      const stop = new AbortController();
      const { result } = await runTraining(tracked('stopped'), { stop: stop.signal, onStep: () => stop.abort() });
      expect(result.stopped).toBe(true);
      const run = runOf('stopped');
      expect(run?.status).toBe('KILLED');
      expect(new Set(run?.metrics.map((m) => m.step))).toEqual(new Set([1]));
      expect(server.violations).toEqual([]);
    });
  });

  describe("having the game's reward rule throw", () => {
    it('should end the MLflow run FAILED and still throw the error', async () => {
      const config = tracked('failed');
      const catalog = await composePlugins();
      const game = gameFor(catalog, config);
      const broken = { ...game, rewards: () => { throw new Error('broken on purpose'); } } as typeof game;
      const out = await mkdtemp(join(tmpdir(), 'ludus-train-'));
      await expect(train({ out, config, game: broken, advantage: advantageFor(catalog, config), threads: 1 })).rejects.toThrow(/broken on purpose/);
      expect(runOf('failed')?.status).toBe('FAILED');
      expect(server.violations).toEqual([]);
    });
  });
});
