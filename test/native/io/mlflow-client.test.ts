import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { logBatches, MLFLOW_BATCH_LIMITS, MlflowClient, mlflowKey, mlflowValue, type MlflowMetric } from '../../../native/io/mlflow-client.ts';
import { startMlflowStandIn, type MlflowStandIn } from '../../support/mlflow-server.ts';

const metricsOf = (n: number, step = 1): MlflowMetric[] => Array.from({ length: n }, (_, i) => ({ key: `role/senior/m${i}`, value: i / 7, timestamp: 1_700_000_000_000 + i, step }));
const paramsOf = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `knobs.k${i}`, value: String(i) }));

describe('MLflow client', () => {
  let server: MlflowStandIn;
  beforeEach(async () => {
    server = await startMlflowStandIn();
  });
  afterEach(async () => {
    await server.close();
  });

  describe('having more than a LogBatch request may hold', () => {
    it('should split into bodies within every limit of service.proto, keeping the order and losing nothing', () => {
      const metrics = metricsOf(2345);
      const params = paramsOf(130);
      const batches = logBatches({ metrics, params, tags: [{ key: 'ludus.game', value: 'tandem' }] });
      for (const batch of batches) {
        expect(batch.metrics.length).toBeLessThanOrEqual(MLFLOW_BATCH_LIMITS.metrics);
        expect(batch.params.length).toBeLessThanOrEqual(MLFLOW_BATCH_LIMITS.params);
        expect(batch.tags.length).toBeLessThanOrEqual(MLFLOW_BATCH_LIMITS.tags);
        expect(batch.metrics.length + batch.params.length + batch.tags.length).toBeLessThanOrEqual(MLFLOW_BATCH_LIMITS.entities);
      }
      expect(batches.flatMap((b) => b.metrics)).toEqual(metrics);
      expect(batches.flatMap((b) => b.params)).toEqual(params);
      expect(batches).toHaveLength(3);
    });

    it('should log them all through the stand-in server, one request per body, none refused', async () => {
      const client = new MlflowClient(server.url, { timeoutMs: 5000 });
      const experimentId = await client.experimentId('split');
      const runId = await client.createRun({ experimentId, runName: 'r', startTime: Date.now(), tags: [] });
      await client.logBatch(runId, { metrics: metricsOf(2345), params: paramsOf(130) });
      expect(server.violations).toEqual([]);
      expect(server.requests.filter((r) => r.path.endsWith('/runs/log-batch'))).toHaveLength(3);
      const run = server.runs.get(runId)!;
      expect(run.metrics).toHaveLength(2345);
      expect(run.params.size).toBe(130);
    });
  });

  describe('having an experiment name', () => {
    it('should create the experiment when it is missing and find it the next time', async () => {
      const client = new MlflowClient(`${server.url}/`, { timeoutMs: 5000, authorization: 'Bearer t0k' });
      const first = await client.experimentId('ludus tandem');
      expect(await client.experimentId('ludus tandem')).toBe(first);
      expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        'GET /api/2.0/mlflow/experiments/get-by-name',
        'POST /api/2.0/mlflow/experiments/create',
        'GET /api/2.0/mlflow/experiments/get-by-name',
      ]);
      expect(server.requests.map((r) => r.authorization)).toEqual(['Bearer t0k', 'Bearer t0k', 'Bearer t0k']);
      expect(server.violations).toEqual([]);
    });
  });

  describe('having a server that refuses', () => {
    it("should fail with TRACKING_FAILED naming the request, the status and MLflow's error code", async () => {
      const client = new MlflowClient(server.url, { timeoutMs: 5000 });
      const runId = await client.createRun({ experimentId: await client.experimentId('e'), runName: 'r', startTime: Date.now(), tags: [] });
      server.failing = 'runs/log-batch';
      const error = await client.logBatch(runId, { metrics: metricsOf(1) }).catch((e: unknown) => e);
      expect(LudusError.is(error, 'TRACKING_FAILED')).toBe(true);
      expect((error as LudusError).message).toContain(`POST ${server.url}/api/2.0/mlflow/runs/log-batch was refused with HTTP 500 (INTERNAL_ERROR`);
      expect((error as LudusError).details).toMatchObject({ status: 500, errorCode: 'INTERNAL_ERROR' });
    });
  });

  describe('the stand-in server itself', () => {
    it("should refuse what service.proto and MLflow's validation refuse, so a client's mistakes show", async () => {
      const post = (path: string, body: unknown) => fetch(`${server.url}/api/2.0/mlflow/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const { experiment_id } = (await (await post('experiments/create', { name: 'e' })).json()) as { experiment_id: string };
      const { run } = (await (await post('runs/create', { experiment_id })).json()) as { run: { info: { run_id: string } } };
      const runId = run.info.run_id;
      const refused = [
        await post('runs/log-batch', { run_id: runId, metrics: metricsOf(1001) }),
        await post('runs/log-batch', { run_id: runId, params: paramsOf(101) }),
        await post('runs/log-batch', { run_id: runId, params: [{ key: 'p', value: 'v'.repeat(251) }] }),
        await post('runs/log-batch', { run_id: runId, metrics: [{ key: 'm', value: '1', timestamp: 1, step: 1 }] }),
        await post('runs/log-batch', { run_id: runId, metrics: [{ name: 'm', value: 1, timestamp: 1 }] }),
        await post('runs/log-batch', { run_id: runId, metrics: [{ key: 'a/../b', value: 1, timestamp: 1 }] }),
        await post('runs/update', { run_id: runId, status: 'DONE' }),
        await post('experiments/create', {}),
        await post('runs/log', { run_id: runId }),
      ];
      expect(refused.map((r) => r.status)).toEqual([400, 400, 400, 400, 400, 400, 400, 400, 404]);
      expect(server.violations).toHaveLength(9);
    });
  });

  describe('having names and values MLflow would refuse', () => {
    it("should make keys MLflow's name rule accepts and cut values to its limit", () => {
      expect(mlflowKey('role/senior/kl_to_junior')).toBe('role/senior/kl_to_junior');
      expect(mlflowKey('policy/gen@3/loss')).toBe('policy/gen_3/loss');
      expect(mlflowKey('/a//../b/')).toBe('a/__/b');
      expect(mlflowKey('x'.repeat(300))).toHaveLength(MLFLOW_BATCH_LIMITS.keyLength);
      expect(mlflowValue('v'.repeat(300))).toHaveLength(MLFLOW_BATCH_LIMITS.valueLength);
      expect(mlflowValue('short')).toBe('short');
    });
  });
});
