import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRAINER_API } from '../../engine/remote/trainer-wire.ts';
import { saveCheckpoint } from '../../native/io/checkpoint.ts';
import { resolveModelDir } from '../../plugins/policies/default-model.ts';
import { loadPolicy } from '../../plugins/policies/load-policy.ts';
import type { ModelServer } from '../../server/model-server/model-server.ts';
import { MAX_STOP_STRINGS } from '../../server/model-server/sampling-routes.ts';
import { startTrainerServer } from '../../server/trainer-server/trainer-server.ts';
import { startTestModelServer } from '../support/model-server.ts';
import { JSON_HEADERS, post, raw } from '../support/raw-http.ts';
import { authorized, TEST_TOKEN } from '../support/server-token.ts';
import { trainerEngine } from '../support/trainer-backend.ts';

const FLOOD = fileURLToPath(new URL('../support/slow-flood.mjs', import.meta.url));

/** A completion request sent and then left open: `destroy` is its client going away. */
function openCompletion(url: string, body: unknown) {
  const target = new URL(url);
  const request = httpRequest({ host: target.hostname, port: target.port, method: 'POST', path: '/v1/completions', agent: false, headers: JSON_HEADERS });
  request.on('error', () => undefined);
  let answered = false;
  request.on('response', (response) => {
    answered = true;
    response.resume();
  });
  request.end(JSON.stringify(body));
  return { destroy: () => request.destroy(), answered: () => answered };
}

/** Issue 46, sections 2–4: one client's request, connections or bursts cannot take the server from the others. */
describe('the model servers under one client that abuses them', () => {
  let server: ModelServer;

  beforeAll(async () => {
    server = await startTestModelServer({ log: false });
  }, 60_000);

  afterAll(async () => {
    await server?.close();
  });

  describe('having a request with 200,000 stop strings sent among seven ordinary ones', () => {
    it('should refuse it alone with 413 naming the bound, and answer the seven', async () => {
      const poison = { prompt: [1, 2, 3], max_tokens: 8, stop: Array.from({ length: 200_000 }, (_, i) => `s${i}`) };
      const good = { prompt: [1, 2, 3], max_tokens: 8, stop: ['\n\n'] };
      const answers = await Promise.all([post(server.url, '/v1/completions', poison), ...Array.from({ length: 7 }, () => post(server.url, '/v1/completions', good))]);
      expect(answers[0].status).toBe(413);
      expect(answers[0].json.error?.code).toBe('REQUEST_TOO_LARGE');
      expect(answers[0].json.error?.message).toContain(`stop strings: 200000 is over this server's ${MAX_STOP_STRINGS}`);
      for (const answer of answers.slice(1)) expect(answer.status).toBe(200);
      // The same bound on the other dialects, and on the characters of a few long ones.
      const generate = await post(server.url, '/generate', { input_ids: [1, 2, 3], sampling_params: { max_new_tokens: 4, stop: Array(MAX_STOP_STRINGS + 1).fill('x') } });
      expect(generate.status).toBe(413);
      const chat = await post(server.url, '/v1/chat/completions', { messages: [{ role: 'user', content: 'hi' }], stop: ['x'.repeat(5000)] });
      expect(chat.status).toBe(413);
    });
  });

  describe('having a long completion whose client goes away', () => {
    it('should answer /health while it decodes, and cancel its rows once the client is gone', async () => {
      const stats = () => server.models.base.batcher.stats;
      const before = stats();
      // 16 choices of 300 tokens on 4 rows: four rounds, seconds of work.
      const abandoned = openCompletion(server.url, { prompt: [1, 2, 3], max_tokens: 300, n: 16, ignore_eos: true });
      await expect.poll(() => stats().pending, { timeout: 10_000 }).toBeGreaterThan(0);
      expect((await raw(server.url, 'GET', '/health', authorized())).status).toBe(200);
      expect(abandoned.answered()).toBe(false);
      expect(stats().pending).toBeGreaterThan(0);
      abandoned.destroy();
      await expect.poll(() => stats().pending, { timeout: 10_000 }).toBe(0);
      expect(stats().cancelled - before.cancelled).toBe(16);
      expect(stats().decoded - before.decoded).toBe(0);
      expect((await post(server.url, '/v1/completions', { prompt: [1, 2, 3], max_tokens: 4 })).status).toBe(200);
    });
  });

  describe('having 40 adapter loads sent together under --max-adapters 16', () => {
    it('should load 16 and refuse the rest with 413', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ludus-burst-'));
      try {
        const { policy, tokenizer } = await loadPolicy(resolveModelDir('default', 'arithmetic'));
        await saveCheckpoint(join(dir, 'm'), policy.config, policy.weights, { extraFiles: { 'tokenizer.json': JSON.stringify(tokenizer!.json) } });
        const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => post(server.url, '/v1/load_lora_adapter', { lora_name: `burst-${i}`, lora_path: join(dir, 'm') })));
        expect(answers.filter((a) => a.status === 200)).toHaveLength(16);
        expect(answers.filter((a) => a.status === 413)).toHaveLength(24);
        expect(server.models.names).toHaveLength(17);
        for (const name of server.models.names.slice(1)) expect((await post(server.url, '/v1/unload_lora_adapter', { lora_name: name })).status).toBe(200);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });
});

describe('the trainer server under a burst of create_model calls', () => {
  it('should create --max-models 4 of 12 sent together and refuse the rest with 413 when submitted', async () => {
    const trainer = await startTrainerServer({ ...(await trainerEngine()), host: '127.0.0.1', port: 0, threads: 1, task: 'arithmetic', token: TEST_TOKEN, limits: { maxModels: 4 }, log: false });
    try {
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => post(trainer.url, `${TRAINER_API}/create_model`, { request_id: `burst-${i}`, base_model: 'default' })));
      const submitted = answers.flatMap((answer, i) => (answer.status === 200 ? [`burst-${i}`] : []));
      expect(submitted).toHaveLength(4);
      expect(answers.filter((a) => a.status === 413)).toHaveLength(8);
      for (const id of submitted) {
        const done = await post(trainer.url, `${TRAINER_API}/retrieve_future`, { request_id: id, wait_ms: 30_000 });
        expect(done.json.status).toBe('done');
        expect((await post(trainer.url, `${TRAINER_API}/unload_model`, { model_id: (done.json.result as { model_id: string }).model_id })).status).toBe(200);
      }
    } finally {
      await trainer.close();
    }
  });
});

describe('a model server under 1,100 slow connections', () => {
  it('should answer at least 95% of a token client\'s requests while 1,000 connections send half their headers and 100 drip their bodies', async () => {
    // Short timeouts and caps for the test: the defaults (docs/server-security.md) are the same mechanism, slower.
    const server = await startTestModelServer({
      log: false,
      limits: { maxInFlight: 8 },
      connections: { headersTimeoutMs: 1_000, bodyTimeoutMs: 1_500, maxUnauthenticated: 64, maxUnauthenticatedPerAddress: 32 },
    });
    const port = new URL(server.url).port;
    // Its own process, its descriptor limit raised to the hard limit: the test process holds only the server's side.
    const flood = spawn('bash', ['-c', 'ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$0" "$@"', process.execPath, FLOOD, port, '1000', '100', TEST_TOKEN], { stdio: ['ignore', 'pipe', 'inherit'] });
    const lines = createInterface({ input: flood.stdout });
    const next = () => new Promise<string>((resolve) => lines.once('line', resolve));
    try {
      expect(await next()).toBe('ready');
      const ready = Date.now();
      // 30 requests one after another, 25 ms apart.
      const probes: number[] = [];
      while (probes.length < 30) {
        const answer = await Promise.race([
          post(server.url, '/v1/completions', { prompt: [1, 2, 3], max_tokens: 1 }).then((a) => a.status, () => 0),
          new Promise<number>((resolve) => setTimeout(() => resolve(-1), 2_000)),
        ]);
        probes.push(answer);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      // Past both timeouts since every slow connection was open, so each of them has had its time to be closed
      // (on a fast machine the probes end before the body timeout does).
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, ready + 1_000 + 1_500 + 500 - Date.now())));
      const report = next();
      flood.kill('SIGTERM');
      const counts = JSON.parse(await report) as { opened: number; closedByServer: number };
      const answered = probes.filter((status) => status === 200).length / probes.length;
      process.stderr.write(`flood: answered ${probes.filter((s) => s === 200).length} of ${probes.length}, server closed ${counts.closedByServer} slow connections\n`);
      expect(answered, `answered ${probes.filter((s) => s === 200).length} of ${probes.length}: ${JSON.stringify(probes)}`).toBeGreaterThanOrEqual(0.95);
      // The server closed slow connections (evicted past the caps, or timed out) rather than holding them.
      expect(counts.closedByServer).toBeGreaterThan(1000);
    } finally {
      flood.kill('SIGTERM');
      await server.close();
    }
  }, 30_000);
});
