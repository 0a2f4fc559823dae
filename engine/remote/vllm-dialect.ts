import { fail } from '../../core/errors.ts';
import { checkStopToken, parseAnswer, refuseTemperedScoring, type Dialect, type SampleRequest, type SampleResult } from './dialect.ts';
import { TOKEN_ID_PREFIX, VllmCompletionResponseSchema, type VllmCompletionChoice, type VllmCompletionRequest } from './vllm-wire.ts';

/**
 * vLLM's OpenAI-compatible server: `POST /v1/completions` with token-id prompts, the sampled tokens' ids and
 * log-probabilities (`return_token_ids`, `logprobs: 0` with `return_tokens_as_token_ids`), `stop_token_ids`, a
 * per-request `seed`; scoring through `prompt_logprobs` with `max_tokens: 1`; adapters chosen by `model` and loaded
 * through `/v1/load_lora_adapter` (the server needs `--enable-lora` and VLLM_ALLOW_RUNTIME_LORA_UPDATING=True, and
 * `--logprobs-mode processed_logprobs` so log-probabilities are those of the temperature-scaled distribution, which
 * engine/remote/server-probes.ts checks at connect time). Every sampling field vLLM would otherwise fill from the
 * model's generation_config.json is sent, at its neutral value (VLLM_NEUTRAL_SAMPLING).
 */
export const vllmDialect: Dialect = {
  name: 'vllm',
  healthPath: '/health',
  checkCall(call) {
    refuseTemperedScoring('vLLM', call);
    if (call.topP < 1) {
      fail('REMOTE_UNSUPPORTED', `vLLM's processed log-probabilities are those of the distribution after top-p truncation, renormalized; ludus records the untruncated one the learner recomputes, so top_p ${call.topP} is refused on vLLM (use 1, or SGLang, whose log-probabilities are taken before truncation)`, { topP: call.topP });
    }
  },
  sample(request) {
    const body: VllmCompletionRequest = {
      ...modelOf(request.target),
      prompt: [...request.prompt],
      max_tokens: request.maxTokens,
      ...VLLM_NEUTRAL_SAMPLING,
      temperature: request.temperature,
      top_p: request.topP,
      seed: request.seed,
      stop_token_ids: [...request.stopTokenIds],
      // The call's stop ids end a row (they hold EOS wherever the game stops at it), as in-process: not the server's EOS.
      ignore_eos: true,
      ...(request.stopStrings.length > 0 ? { stop: [...request.stopStrings], include_stop_str_in_output: true } : {}),
      logprobs: 0,
      return_tokens_as_token_ids: true,
      return_token_ids: true,
    };
    return { path: '/v1/completions', body };
  },
  parseSample(json, request) {
    const choice = onlyChoice(json);
    const tokens = choice.token_ids ?? choice.logprobs?.tokens.map(tokenIdOf) ?? fail('REMOTE_RESPONSE_INVALID', 'vLLM completion: neither token_ids nor logprobs.tokens (send return_token_ids or logprobs)');
    const logprobs = choice.logprobs?.token_logprobs ?? fail('REMOTE_RESPONSE_INVALID', 'vLLM completion: no logprobs (the request asked for logprobs: 0)');
    if (logprobs.length !== tokens.length || logprobs.some((lp) => lp === null)) {
      fail('REMOTE_RESPONSE_INVALID', `vLLM completion: ${tokens.length} tokens but ${logprobs.filter((lp) => lp !== null).length} log-probabilities`);
    }
    if (tokens.length > request.maxTokens) fail('REMOTE_RESPONSE_INVALID', `vLLM completion: ${tokens.length} tokens, more than max_tokens ${request.maxTokens}`);
    const finish = finishOf(choice);
    if (finish === 'stop') checkStopToken('vLLM completion', typeof choice.stop_reason === 'number' ? choice.stop_reason : tokens[tokens.length - 1], request);
    return { tokens: [...tokens], logprobs: logprobs as number[], finish };
  },
  score(request) {
    const body: VllmCompletionRequest = {
      ...modelOf(request.target),
      prompt: [...request.sequence],
      max_tokens: 1,
      ...VLLM_NEUTRAL_SAMPLING,
      temperature: request.temperature,
      seed: 0,
      prompt_logprobs: 0,
    };
    return { path: '/v1/completions', body };
  },
  parseScore(json, request) {
    const entries = onlyChoice(json).prompt_logprobs ?? fail('REMOTE_RESPONSE_INVALID', 'vLLM completion: no prompt_logprobs (the request asked for prompt_logprobs: 0)');
    if (entries.length !== request.sequence.length) fail('REMOTE_RESPONSE_INVALID', `vLLM completion: ${entries.length} prompt_logprobs for a prompt of ${request.sequence.length} tokens`);
    return request.sequence.slice(request.from).map((token, k) => {
      const entry = entries[request.from + k]?.[String(token)];
      return entry?.logprob ?? fail('REMOTE_RESPONSE_INVALID', `vLLM completion: prompt_logprobs[${request.from + k}] has no entry for its token ${token}`);
    });
  },
  loadAdapter: (name, path) => ({ path: '/v1/load_lora_adapter', body: { lora_name: name, lora_path: path } }),
  unloadAdapter: (name) => ({ path: '/v1/unload_lora_adapter', body: { lora_name: name } }),
  // Only served with VLLM_SERVER_DEV_MODE=1; adapters under new names need no reset.
};

/**
 * The neutral value of every sampling field that vLLM fills, when a request leaves it out, from the model's
 * generation_config.json (CompletionRequest._DEFAULT_SAMPLING_PARAMS; Qwen3 ships top_k 20, for one): sent always, so
 * the server samples the distribution the learner assumes.
 */
export const VLLM_NEUTRAL_SAMPLING = { top_k: 0, min_p: 0, repetition_penalty: 1, presence_penalty: 0, frequency_penalty: 0 } as const;

function modelOf(target: SampleRequest['target']): { model?: string } {
  const model = target.adapter ?? target.model;
  return model === undefined ? {} : { model };
}

function onlyChoice(json: unknown): VllmCompletionChoice {
  const response = parseAnswer(VllmCompletionResponseSchema, json, 'vLLM completion');
  if (response.choices.length !== 1) fail('REMOTE_RESPONSE_INVALID', `vLLM completion: ${response.choices.length} choices for one prompt`);
  return response.choices[0];
}

function tokenIdOf(token: string): number {
  const id = token.startsWith(TOKEN_ID_PREFIX) ? Number(token.slice(TOKEN_ID_PREFIX.length)) : Number.NaN;
  return Number.isInteger(id) && id >= 0 ? id : fail('REMOTE_RESPONSE_INVALID', `vLLM completion: token "${token}" is not "${TOKEN_ID_PREFIX}<id>" (send return_tokens_as_token_ids)`);
}

function finishOf(choice: VllmCompletionChoice): SampleResult['finish'] {
  if (choice.finish_reason === 'length') return 'length';
  if (choice.finish_reason === 'stop') return typeof choice.stop_reason === 'string' ? 'stop-sequence' : 'stop';
  return fail('REMOTE_RESPONSE_INVALID', `vLLM completion: finish_reason ${JSON.stringify(choice.finish_reason)} (expected "stop" or "length")`);
}
