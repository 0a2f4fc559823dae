import { z } from 'zod';

/**
 * The subset of vLLM's OpenAI-compatible completions API that RL needs, field names as in vLLM's
 * `vllm/entrypoints/openai/completion/protocol.py` (CompletionRequest, CompletionResponseChoice, Logprob) and
 * `LoadLoRAAdapterRequest`. ludus sends these bodies to vLLM and `ludus serve-model` accepts them.
 */
const TokenId = z.number().int().min(0);

export const VllmCompletionRequestSchema = z.strictObject({
  /** The served model or a loaded adapter (by its `lora_name`); the server's only model when absent. */
  model: z.string().min(1).optional(),
  /** Token ids: one prompt, or a batch of them (one choice each). */
  prompt: z.union([z.array(TokenId).min(1), z.array(z.array(TokenId).min(1)).min(1)]),
  max_tokens: z.number().int().min(1).default(16),
  temperature: z.number().min(0).default(1),
  top_p: z.number().gt(0).max(1).default(1),
  /** 0 or -1: off. */
  top_k: z.number().int().min(-1).default(0),
  /** 0: off. */
  min_p: z.number().min(0).max(1).default(0),
  /** 1: off. */
  repetition_penalty: z.number().gt(0).default(1),
  presence_penalty: z.number().default(0),
  frequency_penalty: z.number().default(0),
  seed: z.number().int().optional(),
  n: z.literal(1).default(1),
  stop: z.union([z.string(), z.array(z.string())]).optional(),
  stop_token_ids: z.array(TokenId).default([]),
  ignore_eos: z.boolean().default(false),
  /** Top alternatives per generated token; 0 returns the sampled token's log-probability alone. */
  logprobs: z.number().int().min(0).optional(),
  /** Log-probabilities of the prompt's own tokens (the first is null); 0 returns those alone. */
  prompt_logprobs: z.number().int().min(0).optional(),
  /** `logprobs.tokens` as "token_id:<id>" strings. */
  return_tokens_as_token_ids: z.boolean().optional(),
  /** `token_ids` (and `prompt_token_ids`) in each choice. */
  return_token_ids: z.boolean().optional(),
  include_stop_str_in_output: z.boolean().optional(),
  skip_special_tokens: z.boolean().optional(),
  stream: z.literal(false).optional(),
  user: z.string().optional(),
  request_id: z.string().optional(),
});

export type VllmCompletionRequest = z.input<typeof VllmCompletionRequestSchema>;

const LogprobSchema = z.looseObject({ logprob: z.number(), rank: z.number().int().nullable().optional(), decoded_token: z.string().nullable().optional() });

export const VllmCompletionChoiceSchema = z.looseObject({
  index: z.number().int(),
  text: z.string(),
  logprobs: z
    .looseObject({
      tokens: z.array(z.string()),
      token_logprobs: z.array(z.number().nullable()),
      text_offset: z.array(z.number()).optional(),
      top_logprobs: z.array(z.record(z.string(), z.number()).nullable()).nullable().optional(),
    })
    .nullable()
    .optional(),
  finish_reason: z.string().nullable().optional(),
  /** The stop string or token id that ended the choice; null for EOS and length. */
  stop_reason: z.union([z.number().int(), z.string()]).nullable().optional(),
  token_ids: z.array(TokenId).nullable().optional(),
  /** Keyed by token id (JSON object keys are strings). */
  prompt_logprobs: z.array(z.record(z.string(), LogprobSchema).nullable()).nullable().optional(),
  prompt_token_ids: z.array(TokenId).nullable().optional(),
});

export type VllmCompletionChoice = z.infer<typeof VllmCompletionChoiceSchema>;

export const VllmCompletionResponseSchema = z.looseObject({
  id: z.string(),
  object: z.literal('text_completion'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(VllmCompletionChoiceSchema).min(1),
  usage: z.looseObject({ prompt_tokens: z.number().int(), completion_tokens: z.number().int().nullable().optional(), total_tokens: z.number().int() }),
});

export type VllmCompletionResponse = z.infer<typeof VllmCompletionResponseSchema>;

export const VllmLoadLoraAdapterRequestSchema = z.strictObject({ lora_name: z.string().min(1), lora_path: z.string().min(1) });
export const VllmUnloadLoraAdapterRequestSchema = z.strictObject({ lora_name: z.string().min(1), lora_int_id: z.number().int().nullable().optional() });

/** A vLLM sample token written with `return_tokens_as_token_ids`. */
export const TOKEN_ID_PREFIX = 'token_id:';
