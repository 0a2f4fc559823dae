import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { configParams, MAX_PENDING_METRICS, MLFLOW_RUN_FILE, MlflowRunLog, mlflowTarget, type MlflowTarget } from '../../../engine/trainer/mlflow-run-log.ts';
import { MlflowTrackingSchema } from '../../../engine/trainer/tracking-config.ts';
import { TrainConfigSchema } from '../../../engine/trainer/train-config.ts';
import { startMlflowStandIn, type MlflowStandIn } from '../../support/mlflow-server.ts';

const config = TrainConfigSchema.parse({ game: 'tandem', seed: 7, knobs: { p: 0.5 }, schedule: { lr: 3e-4 }, task: `/data/${'t'.repeat(300)}.jsonl`, tracking: { mlflow: { uri: 'http://127.0.0.1:1' } } });
const targetOf = (uri: string, timeoutMs = 5000): MlflowTarget => ({ uri, experiment: 'ludus-test', runName: 'run-a', timeoutMs });
const outDir = () => mkdtemp(join(tmpdir(), 'ludus-mlflow-'));
const collector = () => {
  const warnings: string[] = [];
  return { warnings, warn: (message: string) => void warnings.push(message) };
};

/** Resolves once `done` holds (checked every 10 ms). */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** A server that takes connections and never answers. */
async function silentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(() => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) };
}

describe('MLflow run log', () => {
  let server: MlflowStandIn;
  beforeEach(async () => {
    server = await startMlflowStandIn();
  });
  afterEach(async () => {
    await server.close();
  });

  describe('having a run started, three steps logged and the run finished, then resumed and stopped', () => {
    it('should create one run with its params and tags, log every step, end it FINISHED, and on resume continue it and end it KILLED', async () => {
      const out = await outDir();
      const first = MlflowRunLog.start(targetOf(server.url), { out, game: 'tandem', config, resuming: false });
      for (const step of [1, 2, 3]) first.metrics(step, { seconds: step, 'role/senior/reward_mean': step / 10, 'role/senior/nan': Number.NaN });
      await first.close('FINISHED');
      expect(server.violations).toEqual([]);
      const [run] = [...server.runs.values()];
      expect(server.runs.size).toBe(1);
      expect(run).toMatchObject({ runName: 'run-a', status: 'FINISHED' });
      expect(run.endTime).toBeGreaterThan(0);
      expect(run.metrics.filter((m) => m.key === 'role/senior/reward_mean').map((m) => [m.step, m.value])).toEqual([[1, 0.1], [2, 0.2], [3, 0.3]]);
      expect(run.metrics.some((m) => m.key === 'role/senior/nan')).toBe(false);
      expect(run.params.get('seed')).toBe('7');
      expect(run.params.get('knobs.p')).toBe('0.5');
      expect(run.params.get('schedule.lr')).toBe('0.0003');
      expect(run.params.get('task')).toHaveLength(250);
      expect([...run.params.keys()].some((key) => key.startsWith('tracking'))).toBe(false);
      expect(Object.fromEntries(run.tags)).toMatchObject({ 'ludus.game': 'tandem', 'ludus.seed': '7' });
      expect(JSON.parse(await readFile(join(out, MLFLOW_RUN_FILE), 'utf8'))).toEqual({ uri: server.url, experiment_id: run.experimentId, run_id: run.runId });

      const resumed = MlflowRunLog.start(targetOf(server.url), { out, game: 'tandem', config: { ...config, steps: 50 }, resuming: true });
      resumed.metrics(4, { seconds: 4 });
      await resumed.close('KILLED');
      expect(server.runs.size).toBe(1);
      expect(run.status).toBe('KILLED');
      expect(run.metrics.filter((m) => m.key === 'seconds').map((m) => m.step)).toEqual([1, 2, 3, 4]);
      const statuses = server.requests.filter((r) => r.path.endsWith('/runs/update')).map((r) => r.body.status);
      expect(statuses).toEqual(['FINISHED', 'RUNNING', 'KILLED']);
      expect(server.violations).toEqual([]);
    });
  });

  describe('having a tracking server that is down', () => {
    it('should warn once with TRACKING_FAILED and send nothing more', async () => {
      const { url } = server;
      await server.close();
      const { warnings, warn } = collector();
      const log = MlflowRunLog.start(targetOf(url), { out: await outDir(), game: 'tandem', config, resuming: false }, warn);
      for (const step of [1, 2, 3]) log.metrics(step, { seconds: 1 });
      await log.close('FINISHED');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('[TRACKING_FAILED]');
      expect(warnings[0]).toContain(`GET ${url}/api/2.0/mlflow/experiments/get-by-name`);
      expect(warnings[0]).toContain('Training goes on');
      server = await startMlflowStandIn();
    });
  });

  describe('having a tracking server that refuses a LogBatch mid-run', () => {
    it('should warn once, naming the refusal, and stop sending', async () => {
      const { warnings, warn } = collector();
      const log = MlflowRunLog.start(targetOf(server.url), { out: await outDir(), game: 'tandem', config, resuming: false }, warn);
      log.metrics(1, { seconds: 1 });
      await until(() => [...server.runs.values()].some((run) => run.metrics.length > 0));
      server.failing = 'runs/log-batch';
      for (const step of [2, 3, 4]) log.metrics(step, { seconds: step });
      await log.close('FINISHED');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('log-batch was refused with HTTP 500 (INTERNAL_ERROR');
      const logged = server.requests.filter((r) => r.path.endsWith('/runs/log-batch')).length;
      // The params, the first step, and one refused batch (steps 2-4 wait together); nothing after it, not even the end status.
      expect(logged).toBe(3);
      expect(server.requests.filter((r) => r.path.endsWith('/runs/update'))).toHaveLength(0);
    });
  });

  describe('having a tracking server that never answers', () => {
    it('should give up after the timeout with one warning, and hold at most MAX_PENDING_METRICS meanwhile', async () => {
      const silent = await silentServer();
      try {
        const { warnings, warn } = collector();
        const log = MlflowRunLog.start(targetOf(silent.url, 300), { out: await outDir(), game: 'tandem', config, resuming: false }, warn);
        const began = performance.now();
        await log.close('FINISHED');
        expect(performance.now() - began).toBeLessThan(5000);
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toContain('no answer within 300 ms');

        const flooded = collector();
        const slow = MlflowRunLog.start(targetOf(silent.url, 60_000), { out: await outDir(), game: 'tandem', config, resuming: false }, flooded.warn);
        slow.metrics(1, Object.fromEntries(Array.from({ length: MAX_PENDING_METRICS + 1 }, (_, i) => [`m${i}`, i])));
        slow.metrics(2, { seconds: 1 });
        expect(flooded.warnings).toHaveLength(1);
        expect(flooded.warnings[0]).toContain(`at most ${MAX_PENDING_METRICS}`);
      } finally {
        await silent.close();
      }
    });
  });

  describe('resolving where to log', () => {
    it("should take the config's URL, else MLFLOW_TRACKING_URI, and name the experiment and the run by default", () => {
      const settings = MlflowTrackingSchema.parse({});
      expect(mlflowTarget(settings, { game: 'tango', out: '/runs/t1' }, { MLFLOW_TRACKING_URI: 'http://mlflow:5000', MLFLOW_TRACKING_TOKEN: 'secret' })).toEqual({
        uri: 'http://mlflow:5000',
        experiment: 'tango',
        runName: 't1',
        authorization: 'Bearer secret',
        timeoutMs: 5000,
      });
      const basic = mlflowTarget(settings, { game: 'tango', out: 'o' }, { MLFLOW_TRACKING_URI: 'http://m:5000', MLFLOW_TRACKING_USERNAME: 'ann', MLFLOW_TRACKING_PASSWORD: 'pw' });
      expect(basic.authorization).toBe(`Basic ${Buffer.from('ann:pw').toString('base64')}`);
      const own = MlflowTrackingSchema.parse({ uri: 'https://tracking.example', experiment: 'mine', runName: 'r' });
      expect(mlflowTarget(own, { game: 'tango', out: '/runs/t1' }, { MLFLOW_TRACKING_URI: 'http://other:5000', MLFLOW_EXPERIMENT_NAME: 'theirs' })).toMatchObject({ uri: 'https://tracking.example', experiment: 'mine', runName: 'r' });
      expect(mlflowTarget(settings, { game: 'tango', out: '/runs/t1' }, { MLFLOW_TRACKING_URI: 'http://m:5000', MLFLOW_EXPERIMENT_NAME: 'theirs' }).experiment).toBe('theirs');
    });

    it('should refuse with CONFIG_INVALID a run with no server, or with a store that is not an HTTP server', () => {
      const settings = MlflowTrackingSchema.parse({});
      const failure = (env: NodeJS.ProcessEnv) => {
        try {
          mlflowTarget(settings, { game: 'tango', out: 'o' }, env);
        } catch (error) {
          return error as LudusError;
        }
        throw new Error('no error');
      };
      const none = failure({});
      expect(LudusError.is(none, 'CONFIG_INVALID')).toBe(true);
      expect(none.message).toContain('set tracking.mlflow.uri');
      const local = failure({ MLFLOW_TRACKING_URI: 'file:./mlruns' });
      expect(LudusError.is(local, 'CONFIG_INVALID')).toBe(true);
      expect(local.message).toContain('MLFLOW_TRACKING_URI is "file:./mlruns"');
    });

    it('should refuse in the schema a URL that is not http(s) and a field tracking.mlflow does not have', () => {
      expect(TrainConfigSchema.safeParse({ game: 'tandem', tracking: { mlflow: { uri: 'ftp://host/x' } } }).success).toBe(false);
      expect(TrainConfigSchema.safeParse({ game: 'tandem', tracking: { mlflow: { experimentName: 'x' } } }).success).toBe(false);
      expect(TrainConfigSchema.safeParse({ game: 'tandem', tracking: { wandb: {} } }).success).toBe(false);
    });
  });

  describe('configParams', () => {
    it('should flatten nested fields to dotted keys, give other values as JSON, and leave tracking out', () => {
      const params = Object.fromEntries(configParams({ steps: 3, schedule: { lr: 0.1, kind: 'constant' }, plugins: ['a.ts'], microBatchRows: undefined, trainerServer: null, tracking: { mlflow: {} } }).map((p) => [p.key, p.value]));
      expect(params).toEqual({ steps: '3', 'schedule.lr': '0.1', 'schedule.kind': 'constant', plugins: '["a.ts"]', trainerServer: 'null' });
    });
  });
});
