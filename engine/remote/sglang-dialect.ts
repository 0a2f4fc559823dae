import { fail } from '../../core/errors.ts';
import { checkStopToken, parseAnswer, refuseTemperedScoring, type Dialect, type SampleRequest, type SampleResult } from './dialect.ts';
import { SglangGenerateOutputSchema, SglangUpdateWeightsFromDiskResponseSchema, type SglangGenerateOutput, type SglangGenerateRequest } from './sglang-wire.ts';

/**
 * SGLang's native API: `POST /generate` with `input_ids`, `sampling_params` (`stop_token_ids`, `sampling_seed`;
 * the server needs `--enable-deterministic-inference` for seeds to replay), `return_logprob` with `logprob_start_len`
 * for scoring, a per-request `lora_path`; weights through `/update_weights_from_disk` or `/load_lora_adapter`.
 * Its output log-probabilities are those of the temperature-scaled distribution before top-k/top-p truncation (as
 * ludus records them); its input log-probabilities come from the raw logits, padded with a None for the first one.
 */
export const sglangDialect: Dialect = {
  name: 'sglang',
  healthPath: '/health',
  checkCall: (call) => refuseTemperedScoring('SGLang', call),
  sample(request) {
    const body: SglangGenerateRequest = {
      input_ids: [...request.prompt],
      sampling_params: {
        max_new_tokens: request.maxTokens,
        ...SGLANG_NEUTRAL_SAMPLING,
        temperature: request.temperature,
        top_p: request.topP,
        sampling_seed: request.seed,
        stop_token_ids: [...request.stopTokenIds],
        ignore_eos: ignoresEos(request),
        ...(request.stopStrings.length > 0 ? { stop: [...request.stopStrings] } : {}),
        no_stop_trim: true,
      },
      return_logprob: true,
      ...(request.target.adapter === undefined ? {} : { lora_path: request.target.adapter }),
    };
    return { path: '/generate', body };
  },
  parseSample(json, request) {
    const output = parseAnswer(SglangGenerateOutputSchema, json, 'SGLang generate');
    const entries = output.meta_info.output_token_logprobs ?? fail('REMOTE_RESPONSE_INVALID', 'SGLang generate: no meta_info.output_token_logprobs (the request asked for return_logprob)');
    const tokens = entries.map(([, id]) => id);
    if (output.output_ids && output.output_ids.join() !== tokens.join()) fail('REMOTE_RESPONSE_INVALID', 'SGLang generate: output_ids and output_token_logprobs name different tokens');
    if (entries.some(([logprob]) => logprob === null)) fail('REMOTE_RESPONSE_INVALID', 'SGLang generate: an output token has a null log-probability');
    if (tokens.length > request.maxTokens) fail('REMOTE_RESPONSE_INVALID', `SGLang generate: ${tokens.length} tokens, more than max_new_tokens ${request.maxTokens}`);
    const finish = finishOf(output);
    if (finish === 'stop') checkStopToken('SGLang generate', tokens[tokens.length - 1], request);
    return { tokens, logprobs: entries.map(([logprob]) => logprob as number), finish };
  },
  score(request) {
    if (request.from < 1) fail('INPUT_INVALID', `SGLang scoring from token ${request.from}: the first token of a sequence has no log-probability`, { from: request.from });
    const body: SglangGenerateRequest = {
      input_ids: [...request.sequence],
      sampling_params: { max_new_tokens: 1, ...SGLANG_NEUTRAL_SAMPLING, temperature: request.temperature },
      return_logprob: true,
      // SGLang answers None for the token at logprob_start_len (`[None] + input_token_logprobs[:-1]`): start one earlier.
      logprob_start_len: request.from - 1,
      ...(request.target.adapter === undefined ? {} : { lora_path: request.target.adapter }),
    };
    return { path: '/generate', body };
  },
  parseScore(json, request) {
    const output = parseAnswer(SglangGenerateOutputSchema, json, 'SGLang generate');
    const entries = output.meta_info.input_token_logprobs ?? fail('REMOTE_RESPONSE_INVALID', 'SGLang generate: no meta_info.input_token_logprobs (the request asked for return_logprob)');
    const wanted = request.sequence.slice(request.from);
    // Aligned on the tokens themselves: the entries end with the prompt's last token; the padding None falls before them.
    const tail = entries.slice(Math.max(0, entries.length - wanted.length));
    if (tail.length !== wanted.length || tail.some(([logprob, id], k) => logprob === null || id !== wanted[k])) {
      fail('REMOTE_RESPONSE_INVALID', `SGLang generate: input_token_logprobs do not cover tokens ${request.from}..${request.sequence.length - 1} of the prompt`);
    }
    return tail.map(([logprob]) => logprob as number);
  },
  loadAdapter: (name, path) => ({ path: '/load_lora_adapter', body: { lora_name: name, lora_path: path } }),
  unloadAdapter: (name) => ({ path: '/unload_lora_adapter', body: { lora_name: name } }),
  updateWeights: (path, version) => ({ path: '/update_weights_from_disk', body: { model_path: path, weight_version: String(version), flush_cache: true }, check: checkWeightsUpdated }),
};

/**
 * The neutral value of every sampling field SGLang fills, when a request leaves it out, from the model's
 * generation_config.json (its default `--sampling-defaults model`): sent always.
 */
export const SGLANG_NEUTRAL_SAMPLING = { top_k: -1, min_p: 0, repetition_penalty: 1, presence_penalty: 0, frequency_penalty: 0 } as const;

/**
 * SGLang ignores `stop_token_ids` under `ignore_eos: true` (Req._check_token_based_finish returns at once), so a
 * request told to ignore EOS runs to its whole budget and the client cuts it. Where the request's stop ids already hold
 * every EOS id of the policy's config, the server may stop at EOS as well as at them: ignore_eos is false, and no
 * token is wasted. (A server that stops at an id the request did not name is refused: checkStopToken.)
 */
export function ignoresEos(request: SampleRequest): boolean {
  return request.eosTokenIds.length === 0 || !request.eosTokenIds.every((id) => request.stopTokenIds.includes(id));
}

/** Checks an /update_weights_from_disk answer: `success: false` is a refusal. */
function checkWeightsUpdated(json: unknown): void {
  const answer = parseAnswer(SglangUpdateWeightsFromDiskResponseSchema, json, 'SGLang update_weights_from_disk');
  if (!answer.success) fail('REMOTE_REJECTED', `SGLang update_weights_from_disk: ${answer.message}`);
}

function finishOf(output: SglangGenerateOutput): SampleResult['finish'] {
  const reason = output.meta_info.finish_reason;
  if (reason?.type === 'length') return 'length';
  if (reason?.type === 'stop') return typeof reason.matched === 'string' ? 'stop-sequence' : 'stop';
  return fail('REMOTE_RESPONSE_INVALID', `SGLang generate: finish_reason ${JSON.stringify(reason)} (expected type "stop" or "length")`);
}
