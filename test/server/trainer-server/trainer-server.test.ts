import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { Rng } from '../../../core/rng.ts';
import { RemoteLearner } from '../../../engine/remote/remote-learner.ts';
import { TrainerServerSchema } from '../../../engine/remote/remote-config.ts';
import { datumsOf, TrainerClient } from '../../../engine/remote/trainer-client.ts';
import { fingerprint, TRAINER_API } from '../../../engine/remote/trainer-wire.ts';
import type { LearnBatch } from '../../../native/train/learner.ts';
import { resolveModelDir } from '../../../plugins/policies/default-model.ts';
import { loadPolicy } from '../../../plugins/policies/load-policy.ts';
import { startTrainerServer, type TrainerServer } from '../../../server/trainer-server/trainer-server.ts';
import { authorized, TEST_TOKEN, useTestToken } from '../../support/server-token.ts';

useTestToken();

const LEARNER = { objective: 'policy-gradient' as const, optimizer: { lr: 1e-3 } };

/** A policy-gradient batch of random tokens for a vocabulary of `vocab`, every position after the first two trained. */
function batchOf(vocab: number, rows: number, cols: number, seed: number): LearnBatch {
  const rng = new Rng(seed);
  const n = rows * cols;
  const ids = Int32Array.from({ length: n }, () => rng.int(vocab));
  return {
    rows,
    cols,
    inputIds: ids,
    targets: Int32Array.from({ length: n }, () => rng.int(vocab)),
    lossMask: Float32Array.from({ length: n }, (_, i) => (i % cols >= 2 ? 1 : 0)),
    advantages: Float32Array.from({ length: rows }, () => rng.normal()),
    oldLogprobs: Float32Array.from({ length: n }, () => -1 - rng.next()),
  };
}

/**
 * A proxy in front of the trainer server that forwards every request and spoils the answer to the first `spoil`
 * requests to a path (a 500, a body cut short into malformed JSON, or a connection dropped mid-response): the server
 * did the work, the client never heard.
 */
async function faultyProxy(target: string, path: string, fault: '500' | 'malformed' | 'drop', spoil: number): Promise<{ url: string; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const spoiled = req.url === path && hits++ < spoil;
      const upstream = httpRequest(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        if (!spoiled) {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          return void answer.pipe(res);
        }
        answer.resume();
        answer.on('end', () => {
          if (fault === '500') return void res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"boom"}}');
          if (fault === 'malformed') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"request_id": "');
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
          res.write('{"request_');
          res.destroy();
        });
      });
      upstream.on('error', () => res.destroy());
      upstream.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: () => hits,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

async function post(url: string, op: string, body: string): Promise<{ status: number; json: { error?: { code: string; param: string | null } } }> {
  const response = await fetch(`${url}${TRAINER_API}/${op}`, { method: 'POST', body, headers: authorized({ 'content-type': 'application/json' }) });
  return { status: response.status, json: (await response.json()) as { error?: { code: string; param: string | null } } };
}

describe('ludus serve-trainer (the trainer API) and its client', () => {
  let server: TrainerServer;
  let vocab: number;
  const config = (url: string, overrides: object = {}) => TrainerServerSchema.parse({ url, timeoutMs: 10_000, retries: 2, backoffMs: 5, ...overrides });

  beforeAll(async () => {
    server = await startTrainerServer({ host: '127.0.0.1', port: 0, threads: 1, task: 'arithmetic', token: TEST_TOKEN });
    vocab = (await loadPolicy(resolveModelDir('default', 'arithmetic'))).policy.config.vocabSize;
  }, 60_000);

  afterAll(async () => {
    await server.close();
  });

  const created = async (client: TrainerClient) => (await client.createModel({ baseModel: 'default', task: 'arithmetic', learner: LEARNER })).model_id;

  describe('having malformed requests', () => {
    it('should answer 400 REQUEST_INVALID naming the field, 404 for an unknown model, and run nothing', async () => {
      const client = new TrainerClient(config(server.url));
      const model = await created(client);
      const before = (await client.saveWeightsForSampler(model, 'before', false)).fingerprint;
      const datum = datumsOf(batchOf(vocab, 1, 6, 1))[0];
      const short = { ...datum, loss_fn_inputs: { ...datum.loss_fn_inputs, logprobs: datum.loss_fn_inputs.logprobs!.slice(1) } };
      const cases: [string, string, number, string, string | null][] = [
        ['forward_backward', '{"request_id": "a", "model_id":', 400, 'REQUEST_INVALID', null],
        ['forward_backward', JSON.stringify({ request_id: 'b', model_id: model, data: [short], loss_fn: 'ppo' }), 400, 'REQUEST_INVALID', 'data.0.loss_fn_inputs.logprobs'],
        ['forward_backward', JSON.stringify({ request_id: 'c', model_id: model, data: [datum], loss_fn: 'cross_entropy' }), 400, 'REQUEST_INVALID', 'loss_fn'],
        ['forward_backward', JSON.stringify({ request_id: 'd', model_id: model, data: [], loss_fn: 'ppo' }), 400, 'REQUEST_INVALID', 'data'],
        ['optim_step', JSON.stringify({ request_id: 'e', model_id: 'nobody' }), 404, 'MODEL_NOT_SERVED', 'model_id'],
        ['create_model', JSON.stringify({ request_id: 'f', base_model: 'default', learner: { clipLow: 2 } }), 400, 'CONFIG_INVALID', null],
        ['retrieve_future', JSON.stringify({ request_id: 'never-submitted' }), 400, 'REQUEST_INVALID', 'request_id'],
        ['load_state', JSON.stringify({ request_id: 'g', model_id: model, weights: {}, optimizer: { step: 0, m: {}, v: {} } }), 400, 'REQUEST_INVALID', null],
      ];
      for (const [op, body, status, code, param] of cases) {
        const answer = await post(server.url, op, body);
        expect({ op, status: answer.status, code: answer.json.error?.code }).toEqual({ op, status, code });
        if (param !== null) expect(answer.json.error?.param).toBe(param);
      }
      const after = await client.saveWeightsForSampler(model, 'after', false);
      expect(after.fingerprint).toBe(before);
      expect(after.step).toBe(0);
      await client.unloadModel(model);
    });
  });

  describe('having a call that fails on the server', () => {
    it('should raise its code at the client (NON_FINITE for an advantage beyond float32) and leave the policy\'s weights here and there as they were', async () => {
      const { policy } = await loadPolicy(resolveModelDir('default', 'arithmetic'));
      const learner = await RemoteLearner.open(config(server.url), { policy, baseModel: 'default', task: 'arithmetic', learner: LEARNER });
      const before = fingerprint(policy.weights);
      const batch = batchOf(vocab, 2, 6, 2);
      // Finite in JSON, infinite once the server's learner reads it as float32: the server's own NON_FINITE.
      const error = await learner.step({ ...batch, advantages: Array.from({ length: 12 }, (_, i) => (i === 3 ? 1e39 : 1)) }).catch((e: unknown) => e);
      expect(String(error)).toContain('trainer server, optim_step');
      expect(LudusError.is(error, 'NON_FINITE')).toBe(true);
      expect(fingerprint(policy.weights)).toBe(before);
      // A value JSON cannot carry at all is refused here, as the in-process learner refuses its update.
      const local = await learner.step({ ...batch, advantages: Float32Array.of(Number.POSITIVE_INFINITY, 1) }).catch((e: unknown) => e);
      expect(LudusError.is(local, 'NON_FINITE')).toBe(true);
      // The next step trains from here as a fresh learner would: the refused update's gradients are gone.
      const stats = await learner.step(batch);
      expect(stats.step).toBe(1);
      expect(fingerprint(policy.weights)).not.toBe(before);
      await learner.release();
    });
  });

  describe('having transport failures before the server answers', () => {
    for (const fault of ['500', 'malformed', 'drop'] as const) {
      it(`should retry a forward_backward whose answer was spoiled by ${fault === '500' ? 'a 500' : fault === 'malformed' ? 'malformed JSON' : 'a dropped connection'} after the server took it, and run it once (its request id), as the unspoiled call does`, async () => {
        const direct = new TrainerClient(config(server.url));
        const proxy = await faultyProxy(server.url, `${TRAINER_API}/forward_backward`, fault, 1);
        const spoiled = new TrainerClient(config(proxy.url));
        try {
          const data = datumsOf(batchOf(vocab, 2, 6, 3));
          const [a, b] = [await created(direct), await created(spoiled)];
          await direct.forwardBackward(a, data, {});
          const spoiledSums = await spoiled.forwardBackward(b, data, {});
          expect(proxy.hits()).toBe(2);
          const [stepA, stepB] = [await direct.optimStep(a), await spoiled.optimStep(b)];
          // Run twice, the spoiled call would have accumulated twice the gradient.
          expect(stepB.grad_norm).toBe(stepA.grad_norm);
          expect(spoiledSums.micro_batches).toBe(1);
          for (const model of [a, b]) await direct.unloadModel(model);
        } finally {
          await proxy.close();
        }
      });
    }

    it('should fail with REMOTE_UNAVAILABLE once every attempt is spoiled, the policy\'s weights untouched', async () => {
      const { policy } = await loadPolicy(resolveModelDir('default', 'arithmetic'));
      const proxy = await faultyProxy(server.url, `${TRAINER_API}/optim_step`, '500', 1_000);
      try {
        const learner = await RemoteLearner.open(config(proxy.url, { retries: 1 }), { policy, baseModel: 'default', task: 'arithmetic', learner: LEARNER });
        const before = fingerprint(policy.weights);
        const error = await learner.step(batchOf(vocab, 2, 6, 4)).catch((e: unknown) => e);
        expect(LudusError.is(error, 'REMOTE_UNAVAILABLE')).toBe(true);
        expect(proxy.hits()).toBe(2);
        expect(fingerprint(policy.weights)).toBe(before);
      } finally {
        await proxy.close();
      }
    });

    it('should refuse to start with REMOTE_UNAVAILABLE when no server answers', async () => {
      const { policy } = await loadPolicy(resolveModelDir('default', 'arithmetic'));
      const gone = await faultyProxy(server.url, '/', '500', 0);
      const url = gone.url;
      await gone.close();
      const error = await RemoteLearner.open(config(url, { retries: 0 }), { policy, baseModel: 'default', task: 'arithmetic', learner: LEARNER }).catch((e: unknown) => e);
      expect(LudusError.is(error, 'REMOTE_UNAVAILABLE')).toBe(true);
    });
  });

  describe('having a LoRA model', () => {
    it('should answer save_weights_for_sampler with the adapter\'s tensors alone and write a PEFT adapter directory', async () => {
      const client = new TrainerClient(config(server.url));
      const { model_id: model } = await client.createModel({ baseModel: 'default', task: 'arithmetic', lora: { rank: 2, alpha: 4, targetModules: ['q_proj', 'v_proj'], initStdB: 0, seed: 7 }, learner: LEARNER });
      const saved = await client.saveWeightsForSampler(model, 'adapter', true);
      const names = Object.keys(saved.weights!);
      expect(names.length).toBeGreaterThan(0);
      expect(names.every((name) => /\.(q_proj|v_proj)\.lora_[AB]\.weight$/.test(name))).toBe(true);
      const { readdir } = await import('node:fs/promises');
      expect((await readdir(saved.path)).sort()).toEqual(['adapter_config.json', 'adapter_model.safetensors']);
      await client.unloadModel(model);
    });
  });
});
