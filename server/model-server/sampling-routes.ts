import { randomUUID } from 'node:crypto';
import { fail } from '../../core/errors.ts';
import { deriveSeed } from '../../core/rng.ts';
import { SglangGenerateRequestSchema, SglangLoadLoraAdapterRequestSchema, SglangUnloadLoraAdapterRequestSchema, SglangUpdateWeightsFromDiskRequestSchema } from '../../engine/remote/sglang-wire.ts';
import { VllmLoadLoraAdapterRequestSchema, VllmUnloadLoraAdapterRequestSchema } from '../../engine/remote/vllm-wire.ts';
import { ensureWithin } from '../request-guard.ts';
import type { SampleJob, SampleOutcome } from './batcher.ts';
import { parseRequest, type Route } from './json-routes.ts';
import type { ServedModel, ServedModels } from './served-models.ts';

/**
 * The sampling and weight-management endpoints of `ludus serve-model`, in vLLM's and SGLang's dialects over the same
 * engine (vLLM's `/v1/completions` and `/v1/chat/completions` in completion-routes.ts): completions with token ids and log-probabilities, prompt log-probabilities, seeds, stop tokens and
 * strings, adapters by name (full model directories until ludus has LoRA), weights replaced from disk. ludus keeps
 * no prefix cache, so the cache resets answer at once.
 */
export function samplingRoutes(models: ServedModels, limits: { readonly maxRequestTokens: number }): Map<string, Route> {
  /** Prompt tokens plus new tokens over a request's prompts: bounded before anything is queued. */
  const bounded = (prompts: readonly (readonly number[])[], maxTokens: number, field: string) =>
    ensureWithin(`${prompts.length} prompts of ${prompts.reduce((a, p) => a + p.length, 0)} tokens with ${maxTokens} new tokens each`, prompts.reduce((a, p) => a + p.length + maxTokens, 0), limits.maxRequestTokens, '--max-request-tokens', field);
  const decode = (ids: readonly number[]) => models.tokenizer.decode([...ids]);
  const eos = new Set(models.base.batcher.policy.config.eosTokenIds);
  const textOf = (outcome: SampleOutcome, keepStopString: boolean) => {
    const text = decode(outcome.tokens.filter((id) => !eos.has(id)));
    if (typeof outcome.stopReason !== 'string' || keepStopString) return text;
    const at = text.indexOf(outcome.stopReason);
    return at < 0 ? text : text.slice(0, at);
  };
  const ok = (text: string) => ({ text });
  return new Map<string, Route>([
    ['GET /health', async () => ok('')],
    ['GET /health_generate', async () => ok('')],
    ['GET /v1/models', async () => ({ json: { object: 'list', data: models.names.map((id) => modelCard(models.get(id), models.base)) } })],
    ['GET /get_model_info', async () => ({ json: { model_path: models.base.path, tokenizer_path: models.base.path, is_generation: true, weight_version: models.base.version } })],
    [
      'POST /generate',
      async (body, { signal }) => {
        const request = parseRequest(SglangGenerateRequestSchema, body, 'POST /generate');
        if ((request.top_logprobs_num ?? 0) > 0) fail('REQUEST_INVALID', 'top_logprobs_num: only 0 is served (no alternatives)', { field: 'top_logprobs_num' });
        refuseNonNeutral(request.sampling_params);
        const served = models.get(request.lora_path);
        const params = request.sampling_params;
        const prompts = isBatch(request.input_ids) ? request.input_ids : [request.input_ids];
        bounded(prompts, params.max_new_tokens, 'input_ids');
        const stopStrings = stopStringsOf(params.stop, 'sampling_params.stop');
        const start = request.logprob_start_len;
        const outcomes = await Promise.all(
          prompts.map((prompt, i) =>
            served.batcher.submit({
              prompt,
              maxTokens: params.max_new_tokens,
              sampling: { temperature: params.temperature, topP: params.top_p, topK: Math.max(params.top_k, 0) },
              ...seedOf(params.sampling_seed, i),
              // As SGLang: under ignore_eos the stop ids are not checked either (Req._check_token_based_finish).
              stopTokenIds: params.ignore_eos ? [] : (params.stop_token_ids ?? []),
              stopStrings,
              ignoreEos: params.ignore_eos,
              promptLogprobs: request.return_logprob && start >= 0,
              signal,
            } satisfies SampleJob),
          ),
        );
        const outputs = outcomes.map((outcome, i) => ({
          text: textOf(outcome, params.no_stop_trim ?? false),
          output_ids: outcome.tokens,
          meta_info: {
            id: request.rid ?? randomUUID().replaceAll('-', ''),
            finish_reason: outcome.finish === 'length' ? { type: 'length', length: outcome.tokens.length } : { type: 'stop', matched: outcome.stopReason ?? outcome.tokens[outcome.tokens.length - 1] },
            prompt_tokens: prompts[i].length,
            completion_tokens: outcome.tokens.length,
            cached_tokens: 0,
            weight_version: served.version,
            ...(request.return_logprob
              ? {
                  output_token_logprobs: outcome.tokens.map((id, t) => [outcome.logprobs[t], id, null]),
                  // As SGLang serializes them: `[None] + input_token_logprobs[:-1]` against the tokens from logprob_start_len, so the first is None.
                  ...(outcome.promptLogprobs ? { input_token_logprobs: prompts[i].slice(start).map((id, k) => [k === 0 ? null : outcome.promptLogprobs![start + k], id, null]) } : {}),
                }
              : {}),
          },
        }));
        return { json: isBatch(request.input_ids) ? outputs : outputs[0] };
      },
    ],
    [
      'POST /v1/load_lora_adapter',
      async (body) => {
        const { lora_name, lora_path } = parseRequest(VllmLoadLoraAdapterRequestSchema, body, 'POST /v1/load_lora_adapter');
        await models.loadAdapter(lora_name, lora_path);
        return ok(`Success: LoRA adapter '${lora_name}' added successfully.`);
      },
    ],
    [
      'POST /v1/unload_lora_adapter',
      async (body) => {
        const { lora_name } = parseRequest(VllmUnloadLoraAdapterRequestSchema, body, 'POST /v1/unload_lora_adapter');
        await models.unloadAdapter(lora_name);
        return ok(`Success: LoRA adapter '${lora_name}' removed successfully.`);
      },
    ],
    [
      'POST /load_lora_adapter',
      async (body) => {
        const { lora_name, lora_path } = parseRequest(SglangLoadLoraAdapterRequestSchema, body, 'POST /load_lora_adapter');
        await models.loadAdapter(lora_name, lora_path);
        return { json: { success: true, error_message: null, loaded_adapters: loadedAdapters(models) } };
      },
    ],
    [
      'POST /unload_lora_adapter',
      async (body) => {
        const { lora_name } = parseRequest(SglangUnloadLoraAdapterRequestSchema, body, 'POST /unload_lora_adapter');
        await models.unloadAdapter(lora_name);
        return { json: { success: true, error_message: null, loaded_adapters: loadedAdapters(models) } };
      },
    ],
    [
      'POST /update_weights_from_disk',
      async (body) => {
        const request = parseRequest(SglangUpdateWeightsFromDiskRequestSchema, body, 'POST /update_weights_from_disk');
        await models.updateBase(request.model_path, request.weight_version ?? undefined);
        return { json: { success: true, message: 'Succeeded to update model weights.', num_paused_requests: 0 } };
      },
    ],
    ['POST /reset_prefix_cache', async () => ok('')],
    ['POST /flush_cache', async () => ok('Cache flushed.\n')],
  ]);
}

/** Stop strings one request may give, and their characters in all (ours: a stop string is checked at every token of its row). */
export const MAX_STOP_STRINGS = 64;
export const MAX_STOP_CHARS = 4096;

/** A request's stop strings as a list, within MAX_STOP_STRINGS and MAX_STOP_CHARS (REQUEST_TOO_LARGE naming `field`). */
export function stopStringsOf(stop: string | readonly string[] | undefined, field = 'stop'): string[] {
  const strings = stop === undefined ? [] : typeof stop === 'string' ? [stop] : [...stop];
  ensureWithin('stop strings', strings.length, MAX_STOP_STRINGS, 'a fixed bound', field);
  ensureWithin('characters of the stop strings', strings.reduce((sum, text) => sum + text.length, 0), MAX_STOP_CHARS, 'a fixed bound', field);
  return strings;
}

/** Penalties and min-p are not implemented here: a request for one is refused, not silently sampled without it. */
export function refuseNonNeutral(params: { min_p: number; repetition_penalty: number; presence_penalty: number; frequency_penalty: number }): void {
  const neutral = { min_p: 0, repetition_penalty: 1, presence_penalty: 0, frequency_penalty: 0 } as const;
  for (const [field, value] of Object.entries(neutral)) {
    if (params[field as keyof typeof neutral] !== value) fail('REQUEST_INVALID', `${field}: only ${value} (off) is served by ludus serve-model`, { field });
  }
}

export function isBatch(prompt: readonly number[] | readonly (readonly number[])[]): prompt is number[][] {
  return Array.isArray(prompt[0]);
}

/** A batch of prompts under one seed: the first samples from the seed, the i-th from (seed, i). */
export function seedOf(seed: number | undefined, index: number): { seed?: number } {
  return seed === undefined ? {} : { seed: index === 0 ? seed : deriveSeed(seed, index) };
}

export function textOffsets(tokens: readonly number[], decode: (ids: readonly number[]) => string): number[] {
  const offsets: number[] = [];
  let at = 0;
  for (const id of tokens) {
    offsets.push(at);
    at += decode([id]).length;
  }
  return offsets;
}

function modelCard(model: ServedModel, base: ServedModel) {
  return { id: model.name, object: 'model', created: 0, owned_by: 'ludus', root: model.path, parent: model.adapter ? base.name : null };
}

function loadedAdapters(models: ServedModels): Record<string, string> {
  return Object.fromEntries(models.names.filter((name) => name !== models.base.name).map((name) => [name, models.get(name).path]));
}
