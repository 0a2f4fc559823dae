import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SglangGenerateOutputSchema } from '../../../engine/remote/sglang-wire.ts';
import { VllmCompletionResponseSchema } from '../../../engine/remote/vllm-wire.ts';
import { DecoderPool } from '../../../engine/match/decoder-pool.ts';
import { PolicyPool } from '../../../engine/policies/policy-pool.ts';
import { saveCheckpoint } from '../../../native/io/checkpoint.ts';
import { cloneWeights } from '../../../native/model/weights.ts';
import { saveAdapter } from '../../../native/io/adapter.ts';
import { adaptedWeights, initAdapter, withAdapter } from '../../../native/model/lora.ts';
import { parseLoraConfig } from '../../../native/model/lora-config.ts';
import { resolveModelDir } from '../../../plugins/policies/default-model.ts';
import { startModelServer, type ModelServer } from '../../../server/model-server/model-server.ts';
import { authorized, TEST_TOKEN } from '../../support/server-token.ts';

const post = async (server: ModelServer, path: string, body: unknown) => {
  const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: authorized({ 'content-type': 'application/json' }), body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, text, json: () => JSON.parse(text) as Record<string, any> };
};

describe('ludus serve-model', () => {
  let server: ModelServer;
  let pool: PolicyPool;
  let prompt: number[];
  const dirs: string[] = [];
  const completion = (extra: Record<string, unknown> = {}) => ({ prompt, max_tokens: 12, temperature: 0.6, seed: 99, logprobs: 0, return_token_ids: true, return_tokens_as_token_ids: true, ...extra });

  beforeAll(async () => {
    server = await startModelServer({ model: 'default', name: 'base', host: '127.0.0.1', port: 0, rows: 4, threads: 1, token: TEST_TOKEN, allowDirs: [tmpdir()] });
    pool = await PolicyPool.load([{ name: 'base', init: 'default', trainable: false }], { task: 'arithmetic' });
    prompt = pool.tokenizer.encode('Compute 47 + 38.\n\n');
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  describe('having a completion request with token ids, a seed and logprobs', () => {
    it('should answer in vLLM\'s shape with the very tokens and log-probabilities the in-process decoder samples from that seed', async () => {
      const answer = await post(server, '/v1/completions', completion());
      expect(answer.status).toBe(200);
      const [choice] = VllmCompletionResponseSchema.parse(answer.json()).choices;
      const decoders = new DecoderPool(pool, { rows: 2, maxLen: 320, threads: 1 });
      const { rollouts } = await decoders.generate({ policies: ['base'], prompts: [prompt], maxNewTokens: 12, rowSeeds: [99], seed: 0, sampling: { temperature: 0.6, topK: 0, topP: 1 }, stopTokens: pool.policy('base').config.eosTokenIds });
      await decoders.release();
      expect(choice.token_ids).toEqual(rollouts[0].tokens);
      expect(choice.logprobs?.token_logprobs).toEqual(rollouts[0].logprobs);
      expect(choice.logprobs?.tokens).toEqual(rollouts[0].tokens.map((id) => `token_id:${id}`));
      expect(choice.finish_reason).toBe(rollouts[0].finish === 'length' ? 'length' : 'stop');
    });
  });

  describe('having the same request through SGLang\'s /generate', () => {
    it('should sample the same tokens from the same seed and report them in meta_info', async () => {
      const vllm = VllmCompletionResponseSchema.parse((await post(server, '/v1/completions', completion())).json()).choices[0];
      const answer = await post(server, '/generate', { input_ids: prompt, sampling_params: { max_new_tokens: 12, temperature: 0.6, sampling_seed: 99 }, return_logprob: true, logprob_start_len: 2 });
      const output = SglangGenerateOutputSchema.parse(answer.json());
      expect(output.output_ids).toEqual(vllm.token_ids);
      expect(output.meta_info.output_token_logprobs!.map(([logprob]) => logprob)).toEqual(vllm.logprobs!.token_logprobs);
      expect(output.meta_info.input_token_logprobs!.map(([, id]) => id)).toEqual(prompt.slice(2));
      const batch = await post(server, '/generate', { input_ids: [prompt, prompt], sampling_params: { max_new_tokens: 3 } });
      expect(batch.json()).toHaveLength(2);
    });
  });

  describe('having malformed requests', () => {
    it('should answer each with a coded 4xx naming what was wrong', async () => {
      const cases: [string, unknown, number, string, string][] = [
        ['/v1/completions', '{"prompt": [1, 2', 400, 'REQUEST_INVALID', 'not JSON'],
        ['/v1/completions', { prompt: [1, 2], max_tokens: 'many' }, 400, 'REQUEST_INVALID', 'max_tokens'],
        ['/v1/completions', { prompt: [1, 2], n: 17 }, 400, 'REQUEST_INVALID', 'n'],
        ['/v1/completions', { prompt: [1, 2], best_of: 2 }, 400, 'REQUEST_INVALID', 'best_of'],
        ['/v1/completions', { prompt: [1, 2], logprobs: 21 }, 400, 'REQUEST_INVALID', 'logprobs'],
        ['/v1/completions', { prompt: [1, 2], prompt_logprobs: 5 }, 400, 'REQUEST_INVALID', 'only 0'],
        ['/v1/completions', { prompt: [1, 2], model: 'nobody' }, 404, 'MODEL_NOT_SERVED', 'nobody'],
        ['/v1/completions', { prompt: [1, 2], max_tokens: 400 }, 400, 'SEQUENCE_TOO_LONG', '320 positions'],
        ['/v1/completions', { prompt: [1, 999999] }, 400, 'REQUEST_INVALID', 'vocabulary'],
        ['/generate', { input_ids: [] }, 400, 'REQUEST_INVALID', 'input_ids'],
        ['/nowhere', {}, 404, 'REQUEST_INVALID', 'no route'],
      ];
      for (const [path, body, status, code, mention] of cases) {
        const answer = await post(server, path, body);
        expect({ path, status: answer.status, code: answer.json().error.code }).toEqual({ path, status, code });
        expect(answer.json().error.message).toContain(mention);
      }
      expect((await fetch(`${server.url}/v1/completions`, { headers: authorized() })).status).toBe(405);
    });
  });

  describe('having policies pushed to it', () => {
    it('should serve a full model directory and a PEFT adapter over its base by name, refuse a malformed adapter with a coded 400, and replace its own weights from disk (never with an adapter)', async () => {
      const trained = await mkdtemp(join(tmpdir(), 'ludus-served-'));
      dirs.push(trained);
      const policy = pool.policy('base');
      const weights = cloneWeights(policy.weights);
      for (const [, tensor] of weights) for (let i = 0; i < tensor.data.length; i += 7) tensor.data[i] *= 1.5;
      await saveCheckpoint(trained, policy.config, weights, { extraFiles: { 'tokenizer.json': JSON.stringify(pool.tokenizer.json) } });

      expect((await post(server, '/v1/load_lora_adapter', { lora_name: 'senior-v1', lora_path: trained })).text).toContain("'senior-v1' added");
      expect((await post(server, '/v1/load_lora_adapter', { lora_name: 'senior-v1', lora_path: trained })).status).toBe(400);
      const models = (await (await fetch(`${server.url}/v1/models`, { headers: authorized() })).json()) as { data: { id: string }[] };
      expect(models.data.map((m) => m.id)).toEqual(['base', 'senior-v1']);
      const base = (await post(server, '/v1/completions', completion())).json().choices[0];
      const adapted = (await post(server, '/v1/completions', completion({ model: 'senior-v1' }))).json().choices[0];
      expect(adapted.logprobs.token_logprobs).not.toEqual(base.logprobs.token_logprobs);

      // A policy with an adapter, as the weight push writes it: PEFT's layout over the served base's directory.
      const lora = await mkdtemp(join(tmpdir(), 'ludus-lora-'));
      dirs.push(lora);
      const loraConfig = withAdapter(policy.config, parseLoraConfig({ r: 4, initStdB: 0.05 }));
      await saveAdapter(lora, loraConfig, adaptedWeights(policy.weights, initAdapter(loraConfig, 3)), { baseModel: resolveModelDir('default', 'arithmetic') });
      expect((await post(server, '/load_lora_adapter', { lora_name: 'lora', lora_path: lora })).status).toBe(200);
      const viaAdapter = (await post(server, '/v1/completions', completion({ model: 'lora' }))).json().choices[0];
      expect(viaAdapter.logprobs.token_logprobs).not.toEqual(base.logprobs.token_logprobs);
      const notBase = await post(server, '/update_weights_from_disk', { model_path: lora });
      expect(notBase.status).toBe(400);

      const peft = await mkdtemp(join(tmpdir(), 'ludus-peft-'));
      dirs.push(peft);
      await writeFile(join(peft, 'adapter_config.json'), '{"peft_type": "LORA", "r": 8}');
      const refused = await post(server, '/load_lora_adapter', { lora_name: 'nobase', lora_path: peft });
      expect(refused.status).toBe(400);
      expect(refused.json().error.code).toMatch(/^ADAPTER_/);

      expect((await post(server, '/v1/unload_lora_adapter', { lora_name: 'senior-v1' })).status).toBe(200);
      expect((await post(server, '/v1/completions', completion({ model: 'senior-v1' }))).status).toBe(404);

      const updated = await post(server, '/update_weights_from_disk', { model_path: trained, weight_version: '1' });
      expect(updated.json()).toMatchObject({ success: true });
      const after = (await post(server, '/v1/completions', completion())).json().choices[0];
      expect(after.logprobs.token_logprobs).toEqual(adapted.logprobs.token_logprobs);
      const info = (await (await fetch(`${server.url}/get_model_info`, { headers: authorized() })).json()) as { weight_version: string };
      expect(info.weight_version).toBe('1');
    });
  });
});
