import { describe, expect, it } from 'vitest';
import type { SampleRequest, ScoreRequest } from '../../../engine/remote/dialect.ts';
import { SGLANG_NEUTRAL_SAMPLING, sglangDialect } from '../../../engine/remote/sglang-dialect.ts';
import { VLLM_NEUTRAL_SAMPLING, vllmDialect } from '../../../engine/remote/vllm-dialect.ts';
import { sglangGenerateAnswer, vllmPromptLogprobsAnswer } from '../../support/upstream-answers.ts';
import { UPSTREAM, violations } from '../../support/upstream-models.ts';

const sample: SampleRequest = { target: { adapter: 'senior-v3' }, prompt: [5, 6, 7], maxTokens: 4, temperature: 0.6, topP: 1, seed: 1234, stopTokenIds: [2], stopStrings: [], eosTokenIds: [2] };
const score: ScoreRequest = { target: {}, sequence: [5, 6, 7, 8, 9], from: 3, temperature: 1 };
/** Raw (temperature 1) log-probability of each token of `score.sequence` given the ones before; position 0 has none. */
const RAW = [Number.NaN, -1, -2, -3, -4];

describe('the upstream request models (test/fixtures/remote/upstream-request-models.json)', () => {
  it('should refuse an undeclared field, a wrong type and a value out of bounds, so that a clean check means something', () => {
    expect(violations(UPSTREAM.vllm, { prompt: [1, 2], max_tokens: 4 })).toEqual([]);
    expect(violations(UPSTREAM.vllm, { prompt: [1, -2] })).toHaveLength(1);
    expect(violations(UPSTREAM.vllm, { top_k: 1.5 })).toHaveLength(1);
    expect(violations(UPSTREAM.vllm, { sampling_seed: 3 })).toEqual([expect.stringContaining('has no field "sampling_seed"')]);
    expect(violations(UPSTREAM.sglangSampling, { seed: 3 })).toEqual([expect.stringContaining('has no field "seed"')]);
    expect(violations(UPSTREAM.sglangGenerate, { input_ids: [[1, 2], [3]], lora_path: 'a' })).toEqual([]);
    expect(violations(UPSTREAM.vllm, { stream_options: {} })).toEqual([expect.stringContaining('no member of the union')]);
  });
});

describe('the vLLM dialect', () => {
  describe('having a span to sample', () => {
    it('should POST /v1/completions with token ids, the adapter as model, a seed, stop ids (not the server\'s EOS) and sampled-token logprobs as ids', () => {
      const { path, body } = vllmDialect.sample(sample);
      expect(path).toBe('/v1/completions');
      expect(body).toEqual({
        model: 'senior-v3',
        prompt: [5, 6, 7],
        max_tokens: 4,
        ...VLLM_NEUTRAL_SAMPLING,
        temperature: 0.6,
        top_p: 1,
        seed: 1234,
        stop_token_ids: [2],
        ignore_eos: true,
        logprobs: 0,
        return_tokens_as_token_ids: true,
        return_token_ids: true,
      });
      expect(violations(UPSTREAM.vllm, body as Record<string, unknown>)).toEqual([]);
      expect(violations(UPSTREAM.vllm, vllmDialect.sample({ ...sample, target: {}, stopStrings: ['\n\n'] }).body as Record<string, unknown>)).toEqual([]);
    });

    it('should send every field vLLM would fill from generation_config.json, at its neutral value', () => {
      const { body } = vllmDialect.sample(sample);
      const { neutral } = UPSTREAM.vllm.defaultsFromGenerationConfig;
      for (const field of Object.keys(neutral)) expect(body).toHaveProperty(field);
      expect(VLLM_NEUTRAL_SAMPLING).toEqual(Object.fromEntries(Object.entries(neutral).filter(([field]) => field !== 'temperature' && field !== 'top_p')));
    });

    it('should send stop strings with include_stop_str_in_output, and no model for the base', () => {
      const { body } = vllmDialect.sample({ ...sample, target: {}, stopStrings: ['\n\n'] });
      expect(body).toMatchObject({ stop: ['\n\n'], include_stop_str_in_output: true });
      expect(body).not.toHaveProperty('model');
    });
  });

  describe('having a call vLLM would answer with the wrong log-probabilities', () => {
    it('should refuse partner scoring at a temperature other than 1 and top_p below 1, with REMOTE_UNSUPPORTED saying why', () => {
      expect(() => vllmDialect.checkCall({ temperature: 0.6, topP: 1, scoring: true })).toThrow(expect.objectContaining({ code: 'REMOTE_UNSUPPORTED', message: expect.stringContaining('raw logits') }));
      expect(() => vllmDialect.checkCall({ temperature: 0.6, topP: 0.9, scoring: false })).toThrow(expect.objectContaining({ code: 'REMOTE_UNSUPPORTED', message: expect.stringContaining('top-p truncation') }));
      expect(() => vllmDialect.checkCall({ temperature: 0.6, topP: 1, scoring: false })).not.toThrow();
      expect(() => vllmDialect.checkCall({ temperature: 1, topP: 1, scoring: true })).not.toThrow();
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
    const stopped = { tokens: ['token_id:40', 'token_id:2'], token_logprobs: [-0.5, -1.25] };

    it('should read the tokens from token_ids, else from "token_id:<id>" strings, with their log-probabilities', () => {
      expect(vllmDialect.parseSample(response({ token_ids: [40, 41], logprobs }), sample)).toEqual({ tokens: [40, 41], logprobs: [-0.5, -1.25], finish: 'length' });
      expect(vllmDialect.parseSample(response({ logprobs }), sample).tokens).toEqual([40, 41]);
    });

    it('should read a stop token as stop and a stop string as stop-sequence', () => {
      expect(vllmDialect.parseSample(response({ logprobs: stopped, finish_reason: 'stop', stop_reason: 2 }), sample).finish).toBe('stop');
      expect(vllmDialect.parseSample(response({ logprobs: stopped, finish_reason: 'stop', stop_reason: null }), sample).finish).toBe('stop');
      expect(vllmDialect.parseSample(response({ logprobs, finish_reason: 'stop', stop_reason: '\n\n' }), sample).finish).toBe('stop-sequence');
    });

    it('should refuse answers that break the contract with REMOTE_RESPONSE_INVALID, a stop at an id the request did not name among them', () => {
      const refusals = [
        response({}),
        response({ logprobs: { ...logprobs, token_logprobs: [-0.5] } }),
        response({ logprobs: { ...logprobs, tokens: ['twelve', 'x'] } }),
        response({ logprobs, finish_reason: 'abort' }),
        response({ logprobs: { ...logprobs, tokens: ['token_id:1', 'token_id:2', 'token_id:3', 'token_id:4', 'token_id:5'], token_logprobs: [-1, -1, -1, -1, -1] } }),
        response({ logprobs, finish_reason: 'stop', stop_reason: 41 }),
        response({ logprobs, finish_reason: 'stop', stop_reason: null }),
        { ...response({ logprobs }), choices: [] },
        { error: { message: 'oops' } },
      ];
      for (const answer of refusals) expect(() => vllmDialect.parseSample(answer, sample)).toThrow(expect.objectContaining({ code: 'REMOTE_RESPONSE_INVALID' }));
    });
  });

  describe('having a co-written sequence to score', () => {
    it('should ask for prompt_logprobs with max_tokens 1 and read each token at its position of the answer vLLM serializes', () => {
      const { path, body } = vllmDialect.score(score);
      expect(path).toBe('/v1/completions');
      expect(body).toEqual({ prompt: [5, 6, 7, 8, 9], max_tokens: 1, ...VLLM_NEUTRAL_SAMPLING, temperature: 1, seed: 0, prompt_logprobs: 0 });
      expect(violations(UPSTREAM.vllm, body as Record<string, unknown>)).toEqual([]);
      const answer = vllmPromptLogprobsAnswer(score.sequence, RAW);
      expect(vllmDialect.parseScore(answer, score)).toEqual([-3, -4]);
      const short = { ...answer, choices: [{ ...answer.choices[0], prompt_logprobs: answer.choices[0].prompt_logprobs.slice(0, 4) }] };
      expect(() => vllmDialect.parseScore(short, score)).toThrow(expect.objectContaining({ code: 'REMOTE_RESPONSE_INVALID' }));
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
    it('should POST /generate with input_ids, sampling_params with its seed, stop ids and neutral values, return_logprob and the adapter as lora_path', () => {
      const { path, body } = sglangDialect.sample(sample);
      expect(path).toBe('/generate');
      expect(body).toEqual({
        input_ids: [5, 6, 7],
        sampling_params: { max_new_tokens: 4, ...SGLANG_NEUTRAL_SAMPLING, temperature: 0.6, top_p: 1, sampling_seed: 1234, stop_token_ids: [2], ignore_eos: false, no_stop_trim: true },
        return_logprob: true,
        lora_path: 'senior-v3',
      });
      const sent = body as { sampling_params: Record<string, unknown> };
      expect(violations(UPSTREAM.sglangGenerate, sent)).toEqual([]);
      expect(violations(UPSTREAM.sglangSampling, sent.sampling_params)).toEqual([]);
      expect(SGLANG_NEUTRAL_SAMPLING).toEqual(UPSTREAM.sglangSampling.neutral);
    });

    it('should let the server stop at EOS only where the stop ids hold every EOS id (SGLang ignores stop_token_ids under ignore_eos)', () => {
      const ignoreEos = (request: SampleRequest) => (sglangDialect.sample(request).body as { sampling_params: { ignore_eos: boolean } }).sampling_params.ignore_eos;
      expect(ignoreEos(sample)).toBe(false);
      expect(ignoreEos({ ...sample, stopTokenIds: [2, 9] })).toBe(false);
      expect(ignoreEos({ ...sample, stopTokenIds: [9] })).toBe(true);
      expect(ignoreEos({ ...sample, eosTokenIds: [2, 3] })).toBe(true);
      expect(ignoreEos({ ...sample, eosTokenIds: [] })).toBe(true);
    });
  });

  describe('having a call SGLang would answer with the wrong log-probabilities', () => {
    it('should refuse partner scoring at a temperature other than 1 with REMOTE_UNSUPPORTED, and accept top_p below 1 (its log-probabilities are taken before truncation)', () => {
      expect(() => sglangDialect.checkCall({ temperature: 0.6, topP: 1, scoring: true })).toThrow(expect.objectContaining({ code: 'REMOTE_UNSUPPORTED' }));
      expect(() => sglangDialect.checkCall({ temperature: 0.6, topP: 0.9, scoring: false })).not.toThrow();
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
      expect(sglangDialect.parseSample(output({ finish_reason: { type: 'stop', matched: 2 }, output_token_logprobs: [[-0.5, 40, null], [-1.25, 2, null]] }, { output_ids: [40, 2] }), sample).finish).toBe('stop');
      expect(sglangDialect.parseSample(output({ finish_reason: { type: 'stop', matched: '\n\n' } }), sample).finish).toBe('stop-sequence');
    });

    it('should refuse answers that break the contract with REMOTE_RESPONSE_INVALID, a stop at a token the request did not name among them', () => {
      const refusals = [
        output({ output_token_logprobs: undefined }),
        output({}, { output_ids: [40, 42] }),
        output({ output_token_logprobs: [[null, 40, null], [-1, 41, null]] }),
        output({ finish_reason: { type: 'abort' } }),
        output({ finish_reason: null }),
        output({ finish_reason: { type: 'stop', matched: 41 } }),
        { text: 'x' },
      ];
      for (const answer of refusals) expect(() => sglangDialect.parseSample(answer, sample)).toThrow(expect.objectContaining({ code: 'REMOTE_RESPONSE_INVALID' }));
    });
  });

  describe('having a co-written sequence to score', () => {
    it('should start one token early, since SGLang pads the first input log-probability with None, and read the answer it serializes', () => {
      const { body } = sglangDialect.score(score);
      expect(body).toEqual({ input_ids: [5, 6, 7, 8, 9], sampling_params: { max_new_tokens: 1, ...SGLANG_NEUTRAL_SAMPLING, temperature: 1 }, return_logprob: true, logprob_start_len: 2 });
      const sent = body as { sampling_params: Record<string, unknown> };
      expect(violations(UPSTREAM.sglangGenerate, sent)).toEqual([]);
      expect(violations(UPSTREAM.sglangSampling, sent.sampling_params)).toEqual([]);
      const answer = sglangGenerateAnswer(score.sequence, 2, RAW);
      expect(answer.meta_info.input_token_logprobs).toEqual([[null, 7, null], [-3, 8, null], [-4, 9, null]]);
      expect(sglangDialect.parseScore(answer, score)).toEqual([-3, -4]);
      // What the dialect sent before: logprob_start_len at the first scored token, whose entry SGLang pads with None.
      expect(() => sglangDialect.parseScore(sglangGenerateAnswer(score.sequence, 3, RAW), score)).toThrow(expect.objectContaining({ code: 'REMOTE_RESPONSE_INVALID' }));
      expect(sglangDialect.parseScore(sglangGenerateAnswer(score.sequence, 0, RAW), score)).toEqual([-3, -4]);
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
