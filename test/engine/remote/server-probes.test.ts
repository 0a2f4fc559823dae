import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { PolicyPool } from '../../../engine/policies/policy-pool.ts';
import { HttpRuntime } from '../../../engine/remote/http-runtime.ts';
import { RolloutServersSchema } from '../../../engine/remote/remote-config.ts';
import { ServerPool } from '../../../engine/remote/server-pool.ts';
import { loadingAdapter, reportsTemperedLogprobs } from '../../../engine/remote/server-probes.ts';
import { sglangDialect } from '../../../engine/remote/sglang-dialect.ts';
import { vllmDialect } from '../../../engine/remote/vllm-dialect.ts';
import { parseLoraConfig } from '../../../native/model/lora-config.ts';
import { sglangGenerateAnswer, vllmPromptLogprobsAnswer } from '../../support/upstream-answers.ts';

const servers: Server[] = [];

/**
 * A stand-in for a vLLM or SGLang server whose every token has raw log-probability `raw`, and which reports a sampled
 * token's log-probability as `reported(temperature)`: `() => raw` is vLLM's default raw_logprobs mode.
 */
async function standIn(raw: number, reported: (temperature: number) => number, maxLoraRank = Number.POSITIVE_INFINITY): Promise<string> {
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      const body = text === '' ? {} : (JSON.parse(text) as Record<string, any>);
      if (request.url === '/v1/load_lora_adapter' && Number.isFinite(maxLoraRank)) {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: `LoRA rank 4 is greater than max_lora_rank ${maxLoraRank}.` } }));
        return;
      }
      const answer = request.url === '/v1/completions' ? vllmAnswer(body) : request.url === '/generate' ? sglangAnswer(body) : {};
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer));
    });
  });
  const vllmAnswer = (body: Record<string, any>) => {
    const prompt = body.prompt as number[];
    if (body.prompt_logprobs !== undefined) return vllmPromptLogprobsAnswer(prompt, prompt.map(() => raw));
    const tokens = Array<number>(body.max_tokens).fill(7);
    return { ...vllmPromptLogprobsAnswer(prompt, []), choices: [{ index: 0, text: 'x', finish_reason: 'length', stop_reason: null, token_ids: tokens, logprobs: { tokens: tokens.map((id) => `token_id:${id}`), token_logprobs: tokens.map(() => reported(body.temperature)) } }] };
  };
  const sglangAnswer = (body: Record<string, any>) => {
    const ids = body.input_ids as number[];
    const answer = sglangGenerateAnswer(ids, Math.max(0, body.logprob_start_len ?? 0), ids.map(() => raw), { id: 7, logprob: reported(body.sampling_params.temperature) });
    return body.logprob_start_len === undefined ? { ...answer, meta_info: { ...answer.meta_info, input_token_logprobs: undefined } } : answer;
  };
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const options = { maxConcurrency: 4, timeoutMs: 10_000, retries: 0, backoffMs: 5 };
const probe = async (dialect: typeof vllmDialect, url: string) => reportsTemperedLogprobs(new ServerPool([url], options), 0, dialect, {}, [[1, 2, 3], [4, 5]]);

describe('the log-probability probe', () => {
  describe.each([
    ['vLLM', vllmDialect],
    ['SGLang', sglangDialect],
  ] as const)('having a %s server', (_name, dialect) => {
    it('should tell log-probabilities at the sampling temperature from raw ones, and count a server it cannot tell as raw', async () => {
      expect(await probe(dialect, await standIn(-1.5, (t) => -1.5 / t - 0.2))).toBe(true);
      expect(await probe(dialect, await standIn(-1.5, () => -1.5))).toBe(false);
      expect(await probe(dialect, await standIn(-1e-6, () => -1e-7))).toBe(false);
    });
  });

  describe('having a run at temperature 0.6 on a server in vLLM\'s default raw_logprobs mode', () => {
    it('should refuse the first call with REMOTE_MISCONFIGURED naming the launch flag, before any token is sampled, and serve temperature 1', async () => {
      const url = await standIn(-1.5, () => -1.5);
      const pool = await PolicyPool.load([{ name: 'senior', init: 'default', trainable: false }], { task: 'arithmetic' });
      const syncDir = await mkdtemp(join(tmpdir(), 'ludus-probe-'));
      const runtime = await HttpRuntime.open(pool, RolloutServersSchema.parse({ dialect: 'vllm', servers: [url] }), { rows: 2, maxLen: 64, syncDir });
      const call = (temperature: number) => runtime.generate({ policies: ['senior'], prompts: [[1, 2, 3]], maxNewTokens: 2, seed: 0, sampling: { temperature, topK: 0, topP: 1 }, stopTokens: [] });
      await expect(call(0.6)).rejects.toMatchObject({ code: 'REMOTE_MISCONFIGURED', message: expect.stringContaining('--logprobs-mode processed_logprobs') });
      expect(runtime.traffic.requests).toBe(0);
      expect((await call(1)).rollouts[0].tokens).toEqual([7, 7]);
      await runtime.release();
      await rm(syncDir, { recursive: true, force: true });
    });
  });
});

describe('connecting a run with a LoRA policy to a server started with too small a max_lora_rank', () => {
  it('should fail at connect time with REMOTE_MISCONFIGURED naming the launch flags', async () => {
    const url = await standIn(-1.5, (t) => -1.5 / t, 2);
    const pool = await PolicyPool.load([{ name: 'senior', init: 'default', trainable: true, adapter: { ...parseLoraConfig({ r: 4 }), seed: 1 } }], { task: 'arithmetic' });
    const syncDir = await mkdtemp(join(tmpdir(), 'ludus-probe-'));
    await expect(HttpRuntime.open(pool, RolloutServersSchema.parse({ dialect: 'vllm', servers: [url] }), { rows: 2, maxLen: 64, syncDir })).rejects.toMatchObject({
      code: 'REMOTE_MISCONFIGURED',
      message: expect.stringContaining('--max-lora-rank'),
    });
    await rm(syncDir, { recursive: true, force: true });
  });
});

describe('an adapter load a server refuses', () => {
  it('should become REMOTE_MISCONFIGURED naming the rank and the launch flags; other failures pass through', async () => {
    const refusal = () => Promise.reject(new LudusError('REMOTE_REJECTED', 'HTTP 400: LoRA rank 64 is greater than max_lora_rank 16.'));
    await expect(loadingAdapter(vllmDialect, 'senior-v1', 64, refusal)).rejects.toMatchObject({ code: 'REMOTE_MISCONFIGURED', message: expect.stringMatching(/rank 64.*--max-lora-rank.*--max-loras/) });
    await expect(loadingAdapter(sglangDialect, 'senior-v1', 64, refusal)).rejects.toMatchObject({ code: 'REMOTE_MISCONFIGURED', message: expect.stringContaining('--enable-lora') });
    await expect(loadingAdapter(vllmDialect, 'a', 4, () => Promise.reject(new LudusError('REMOTE_UNAVAILABLE', 'gone')))).rejects.toMatchObject({ code: 'REMOTE_UNAVAILABLE' });
  });
});
