import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SglangGenerateOutputSchema } from '../../../engine/remote/sglang-wire.ts';
import { VllmCompletionResponseSchema } from '../../../engine/remote/vllm-wire.ts';
import type { ModelServer } from '../../../server/model-server/model-server.ts';
import { startTestModelServer } from '../../support/model-server.ts';
import { authorized } from '../../support/server-token.ts';

/** Where `ludus serve-model` must answer as vLLM and SGLang do (their sources, read), so loopback tests meet the real paths. */
describe('ludus serve-model, on the points where vLLM and SGLang differ from what a client might assume', () => {
  let server: ModelServer;
  let prompt: number[];
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: authorized({ 'content-type': 'application/json' }), body: JSON.stringify(body) });
    return { status: response.status, json: (await response.json()) as Record<string, any> };
  };
  const completion = async (body: Record<string, unknown>) => VllmCompletionResponseSchema.parse((await post('/v1/completions', body)).json).choices[0];
  const generate = async (body: Record<string, unknown>) => SglangGenerateOutputSchema.parse((await post('/generate', body)).json);

  beforeAll(async () => {
    server = await startTestModelServer();
    prompt = server.models.tokenizer.encode('Compute 47 + 38.\n\n');
  }, 60_000);

  afterAll(async () => {
    await server?.close();
  });

  describe('having a sequence scored through prompt_logprobs at temperatures 1 and 0.6', () => {
    it('should score from the raw logits both times, as vLLM does: the values of temperature 1, which the sampled log-probabilities at 1 agree with', async () => {
      const sampled = await completion({ prompt, max_tokens: 8, temperature: 1, seed: 5, logprobs: 0, return_token_ids: true });
      const sequence = [...prompt, ...sampled.token_ids!];
      const at = async (temperature: number) => (await completion({ prompt: sequence, max_tokens: 1, temperature, prompt_logprobs: 0 })).prompt_logprobs!;
      const [one, tempered] = [await at(1), await at(0.6)];
      expect(tempered).toEqual(one);
      expect(one[0]).toBeNull();
      sampled.token_ids!.forEach((id, t) => expect(one[prompt.length + t]![String(id)].logprob).toBeCloseTo(sampled.logprobs!.token_logprobs[t]!, 4));
    });
  });

  describe('having a sequence scored through /generate from logprob_start_len 3', () => {
    it('should pad the first entry with None as SGLang does, the others equal to vLLM\'s prompt_logprobs at the same positions', async () => {
      const output = await generate({ input_ids: prompt, sampling_params: { max_new_tokens: 1, temperature: 0.6 }, return_logprob: true, logprob_start_len: 3 });
      const entries = output.meta_info.input_token_logprobs!;
      expect(entries.map(([, id]) => id)).toEqual(prompt.slice(3));
      expect(entries[0][0]).toBeNull();
      const vllm = (await completion({ prompt, max_tokens: 1, prompt_logprobs: 0 })).prompt_logprobs!;
      entries.slice(1).forEach(([logprob, id], k) => expect(logprob).toBeCloseTo(vllm[4 + k]![String(id)].logprob, 5));
    });
  });

  describe('having stop_token_ids under ignore_eos on /generate', () => {
    it('should run past a stop id as SGLang does, and stop at it once ignore_eos is false', async () => {
      const free = await generate({ input_ids: prompt, sampling_params: { max_new_tokens: 12, sampling_seed: 7, ignore_eos: true }, return_logprob: true });
      const stopId = free.output_ids![2];
      const first = free.output_ids!.indexOf(stopId);
      const ignored = await generate({ input_ids: prompt, sampling_params: { max_new_tokens: 12, sampling_seed: 7, ignore_eos: true, stop_token_ids: [stopId] }, return_logprob: true });
      expect(ignored.output_ids).toEqual(free.output_ids);
      const honoured = await generate({ input_ids: prompt, sampling_params: { max_new_tokens: 12, sampling_seed: 7, ignore_eos: false, stop_token_ids: [stopId] }, return_logprob: true });
      expect(honoured.output_ids).toEqual(free.output_ids!.slice(0, first + 1));
      expect(honoured.meta_info.finish_reason).toEqual({ type: 'stop', matched: stopId });
    });

    it('should stop at a stop id under ignore_eos on vLLM\'s /v1/completions, which checks stop ids apart from EOS', async () => {
      const free = await completion({ prompt, max_tokens: 12, seed: 7, ignore_eos: true, return_token_ids: true });
      const stopId = free.token_ids![2];
      const stopped = await completion({ prompt, max_tokens: 12, seed: 7, ignore_eos: true, stop_token_ids: [stopId], return_token_ids: true });
      expect(stopped.token_ids).toEqual(free.token_ids!.slice(0, free.token_ids!.indexOf(stopId) + 1));
      expect(stopped.stop_reason).toBe(stopId);
    });
  });

  describe('having sampling fields it does not implement', () => {
    it('should accept their neutral values and refuse any other with a coded 400, on both APIs', async () => {
      expect((await post('/v1/completions', { prompt, max_tokens: 2, top_k: 0, min_p: 0, repetition_penalty: 1, presence_penalty: 0, frequency_penalty: 0 })).status).toBe(200);
      expect((await post('/generate', { input_ids: prompt, sampling_params: { max_new_tokens: 2, top_k: -1, min_p: 0, repetition_penalty: 1, presence_penalty: 0, frequency_penalty: 0 } })).status).toBe(200);
      for (const [field, value] of [['min_p', 0.1], ['repetition_penalty', 1.1], ['presence_penalty', 0.5], ['frequency_penalty', 0.5]] as const) {
        const vllm = await post('/v1/completions', { prompt, max_tokens: 2, [field]: value });
        expect({ field, status: vllm.status, code: vllm.json.error.code }).toEqual({ field, status: 400, code: 'REQUEST_INVALID' });
        const sglang = await post('/generate', { input_ids: prompt, sampling_params: { max_new_tokens: 2, [field]: value } });
        expect({ field, status: sglang.status, code: sglang.json.error.code }).toEqual({ field, status: 400, code: 'REQUEST_INVALID' });
      }
    });
  });
});
