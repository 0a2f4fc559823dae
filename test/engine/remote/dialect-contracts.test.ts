import { describe, expect, it } from 'vitest';
import type { SampleRequest, ScoreRequest } from '../../../engine/remote/dialect.ts';
import { sglangDialect } from '../../../engine/remote/sglang-dialect.ts';
import { vllmDialect } from '../../../engine/remote/vllm-dialect.ts';

/**
 * Field names as vLLM and SGLang define them: vLLM `CompletionRequest` (vllm/entrypoints/openai/completion/protocol.py),
 * SGLang `GenerateReqInput` (python/sglang/srt/managers/io_struct.py) and `SamplingParams`
 * (python/sglang/srt/sampling/sampling_params.py). Every field ludus sends must be one of them.
 */
const VLLM_COMPLETION_FIELDS = [
  'model', 'prompt', 'echo', 'frequency_penalty', 'logit_bias', 'logprobs', 'max_tokens', 'n', 'presence_penalty', 'seed', 'stop', 'stream',
  'suffix', 'temperature', 'top_p', 'user', 'top_k', 'min_p', 'repetition_penalty', 'stop_token_ids', 'include_stop_str_in_output', 'ignore_eos',
  'min_tokens', 'skip_special_tokens', 'prompt_logprobs', 'return_tokens_as_token_ids', 'return_token_ids', 'request_id',
];
const SGLANG_GENERATE_FIELDS = ['text', 'input_ids', 'sampling_params', 'rid', 'return_logprob', 'logprob_start_len', 'top_logprobs_num', 'return_text_in_logprobs', 'stream', 'lora_path'];
const SGLANG_SAMPLING_FIELDS = ['max_new_tokens', 'stop', 'stop_token_ids', 'temperature', 'top_p', 'top_k', 'min_p', 'ignore_eos', 'skip_special_tokens', 'no_stop_trim', 'sampling_seed'];

const sample: SampleRequest = { target: { adapter: 'senior-v3' }, prompt: [5, 6, 7], maxTokens: 4, temperature: 0.6, topP: 1, seed: 1234, stopTokenIds: [2], stopStrings: [] };
const score: ScoreRequest = { target: {}, sequence: [5, 6, 7, 8, 9], from: 3, temperature: 0.6 };

describe('the vLLM dialect', () => {
  describe('having a span to sample', () => {
    it('should POST /v1/completions with token ids, the adapter as model, a seed, stop ids (not the server\'s EOS) and sampled-token logprobs as ids', () => {
      const { path, body } = vllmDialect.sample(sample);
      expect(path).toBe('/v1/completions');
      expect(body).toEqual({
        model: 'senior-v3',
        prompt: [5, 6, 7],
        max_tokens: 4,
        temperature: 0.6,
        top_p: 1,
        seed: 1234,
        stop_token_ids: [2],
        ignore_eos: true,
        logprobs: 0,
        return_tokens_as_token_ids: true,
        return_token_ids: true,
      });
      expect(Object.keys(body as object).filter((key) => !VLLM_COMPLETION_FIELDS.includes(key))).toEqual([]);
    });

    it('should send stop strings with include_stop_str_in_output, and no model for the base', () => {
      const { body } = vllmDialect.sample({ ...sample, target: {}, stopStrings: ['\n\n'] });
      expect(body).toMatchObject({ stop: ['\n\n'], include_stop_str_in_output: true });
      expect(body).not.toHaveProperty('model');
    });
  });

  describe('having a completion as vLLM returns it', () => {
    const response = (choice: Record<string, unknown>) => ({
      id: 'cmpl-1',
      object: 'text_completion',
      created: 1,
      model: 'senior-v3',
      choices: [{ index: 0, text: ' twelve', finish_reason: 'length', stop_reason: null, ...choice }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    });
    const logprobs = { tokens: ['token_id:40', 'token_id:41'], token_logprobs: [-0.5, -1.25], text_offset: [0, 3], top_logprobs: [{ 'token_id:40': -0.5 }, { 'token_id:41': -1.25 }] };

    it('should read the tokens from token_ids, else from "token_id:<id>" strings, with their log-probabilities', () => {
      expect(vllmDialect.parseSample(response({ token_ids: [40, 41], logprobs }), sample)).toEqual({ tokens: [40, 41], logprobs: [-0.5, -1.25], finish: 'length' });
      expect(vllmDialect.parseSample(response({ logprobs }), sample).tokens).toEqual([40, 41]);
    });

    it('should read a stop token as stop and a stop string as stop-sequence', () => {
      expect(vllmDialect.parseSample(response({ logprobs, finish_reason: 'stop', stop_reason: 2 }), sample).finish).toBe('stop');
      expect(vllmDialect.parseSample(response({ logprobs, finish_reason: 'stop', stop_reason: null }), sample).finish).toBe('stop');
      expect(vllmDialect.parseSample(response({ logprobs, finish_reason: 'stop', stop_reason: '\n\n' }), sample).finish).toBe('stop-sequence');
    });

    it('should refuse answers that break the contract with REMOTE_RESPONSE_INVALID', () => {
      const refusals = [
        response({}),
        response({ logprobs: { ...logprobs, token_logprobs: [-0.5] } }),
        response({ logprobs: { ...logprobs, tokens: ['twelve', 'x'] } }),
        response({ logprobs, finish_reason: 'abort' }),
        response({ logprobs: { ...logprobs, tokens: ['token_id:1', 'token_id:2', 'token_id:3', 'token_id:4', 'token_id:5'], token_logprobs: [-1, -1, -1, -1, -1] } }),
        { ...response({ logprobs }), choices: [] },
        { error: { message: 'oops' } },
      ];
      for (const answer of refusals) expect(() => vllmDialect.parseSample(answer, sample)).toThrow(expect.objectContaining({ code: 'REMOTE_RESPONSE_INVALID' }));
    });
  });

  describe('having a co-written sequence to score', () => {
    it('should ask for prompt_logprobs with max_tokens 1 and read each token at its position', () => {
      const { path, body } = vllmDialect.score(score);
      expect(path).toBe('/v1/completions');
      expect(body).toEqual({ prompt: [5, 6, 7, 8, 9], max_tokens: 1, temperature: 0.6, seed: 0, prompt_logprobs: 0 });
      const promptLogprobs = [null, { 6: { logprob: -1, rank: 1, decoded_token: 'a' } }, { 7: { logprob: -2, rank: 2, decoded_token: 'b' } }, { 8: { logprob: -3, rank: 1, decoded_token: 'c' }, 4: { logprob: -0.1, rank: 1, decoded_token: 'd' } }, { 9: { logprob: -4, rank: 7, decoded_token: 'e' } }];
      const answer = { id: 'c', object: 'text_completion', created: 1, model: 'm', choices: [{ index: 0, text: 'x', finish_reason: 'length', prompt_logprobs: promptLogprobs }], usage: { prompt_tokens: 5, total_tokens: 6 } };
      expect(vllmDialect.parseScore(answer, score)).toEqual([-3, -4]);
      expect(() => vllmDialect.parseScore({ ...answer, choices: [{ ...answer.choices[0], prompt_logprobs: promptLogprobs.slice(0, 4) }] }, score)).toThrow(expect.objectContaining({ code: 'REMOTE_RESPONSE_INVALID' }));
    });
  });

  describe('having a policy to push', () => {
    it('should load it as an adapter by name and path', () => {
      expect(vllmDialect.loadAdapter('senior-v4', '/w/senior/v4')).toEqual({ path: '/v1/load_lora_adapter', body: { lora_name: 'senior-v4', lora_path: '/w/senior/v4' } });
      expect(vllmDialect.unloadAdapter('senior-v3')).toEqual({ path: '/v1/unload_lora_adapter', body: { lora_name: 'senior-v3' } });
      expect(vllmDialect.updateWeights).toBeUndefined();
    });
  });
});

describe('the SGLang dialect', () => {
  describe('having a span to sample', () => {
    it('should POST /generate with input_ids, sampling_params with its seed and stop ids, return_logprob and the adapter as lora_path', () => {
      const { path, body } = sglangDialect.sample(sample);
      expect(path).toBe('/generate');
      expect(body).toEqual({
        input_ids: [5, 6, 7],
        sampling_params: { max_new_tokens: 4, temperature: 0.6, top_p: 1, sampling_seed: 1234, stop_token_ids: [2], ignore_eos: true, no_stop_trim: true },
        return_logprob: true,
        lora_path: 'senior-v3',
      });
      const sent = body as { sampling_params: object };
      expect(Object.keys(sent).filter((key) => !SGLANG_GENERATE_FIELDS.includes(key))).toEqual([]);
      expect(Object.keys(sent.sampling_params).filter((key) => !SGLANG_SAMPLING_FIELDS.includes(key))).toEqual([]);
    });
  });

  describe('having a generation as SGLang returns it', () => {
    const output = (meta: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
      text: ' twelve',
      output_ids: [40, 41],
      meta_info: { id: 'r1', finish_reason: { type: 'length', length: 2 }, prompt_tokens: 3, completion_tokens: 2, cached_tokens: 2, output_token_logprobs: [[-0.5, 40, null], [-1.25, 41, null]], ...meta },
      ...extra,
    });

    it('should read the tokens and log-probabilities from output_token_logprobs and the finish from finish_reason', () => {
      expect(sglangDialect.parseSample(output({}), sample)).toEqual({ tokens: [40, 41], logprobs: [-0.5, -1.25], finish: 'length' });
      expect(sglangDialect.parseSample(output({ finish_reason: { type: 'stop', matched: 41 } }), sample).finish).toBe('stop');
      expect(sglangDialect.parseSample(output({ finish_reason: { type: 'stop', matched: '\n\n' } }), sample).finish).toBe('stop-sequence');
    });

    it('should refuse answers that break the contract with REMOTE_RESPONSE_INVALID', () => {
      const refusals = [
        output({ output_token_logprobs: undefined }),
        output({}, { output_ids: [40, 42] }),
        output({ output_token_logprobs: [[null, 40, null], [-1, 41, null]] }),
        output({ finish_reason: { type: 'abort' } }),
        output({ finish_reason: null }),
        { text: 'x' },
      ];
      for (const answer of refusals) expect(() => sglangDialect.parseSample(answer, sample)).toThrow(expect.objectContaining({ code: 'REMOTE_RESPONSE_INVALID' }));
    });
  });

  describe('having a co-written sequence to score', () => {
    it('should ask from logprob_start_len and read the input_token_logprobs aligned on the tokens', () => {
      const { body } = sglangDialect.score(score);
      expect(body).toEqual({ input_ids: [5, 6, 7, 8, 9], sampling_params: { max_new_tokens: 1, temperature: 0.6 }, return_logprob: true, logprob_start_len: 3 });
      const answer = (entries: unknown[]) => ({ text: 'x', meta_info: { id: 'r', finish_reason: { type: 'length' }, prompt_tokens: 5, completion_tokens: 1, input_token_logprobs: entries } });
      expect(sglangDialect.parseScore(answer([[-3, 8, null], [-4, 9, null]]), score)).toEqual([-3, -4]);
      expect(sglangDialect.parseScore(answer([[null, 5, null], [-1, 6, null], [-2, 7, null], [-3, 8, null], [-4, 9, null]]), score)).toEqual([-3, -4]);
      expect(() => sglangDialect.parseScore(answer([[-3, 8, null], [-4, 10, null]]), score)).toThrow(expect.objectContaining({ code: 'REMOTE_RESPONSE_INVALID' }));
    });
  });

  describe('having a policy to push', () => {
    it('should update the served weights from disk with a version, or load an adapter', () => {
      const update = sglangDialect.updateWeights!('/w/senior/v4', 4);
      expect(update).toMatchObject({ path: '/update_weights_from_disk', body: { model_path: '/w/senior/v4', weight_version: '4', flush_cache: true } });
      expect(() => update.check!({ success: false, message: 'shape mismatch' })).toThrow(expect.objectContaining({ code: 'REMOTE_REJECTED' }));
      expect(() => update.check!({ success: true, message: 'ok', num_paused_requests: 0 })).not.toThrow();
      expect(sglangDialect.loadAdapter('senior-v4', '/w/senior/v4')).toEqual({ path: '/load_lora_adapter', body: { lora_name: 'senior-v4', lora_path: '/w/senior/v4' } });
    });
  });
});
