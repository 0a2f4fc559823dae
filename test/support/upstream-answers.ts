/**
 * Answers shaped as the real servers serialize them, for contract tests. `raw[t]` is the temperature-1 log-probability
 * of token t given the ones before (both servers score prompts from the raw logits, whatever the temperature).
 */

/**
 * SGLang's /generate answer to a scoring request: the scheduler computes log-probabilities for the positions after
 * logprob_start_len plus the sampled token, then stores `[None] + input_token_logprobs[:-1]` against
 * `origin_input_ids[logprob_start_len:]` (SchedulerOutputProcessorMixin._process_input_token_logprobs), so the entry of
 * the token at logprob_start_len is None.
 */
export function sglangGenerateAnswer(ids: readonly number[], start: number, raw: readonly number[], sampled = { id: 0, logprob: -0.5 }) {
  const computed = [...raw.slice(start + 1), sampled.logprob];
  const values = [null, ...computed.slice(0, -1)];
  return {
    text: 'x',
    output_ids: [sampled.id],
    meta_info: {
      id: 'r',
      finish_reason: { type: 'length', length: 1 },
      prompt_tokens: ids.length,
      completion_tokens: 1,
      cached_tokens: 0,
      input_token_logprobs: ids.slice(start).map((id, k) => [values[k], id, null]),
      output_token_logprobs: [[sampled.logprob, sampled.id, null]],
    },
  };
}

/** vLLM's /v1/completions answer with `prompt_logprobs: 0`: None for the first token, then `{id: Logprob}` (the token itself, with its rank). */
export function vllmPromptLogprobsAnswer(ids: readonly number[], raw: readonly number[]) {
  return {
    id: 'cmpl-1',
    object: 'text_completion',
    created: 1,
    model: 'm',
    choices: [
      {
        index: 0,
        text: 'x',
        logprobs: null,
        finish_reason: 'length',
        stop_reason: null,
        prompt_logprobs: ids.map((id, t) => (t === 0 ? null : { [String(id)]: { logprob: raw[t], rank: 1, decoded_token: 'x' } })),
      },
    ],
    usage: { prompt_tokens: ids.length, completion_tokens: 1, total_tokens: ids.length + 1 },
  };
}
