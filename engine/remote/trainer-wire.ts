import { z } from 'zod';
import type { Weights } from '../../native/model/weights.ts';

export { fingerprint } from '../../native/model/fingerprint.ts';

/**
 * The trainer API's wire: ludus's own, spoken by `ludus serve-trainer` and its client alone. Its operations are
 * modelled on Tinker's (`create_model`, `forward_backward` over Datums with per-token `target_tokens`, `logprobs` and
 * `advantages`, `optim_step`, `save_weights_for_sampler`, futures), but it is not Tinker's protocol: the fields and
 * their meanings are ours (the clip fields are PPO's epsilons, not Tinker's ratio bounds; `lora`, `name`,
 * `load_state`, `/health`), and neither a Tinker client nor a Tinker service can be spoken to with it. Every call but
 * `retrieve_future` and `unload_model` is submitted under a client-chosen `request_id` and answered at once with that
 * id; its result is fetched with `retrieve_future`. Calls naming one model run in the order they were submitted; a
 * request id submitted twice (a retry) is one call. Tensors travel as base64 little-endian float32 with their dims.
 */
export const TRAINER_API = '/api/v1';

const RequestId = z.string().min(1).max(128);
const ModelId = z.string().min(1).max(128);
const Tokens = z.array(z.number().int().min(0));
const Floats = z.array(z.number());

/** One sequence: its input tokens, and per input position what the loss reads (the next token and its weights). */
export const DatumSchema = z.strictObject({
  model_input: z.strictObject({ chunks: z.array(z.strictObject({ type: z.literal('encoded_text'), tokens: Tokens })).min(1) }),
  loss_fn_inputs: z.strictObject({
    /** The next token at each position (what the log-probability is of). */
    target_tokens: Tokens,
    /** The loss mask: 1 where a token is trained on. */
    weights: Floats,
    /** The behaviour policy's log-probability of each target (the sampler's); required by `ppo`. */
    logprobs: Floats.optional(),
    advantages: Floats.optional(),
    /** The KL reference's log-probability of each target (k3); required when `kl_beta` > 0. */
    ref_logprobs: Floats.optional(),
    /** 1 where the imitation term trains log p(target) up (tandem's λ_jun positions). */
    imitation_weights: Floats.optional(),
  }),
});
export type Datum = z.output<typeof DatumSchema>;

const TensorSchema = z.strictObject({ dims: z.array(z.number().int().min(0)), data: z.string() });
export const TensorMapSchema = z.record(z.string(), TensorSchema);
export type WireTensors = z.output<typeof TensorMapSchema>;

export const CreateModelSchema = z.strictObject({
  request_id: RequestId,
  /** A model directory on the trainer's machine, or 'default' (the shipped base of `task`). */
  base_model: z.string().min(1),
  task: z.string().min(1).optional(),
  /** Train a LoRA adapter over the frozen base instead of every weight; its initial values drawn from `seed`. */
  lora: z
    .strictObject({
      rank: z.number().int().positive(),
      alpha: z.number().positive().optional(),
      target_modules: z.array(z.string()).min(1).optional(),
      init_std_b: z.number().min(0).optional(),
      seed: z.number().int(),
    })
    .optional(),
  /**
   * The loss and optimizer settings fixed for the model's life (ludus's learner config: clips, temperature,
   * normalization, AdamW). Taken as sent, not copied (a record would drop an own `__proto__` key instead of letting
   * the learner config refuse it as the unknown field it is).
   */
  learner: z
    .custom<Record<string, unknown>>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), { error: 'an object of learner settings' })
    .default({}),
});

const LossFnConfigSchema = z.strictObject({
  /** ε_low and ε_high of the clipped ratio clip(r, 1 − ε_low, 1 + ε_high); the model's own when absent. */
  clip_low: z.number().min(0).lt(1).optional(),
  clip_high: z.number().min(0).optional(),
  kl_beta: z.number().min(0).optional(),
  imitation_weight: z.number().min(0).optional(),
  entropy_coef: z.number().optional(),
  normalization: z.enum(['token-mean', 'sequence-mean', 'constant']).optional(),
});

export const ForwardBackwardSchema = z.strictObject({
  request_id: RequestId,
  model_id: ModelId,
  data: z.array(DatumSchema).min(1),
  /** `ppo`: the clipped policy gradient; `cross_entropy`: supervised (a model whose learner objective is sft). */
  loss_fn: z.enum(['ppo', 'cross_entropy']),
  loss_fn_config: LossFnConfigSchema.default({}),
});

export const OptimStepSchema = z.strictObject({
  request_id: RequestId,
  model_id: ModelId,
  /** This step's learning rate (schedules); the model's AdamW otherwise as created. */
  adam_params: z.strictObject({ learning_rate: z.number().min(0).max(1, 'a learning rate above 1 is no AdamW step') }).optional(),
});

export const SaveWeightsSchema = z.strictObject({
  request_id: RequestId,
  model_id: ModelId,
  name: z.string().regex(/^[A-Za-z0-9_][\w.-]{0,63}$/, 'a name of letters, digits, _ . - (at most 64), not starting with "." or "-"'),
  /** Also answer with the trained tensors (an adapter's alone), so a client on another disk can load them. */
  return_weights: z.boolean().default(false),
  /**
   * Write there instead (an absolute directory inside one of the server's --write-dir roots, on storage the samplers
   * read): the client's sync directory, so the weights go from the trainer to the samplers and never through it.
   */
  path: z.string().min(1).max(4096).optional(),
});

/** A policy's checkpoint directory (its model or adapter, AdamW moments, tokenizer), written by the server at `path`. */
export const SaveStateSchema = z.strictObject({ request_id: RequestId, model_id: ModelId, path: z.string().min(1).max(4096) });

/** The trained tensors and AdamW moments read back from a checkpoint directory the server wrote (or any in its roots). */
export const LoadStateFromSchema = SaveStateSchema;

export const ModelRequestSchema = z.strictObject({ request_id: RequestId, model_id: ModelId });

export const LoadStateSchema = z.strictObject({
  request_id: RequestId,
  model_id: ModelId,
  /** The trained tensors to continue from (an adapter's alone), and the AdamW moments over them. */
  weights: TensorMapSchema,
  optimizer: z.strictObject({ step: z.number().int().min(0), m: TensorMapSchema, v: TensorMapSchema }),
});

export const UnloadModelSchema = z.strictObject({ model_id: ModelId });

export const RetrieveFutureSchema = z.strictObject({
  request_id: RequestId,
  /** How long the server holds the request open for the result (long poll). */
  wait_ms: z.number().int().min(0).max(60_000).default(10_000),
});

export const SubmittedSchema = z.strictObject({ request_id: RequestId });

export const FutureAnswerSchema = z.discriminatedUnion('status', [
  z.strictObject({ status: z.literal('pending') }),
  z.strictObject({ status: z.literal('done'), result: z.unknown() }),
  z.strictObject({ status: z.literal('failed'), error: z.strictObject({ code: z.string(), message: z.string() }) }),
]);
export type FutureAnswer = z.output<typeof FutureAnswerSchema>;

/** A number JSON may not carry (NaN, ±infinity: a loss gone non-finite) travels as its name. */
const WireNumber = z.union([z.number(), z.enum(['NaN', 'Infinity', '-Infinity']).transform(Number)]);

/** A number as WireNumber sends it. */
export const wireNumber = (x: number): number | string => (Number.isFinite(x) ? x : String(x));

export const CreateModelResultSchema = z.strictObject({ model_id: ModelId, trainable_parameters: z.number().int(), fingerprint: z.string() });
export const ForwardBackwardResultSchema = z.strictObject({
  loss: WireNumber,
  tokens: z.number(),
  kl: WireNumber,
  entropy: WireNumber,
  clipped: WireNumber,
  micro_batches: z.number().int(),
});
export const OptimStepResultSchema = z.strictObject({ step: z.number().int(), grad_norm: WireNumber, clipped: z.boolean() });
export const SaveWeightsResultSchema = z.strictObject({ path: z.string(), step: z.number().int(), fingerprint: z.string(), weights: TensorMapSchema.optional() });
export const OptimizerStateResultSchema = z.strictObject({ step: z.number().int(), m: TensorMapSchema, v: TensorMapSchema });
export const LoadStateResultSchema = z.strictObject({ step: z.number().int(), fingerprint: z.string() });
export const SaveStateResultSchema = z.strictObject({ path: z.string(), step: z.number().int(), fingerprint: z.string() });

export function encodeTensor(data: Float32Array, dims: readonly number[]): { dims: number[]; data: string } {
  return { dims: [...dims], data: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64') };
}

/** The float32 values of a wire tensor (a copy, aligned). */
export function decodeTensor(tensor: { data: string }): Float32Array {
  const bytes = Buffer.from(tensor.data, 'base64');
  const out = new Float32Array(bytes.byteLength / 4);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

export function encodeTensors(weights: Weights): WireTensors {
  return Object.fromEntries([...weights].map(([name, t]) => [name, encodeTensor(t.data, t.dims)]));
}
