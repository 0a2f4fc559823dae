import { z } from 'zod';

/**
 * The subset of SGLang's native API that RL needs, field names as in SGLang's `io_struct.py` (GenerateReqInput,
 * UpdateWeightFromDiskReqInput / ReqOutput, LoadLoRAAdapterReqInput) and `sampling_params.py` (SamplingParams).
 * ludus sends these bodies to SGLang and `ludus serve-model` accepts them.
 */
const TokenId = z.number().int().min(0);

export const SglangSamplingParamsSchema = z.strictObject({
  max_new_tokens: z.number().int().min(1).default(128),
  temperature: z.number().min(0).default(1),
  top_p: z.number().gt(0).max(1).default(1),
  /** -1: off. */
  top_k: z.number().int().min(-1).default(-1),
  /** 0: off. */
  min_p: z.number().min(0).max(1).default(0),
  /** 1: off. */
  repetition_penalty: z.number().gt(0).default(1),
  presence_penalty: z.number().default(0),
  frequency_penalty: z.number().default(0),
  stop: z.union([z.string(), z.array(z.string())]).optional(),
  stop_token_ids: z.array(TokenId).optional(),
  ignore_eos: z.boolean().default(false),
  no_stop_trim: z.boolean().optional(),
  skip_special_tokens: z.boolean().optional(),
  sampling_seed: z.number().int().optional(),
});

export const SglangGenerateRequestSchema = z.strictObject({
  input_ids: z.union([z.array(TokenId).min(1), z.array(z.array(TokenId).min(1)).min(1)]),
  sampling_params: SglangSamplingParamsSchema.prefault({}),
  return_logprob: z.boolean().default(false),
  /** Where in the prompt returned log-probabilities start; -1 (default): output tokens only. */
  logprob_start_len: z.number().int().min(-1).default(-1),
  top_logprobs_num: z.number().int().min(0).optional(),
  return_text_in_logprobs: z.boolean().optional(),
  /** A loaded adapter, by the name it was loaded under. */
  lora_path: z.string().min(1).nullable().optional(),
  rid: z.string().optional(),
  stream: z.literal(false).optional(),
});

export type SglangGenerateRequest = z.input<typeof SglangGenerateRequestSchema>;

/** [logprob, token id, text or null]; the first prompt token's log-probability is null. */
const TokenLogprob = z.tuple([z.number().nullable(), TokenId, z.string().nullable()]);

export const SglangGenerateOutputSchema = z.looseObject({
  text: z.string(),
  output_ids: z.array(TokenId).optional(),
  meta_info: z.looseObject({
    id: z.string(),
    finish_reason: z.looseObject({ type: z.string(), matched: z.union([z.number().int(), z.string()]).nullable().optional() }).nullable(),
    prompt_tokens: z.number().int(),
    completion_tokens: z.number().int(),
    cached_tokens: z.number().int().optional(),
    input_token_logprobs: z.array(TokenLogprob).optional(),
    output_token_logprobs: z.array(TokenLogprob).optional(),
    weight_version: z.string().optional(),
  }),
});

export type SglangGenerateOutput = z.infer<typeof SglangGenerateOutputSchema>;

export const SglangUpdateWeightsFromDiskRequestSchema = z.strictObject({
  model_path: z.string().min(1),
  load_format: z.string().nullable().optional(),
  abort_all_requests: z.boolean().optional(),
  weight_version: z.string().nullable().optional(),
  flush_cache: z.boolean().optional(),
});

export const SglangUpdateWeightsFromDiskResponseSchema = z.looseObject({ success: z.boolean(), message: z.string(), num_paused_requests: z.number().int().nullable().optional() });

export const SglangLoadLoraAdapterRequestSchema = z.strictObject({ lora_name: z.string().min(1), lora_path: z.string().min(1), pinned: z.boolean().optional() });
export const SglangUnloadLoraAdapterRequestSchema = z.strictObject({ lora_name: z.string().min(1) });
