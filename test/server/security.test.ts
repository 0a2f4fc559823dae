import { request as httpRequest } from 'node:http';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../core/rng.ts';
import { TRAINER_API } from '../../engine/remote/trainer-wire.ts';
import { saveCheckpoint } from '../../native/io/checkpoint.ts';
import { resolveModelDir } from '../../plugins/policies/default-model.ts';
import { loadPolicy } from '../../plugins/policies/load-policy.ts';
import { startModelServer, type ModelServer } from '../../server/model-server/model-server.ts';
import { startTrainerServer, type TrainerServer } from '../../server/trainer-server/trainer-server.ts';
import { runLudus } from '../support/cli.ts';
import { JSON_HEADERS, post, raw, spawned, type RawAnswer } from '../support/raw-http.ts';
import { authorized, TEST_TOKEN } from '../support/server-token.ts';
import { trainerBackendFlags, trainerEngine } from '../support/trainer-backend.ts';

/**
 * Streams `bytes` of body from one reused 64 KiB buffer (nothing of that size is ever held here), with a declared
 * length or chunked, and resolves with the answer and the process's peak RSS growth while it ran.
 */
async function streamed(url: string, path: string, bytes: number, declared: boolean): Promise<{ status: number; code?: string; peakGrowth: number }> {
  const target = new URL(url);
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2);
  try {
    return await new Promise((resolve, reject) => {
      const headers = { ...JSON_HEADERS, ...(declared ? { 'content-length': String(bytes) } : { 'transfer-encoding': 'chunked' }) };
      const request = httpRequest({ host: target.hostname, port: target.port, method: 'POST', path, headers }, (response) => {
        let text = '';
        response.on('data', (c: Buffer) => (text += c.toString()));
        response.on('end', () => {
          request.destroy();
          resolve({ status: response.statusCode ?? 0, code: (JSON.parse(text) as RawAnswer['json']).error?.code, peakGrowth: peak - before });
        });
      });
      request.on('error', (error) => (request.writableEnded ? undefined : reject(error)));
      let sent = 0;
      const pump = () => {
        while (sent < bytes && !request.destroyed) {
          sent += chunk.length;
          if (!request.write(chunk)) return void request.once('drain', pump);
        }
        if (!request.destroyed) request.end();
      };
      pump();
    });
  } finally {
    clearInterval(sampler);
  }
}

describe('the model servers as an attacker on the same machine meets them', () => {
  let allowed: string;
  let outside: string;
  let modelServer: ModelServer;
  let trainer: TrainerServer;
  let samplerDir: string;

  beforeAll(async () => {
    allowed = await mkdtemp(join(tmpdir(), 'ludus-allowed-'));
    outside = await mkdtemp(join(tmpdir(), 'ludus-outside-'));
    samplerDir = join(allowed, 'sampler');
    await mkdir(samplerDir);
    await writeFile(join(samplerDir, 'canary.txt'), 'still here');
    const { policy, tokenizer } = await loadPolicy(resolveModelDir('default', 'arithmetic'));
    // A real model directory outside the allowed one, and a link to it from inside.
    await saveCheckpoint(join(outside, 'model'), policy.config, policy.weights, { extraFiles: { 'tokenizer.json': JSON.stringify(tokenizer!.json) } });
    await symlink(join(outside, 'model'), join(allowed, 'link-out'));
    modelServer = await startModelServer({
      model: 'default',
      name: 'base',
      host: '127.0.0.1',
      port: 0,
      rows: 2,
      threads: 1,
      token: TEST_TOKEN,
      allowDirs: [allowed],
      allowHosts: ['models.internal'],
      allowOrigins: ['http://dashboard.internal:3000'],
      limits: { maxAdapters: 1, maxRequestTokens: 400 },
    });
    trainer = await startTrainerServer({ ...(await trainerEngine()), host: '127.0.0.1', port: 0, threads: 1, task: 'arithmetic', token: TEST_TOKEN, samplerDir, allowDirs: [allowed], limits: { maxModels: 2, maxBatchTokens: 2 ** 22 } });
  }, 120_000);

  afterAll(async () => {
    await modelServer?.close();
    await trainer?.close();
    await rm(allowed, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  const servers = () => [
    { name: 'serve-model', url: modelServer.url, path: '/v1/completions', body: { prompt: [1, 2, 3], max_tokens: 2 } },
    { name: 'serve-trainer', url: trainer.url, path: `${TRAINER_API}/create_model`, body: { request_id: 'r', base_model: 'default' } },
  ];

  describe('having the directory-deletion request (save_weights_for_sampler named "..")', () => {
    it('should refuse it as a page would send it (text/plain, foreign Origin, no token), refuse the name itself with the token, and leave the sampler directory intact', async () => {
      const created = await post(trainer.url, `${TRAINER_API}/create_model`, { request_id: 'lora-1', base_model: 'default', lora: { rank: 2, seed: 1 } });
      expect(created.status).toBe(200);
      const done = await post(trainer.url, `${TRAINER_API}/retrieve_future`, { request_id: 'lora-1', wait_ms: 30_000 });
      const modelId = (done.json as { result: { model_id: string } }).result.model_id;
      const save = (name: string, id: string) => JSON.stringify({ request_id: id, model_id: modelId, name });

      const fromPage = await post(trainer.url, `${TRAINER_API}/save_weights_for_sampler`, save('..', 's1'), { 'content-type': 'text/plain', origin: 'http://evil.example' });
      expect(fromPage.status).toBe(403);
      const noOrigin = await post(trainer.url, `${TRAINER_API}/save_weights_for_sampler`, save('..', 's2'), { 'content-type': 'text/plain' });
      expect(noOrigin.status).toBe(401);
      const plainWithToken = await post(trainer.url, `${TRAINER_API}/save_weights_for_sampler`, save('..', 's3'), authorized({ 'content-type': 'text/plain' }));
      expect(plainWithToken.status).toBe(415);
      for (const name of ['..', '.', '../..', '.hidden', 'a/b', '-rf']) {
        const named = await post(trainer.url, `${TRAINER_API}/save_weights_for_sampler`, save(name, `s-${name}`));
        expect(named.status, name).toBe(400);
      }
      // Two proper saves: the second replaces the first, inside the model's own folder only.
      for (const id of ['ok-1', 'ok-2']) {
        expect((await post(trainer.url, `${TRAINER_API}/save_weights_for_sampler`, save(`v-${id}`, id))).status).toBe(200);
        expect((await post(trainer.url, `${TRAINER_API}/retrieve_future`, { request_id: id, wait_ms: 30_000 })).json.status).toBe('done');
      }
      expect(await readFile(join(samplerDir, 'canary.txt'), 'utf8')).toBe('still here');
      expect(await readdir(join(samplerDir, modelId))).toEqual(['v-ok-2']);
    });
  });

  describe('having requests without the token, with a wrong one, or with the token elsewhere', () => {
    it('should answer 401 with WWW-Authenticate on every route of both servers, GETs included', async () => {
      for (const { url, path, body } of servers()) {
        for (const headers of [{ 'content-type': 'application/json' } as Record<string, string>, { 'content-type': 'application/json', authorization: 'Bearer wrong-token-0123456789' }, { 'content-type': 'application/json', authorization: TEST_TOKEN }]) {
          const answer = await post(url, path, body, headers);
          expect(answer.status, `${url}${path}`).toBe(401);
          expect(answer.headers['www-authenticate']).toBe('Bearer');
          expect(answer.json.error?.code).toBe('UNAUTHORIZED');
        }
        expect((await raw(url, 'GET', `/health?token=${TEST_TOKEN}`, {})).status).toBe(401);
        expect((await raw(url, 'GET', '/health', authorized())).status).toBe(200);
      }
    });
  });

  describe('having a foreign Origin, a rebound Host, or a body that is not JSON', () => {
    it('should refuse a foreign Origin with 403 even with the token, and let an allowed one through with CORS headers', async () => {
      for (const { url, path, body } of servers()) {
        const foreign = await post(url, path, body, { ...JSON_HEADERS, origin: 'http://evil.example' });
        expect(foreign.status).toBe(403);
        expect(foreign.json.error?.code).toBe('FORBIDDEN');
        expect((await raw(url, 'OPTIONS', path, { origin: 'http://evil.example', 'access-control-request-method': 'POST' })).status).toBe(403);
        expect((await raw(url, 'GET', '/health', authorized({ origin: 'null' }))).status).toBe(403);
      }
      const preflight = await raw(modelServer.url, 'OPTIONS', '/v1/completions', { origin: 'http://dashboard.internal:3000', 'access-control-request-method': 'POST' });
      expect(preflight.status).toBe(204);
      expect(preflight.headers['access-control-allow-headers']).toContain('authorization');
      const allowedCall = await raw(modelServer.url, 'GET', '/v1/models', authorized({ origin: 'http://dashboard.internal:3000' }));
      expect(allowedCall.status).toBe(200);
      expect(allowedCall.headers['access-control-allow-origin']).toBe('http://dashboard.internal:3000');
    });

    it('should refuse a Host that names another site (DNS rebinding) with 403, and take localhost, IP literals and --allow-host names', async () => {
      const port = new URL(modelServer.url).port;
      for (const host of ['evil.example', `evil.example:${port}`, 'localhost.evil.example']) {
        const answer = await raw(modelServer.url, 'GET', '/health', authorized({ host }));
        expect(answer.status, `${host} ${JSON.stringify(answer.json)}`).toBe(403);
      }
      for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, '10.1.2.3', `models.internal:${port}`, 'MODELS.INTERNAL']) {
        expect((await raw(modelServer.url, 'GET', '/health', authorized({ host }))).status, host).toBe(200);
      }
    });

    it('should refuse bodies that are not JSON with 415, as a page\'s simple requests are', async () => {
      for (const { url, path, body } of servers()) {
        for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '']) {
          const answer = await post(url, path, body, authorized(type ? { 'content-type': type } : {}));
          expect(answer.status, `${path} ${type}`).toBe(415);
          expect(answer.json.error?.code).toBe('CONTENT_TYPE_UNSUPPORTED');
        }
        // JSON with its charset passes the door (and is then refused for what it says).
        expect((await post(url, path, {}, authorized({ 'content-type': 'application/json; charset=utf-8' }))).status).toBe(400);
      }
    });
  });

  describe('having paths outside the allowed directories', () => {
    it('should answer 403 PATH_FORBIDDEN for a path outside, existing or not, through a symlink or `..`, and 404 only inside', async () => {
      const attempts: [string, string, Record<string, unknown>][] = [
        [modelServer.url, '/v1/load_lora_adapter', { lora_name: 'a', lora_path: join(outside, 'model') }],
        [modelServer.url, '/load_lora_adapter', { lora_name: 'a', lora_path: '/definitely/not/here' }],
        [modelServer.url, '/v1/load_lora_adapter', { lora_name: 'a', lora_path: join(allowed, 'link-out') }],
        [modelServer.url, '/v1/load_lora_adapter', { lora_name: 'a', lora_path: join(allowed, '..', 'x') }],
        [modelServer.url, '/update_weights_from_disk', { model_path: join(outside, 'model') }],
        [modelServer.url, '/update_weights_from_disk', { model_path: '/etc' }],
        [trainer.url, `${TRAINER_API}/create_model`, { request_id: 'p1', base_model: join(outside, 'model') }],
        [trainer.url, `${TRAINER_API}/create_model`, { request_id: 'p2', base_model: join(allowed, 'link-out') }],
        [trainer.url, `${TRAINER_API}/create_model`, { request_id: 'p3', base_model: '/no/such/dir' }],
      ];
      for (const [url, path, body] of attempts) {
        const answer = await post(url, path, body);
        expect(answer.status, JSON.stringify(body)).toBe(403);
        expect(answer.json.error?.code).toBe('PATH_FORBIDDEN');
      }
      const inside = await post(modelServer.url, '/v1/load_lora_adapter', { lora_name: 'a', lora_path: join(allowed, 'absent') });
      expect(inside.status).toBe(404);
    });
  });

  describe('having bodies and requests past the bounds', () => {
    it('should refuse a 50 MB body with 413 before reading it, declared or chunked, the server\'s memory flat', async () => {
      for (const { url, path } of servers()) {
        for (const declared of [true, false]) {
          const answer = await streamed(url, path, 50 * 2 ** 20, declared);
          expect(answer.status, `${path} declared=${declared}`).toBe(413);
          expect(answer.code).toBe('REQUEST_TOO_LARGE');
          expect(answer.peakGrowth, `peak RSS growth ${answer.peakGrowth}`).toBeLessThan(40 * 2 ** 20);
        }
      }
      expect((await raw(modelServer.url, 'GET', '/health', authorized())).status).toBe(200);
    });

    it('should refuse a padded forward_backward that would need more memory than is free with 413 when submitted, allocating nothing', async () => {
      // A learner asked to run every row at once (microBatchRows far above the batch): the estimate of that one run decides.
      const created = await post(trainer.url, `${TRAINER_API}/create_model`, { request_id: 'full-1', base_model: 'default', learner: { objective: 'policy-gradient', microBatchRows: 100_000 } });
      expect(created.status).toBe(200);
      const modelId = ((await post(trainer.url, `${TRAINER_API}/retrieve_future`, { request_id: 'full-1', wait_ms: 30_000 })).json as { result: { model_id: string } }).result.model_id;
      // 2,000 datums of one token beside one of 320: a 100 KB body that pads to 2,001 × 320 positions in one run.
      const datum = (n: number) => ({ model_input: { chunks: [{ type: 'encoded_text', tokens: Array(n).fill(3) }] }, loss_fn_inputs: { target_tokens: Array(n).fill(4), weights: Array(n).fill(1), logprobs: Array(n).fill(-1), advantages: Array(n).fill(0.5) } });
      const body = { request_id: 'fb-1', model_id: modelId, loss_fn: 'ppo', data: [datum(320), ...Array.from({ length: 2000 }, () => datum(1))] };
      const before = process.memoryUsage().rss;
      const answer = await post(trainer.url, `${TRAINER_API}/forward_backward`, body);
      expect(answer.status, JSON.stringify(answer.json)).toBe(413);
      expect(answer.json.error?.code).toBe('MEMORY_INSUFFICIENT');
      expect(answer.json.error?.message).toContain('2001 rows × 320 tokens');
      expect(process.memoryUsage().rss - before).toBeLessThan(200 * 2 ** 20);
      expect((await post(trainer.url, `${TRAINER_API}/retrieve_future`, { request_id: 'fb-1', wait_ms: 0 })).status).toBe(400);
      expect((await post(trainer.url, `${TRAINER_API}/unload_model`, { model_id: modelId })).status).toBe(200);
    });

    it('should refuse the same padded body by its padded size under the default --max-batch-tokens, before the model is asked', async () => {
      const bounded = await startTrainerServer({ ...(await trainerEngine()), host: '127.0.0.1', port: 0, threads: 1, task: 'arithmetic', token: TEST_TOKEN });
      try {
        const datum = (n: number) => ({ model_input: { chunks: [{ type: 'encoded_text', tokens: Array(n).fill(3) }] }, loss_fn_inputs: { target_tokens: Array(n).fill(4), weights: Array(n).fill(1), logprobs: Array(n).fill(-1), advantages: Array(n).fill(0.5) } });
        await post(bounded.url, `${TRAINER_API}/create_model`, { request_id: 'm', base_model: 'default' });
        const modelId = ((await post(bounded.url, `${TRAINER_API}/retrieve_future`, { request_id: 'm', wait_ms: 30_000 })).json as { result: { model_id: string } }).result.model_id;
        const answer = await post(bounded.url, `${TRAINER_API}/forward_backward`, { request_id: 'fb', model_id: modelId, loss_fn: 'ppo', data: [datum(320), ...Array.from({ length: 2000 }, () => datum(1))] });
        expect(answer.status).toBe(413);
        expect(answer.json.error?.message).toContain('2001 datums padded to 320 tokens');
        expect(answer.json.error?.message).toContain('--max-batch-tokens');
      } finally {
        await bounded.close();
      }
    });

    it('should refuse requests past their own bounds with a coded 4xx naming the bound: adapters, models, tokens, learning rate, LoRA rank', async () => {
      const tooMany = await post(modelServer.url, '/v1/completions', { prompt: [Array(150).fill(3), Array(150).fill(3)], max_tokens: 60 });
      expect(tooMany.status).toBe(413);
      expect(tooMany.json.error?.message).toContain('--max-request-tokens');

      const { policy, tokenizer } = await loadPolicy(resolveModelDir('default', 'arithmetic'));
      for (const name of ['m1', 'm2']) await saveCheckpoint(join(allowed, name), policy.config, policy.weights, { extraFiles: { 'tokenizer.json': JSON.stringify(tokenizer!.json) } });
      expect((await post(modelServer.url, '/v1/load_lora_adapter', { lora_name: 'm1', lora_path: join(allowed, 'm1') })).status).toBe(200);
      const second = await post(modelServer.url, '/v1/load_lora_adapter', { lora_name: 'm2', lora_path: join(allowed, 'm2') });
      expect(second.status).toBe(413);
      expect(second.json.error?.message).toContain('--max-adapters');
      expect((await post(modelServer.url, '/v1/unload_lora_adapter', { lora_name: 'm1' })).status).toBe(200);

      const rank = await post(trainer.url, `${TRAINER_API}/create_model`, { request_id: 'rank', base_model: 'default', lora: { rank: 1e9, seed: 1 } });
      expect(rank.status, JSON.stringify(rank.json)).toBe(200);
      const failed = (await post(trainer.url, `${TRAINER_API}/retrieve_future`, { request_id: 'rank', wait_ms: 30_000 })).json as { status: string; error: { code: string; message: string } };
      expect(failed).toMatchObject({ status: 'failed', error: { code: 'REQUEST_INVALID' } });
      expect(failed.error.message).toContain('lora.rank');

      const lr = await post(trainer.url, `${TRAINER_API}/optim_step`, { request_id: 'lr', model_id: 'model-x', adam_params: { learning_rate: 1e30 } });
      expect(lr.status).toBe(400);
      expect(lr.json.error?.message).toContain('learning_rate');

      // The server holds two models at most: past them, create_model is refused before anything loads.
      const held: string[] = [];
      for (let i = 0; ; i++) {
        const create = await post(trainer.url, `${TRAINER_API}/create_model`, { request_id: `more-${i}`, base_model: 'default' });
        if (create.status === 413) {
          expect(create.json.error?.message).toContain('--max-models');
          break;
        }
        expect(create.status).toBe(200);
        held.push(((await post(trainer.url, `${TRAINER_API}/retrieve_future`, { request_id: `more-${i}`, wait_ms: 30_000 })).json as { result: { model_id: string } }).result.model_id);
        expect(i).toBeLessThan(2);
      }
      for (const modelId of held) expect((await post(trainer.url, `${TRAINER_API}/unload_model`, { model_id: modelId })).status).toBe(200);
    });

    it('should count a request in flight only once its body is in: a slow body holds no slot, running work does (503 with Retry-After)', async () => {
      const busy = await startModelServer({ model: 'default', name: 'base', host: '127.0.0.1', port: 0, rows: 1, threads: 1, token: TEST_TOKEN, limits: { maxInFlight: 1 }, log: false });
      try {
        const target = new URL(busy.url);
        const open = (body: string, length = body.length) => {
          const request = httpRequest({ host: target.hostname, port: target.port, method: 'POST', path: '/v1/completions', agent: false, headers: { ...JSON_HEADERS, 'content-length': String(length) } });
          request.on('error', () => undefined);
          request.write(body);
          return request;
        };
        // A body declared but not yet sent whole: it holds its connection only.
        const slow = open('{', 100);
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect((await raw(busy.url, 'GET', '/health', authorized())).status).toBe(200);
        // Work that runs for seconds (16 choices of 300 tokens, one row at a time) holds the one slot.
        const running = open(JSON.stringify({ prompt: [1, 2, 3], max_tokens: 300, n: 16, ignore_eos: true }));
        running.end();
        await expect.poll(() => busy.models.base.batcher.stats.pending, { timeout: 10_000 }).toBeGreaterThan(0);
        const refused = await raw(busy.url, 'GET', '/health', authorized());
        expect(refused.status).toBe(503);
        expect(refused.headers['retry-after']).toBe('1');
        expect(refused.json.error?.code).toBe('SERVER_BUSY');
        slow.destroy();
        running.destroy();
        await expect.poll(async () => (await raw(busy.url, 'GET', '/health', authorized())).status, { timeout: 10_000 }).toBe(200);
      } finally {
        await busy.close();
      }
    });
  });

  describe('having fuzzed JSON bodies on every route', () => {
    it('should answer each with a 2xx or a coded 4xx, never a 500, and stay up', async () => {
      const rng = new Rng(20261203);
      const atoms = [null, true, false, 0, -1, 1e308, -1e-308, 2 ** 53, 'x', '', '..', '/etc/passwd', '__proto__', [], {}];
      const value = (depth: number): unknown => {
        const roll = rng.int(depth > 2 ? 1 : 4);
        if (roll === 0) return atoms[rng.int(atoms.length)];
        if (roll === 1) return Array.from({ length: rng.int(4) }, () => value(depth + 1));
        const keys = ['prompt', 'max_tokens', 'model', 'input_ids', 'sampling_params', 'lora_name', 'lora_path', 'model_path', 'request_id', 'model_id', 'base_model', 'data', 'name', 'lora', 'learner', 'loss_fn', '__proto__', 'constructor'];
        return Object.fromEntries(Array.from({ length: rng.int(5) }, () => [keys[rng.int(keys.length)], value(depth + 1)]));
      };
      const routes: [string, string][] = [
        ...['/v1/completions', '/generate', '/v1/load_lora_adapter', '/v1/unload_lora_adapter', '/load_lora_adapter', '/unload_lora_adapter', '/update_weights_from_disk'].map((path): [string, string] => [modelServer.url, path]),
        ...['create_model', 'forward_backward', 'optim_step', 'save_weights_for_sampler', 'get_optimizer_state', 'load_state', 'retrieve_future', 'unload_model'].map((op): [string, string] => [trainer.url, `${TRAINER_API}/${op}`]),
      ];
      const statuses = new Map<number, number>();
      for (let i = 0; i < 400; i++) {
        const [url, path] = routes[i % routes.length];
        const body = i % 7 === 0 ? '{"unterminated": ' : JSON.stringify(value(0));
        const answer = await post(url, path, body);
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        expect(answer.status, `${path} ${body}`).toBeLessThan(500);
        if (answer.status >= 400) expect(answer.json.error?.code, `${path} ${body}`).toMatch(/^[A-Z_]+$/);
      }
      expect(statuses.get(400)).toBeGreaterThan(100);
      for (const { url } of servers()) expect((await raw(url, 'GET', '/health', authorized())).status).toBe(200);
    });
  });
});

describe('`ludus serve-model` and `ludus serve-trainer` as started from the command line', () => {
  it('should generate a token when none is given, print it once, and refuse requests without it', async () => {
    const server = spawned(['serve-model', 'default', '--task', 'arithmetic', '--port', '0', '--rows', '1', '--threads', '1']);
    try {
      const { url, token } = await server.line;
      expect(token).toMatch(/^[\w-]{24}$/);
      // Once: on stdout's line, so a log that captures both streams holds it once.
      await expect.poll(() => server.stderr()).toContain('the token is the "token" of the line on stdout');
      expect(server.stderr()).not.toContain(token);
      expect(server.stdout().split(token)).toHaveLength(2);
      expect((await raw(url, 'GET', '/health', {})).status).toBe(401);
      expect((await raw(url, 'GET', '/health', { authorization: `Bearer ${token}` })).status).toBe(200);
      expect(server.stderr()).not.toContain('warning');
    } finally {
      await server.stop();
    }
  });

  it('should warn when bound past loopback, take the token from LUDUS_TOKEN without printing it, and refuse a short one', async () => {
    const server = spawned(['serve-trainer', ...trainerBackendFlags(), '--host', '0.0.0.0', '--port', '0', '--threads', '1'], { LUDUS_TOKEN: TEST_TOKEN });
    try {
      const line = await server.line;
      expect(line.token).toBeUndefined();
      await expect.poll(() => server.stderr()).toMatch(/warning: serve-trainer: listening on 0\.0\.0\.0, reachable from other machines.*in clear text.*TLS proxy/);
      expect(server.stderr()).not.toContain(TEST_TOKEN);
      const port = new URL(line.url).port;
      expect((await raw(`http://127.0.0.1:${port}`, 'GET', '/health', authorized())).status).toBe(200);
    } finally {
      await server.stop();
    }
    const short = await runLudus(['serve-model', 'default', '--port', '0', '--token', 'short']);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('[INPUT_INVALID] --token: a token needs at least 16 characters');
  });

  it('should refuse --rows whose KV caches cannot fit in memory at start, exit 2, before listening', async () => {
    const result = await runLudus(['serve-model', 'default', '--task', 'arithmetic', '--port', '0', '--rows', '100000000', '--threads', '1']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('[MEMORY_INSUFFICIENT] KV caches for --rows 100000000');
    expect(result.stdout).toBe('');
  });
});
