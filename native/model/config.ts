import { z } from 'zod';
import { fail } from '../../core/errors.ts';
import type { LoraConfig } from './lora-config.ts';

export type ModelType = 'qwen3' | 'qwen2' | 'llama';

/** The architecture facts the graph builders need, read from a Hugging Face `config.json`. */
export interface ModelConfig {
  modelType: ModelType;
  vocabSize: number;
  hiddenSize: number;
  intermediateSize: number;
  numLayers: number;
  numHeads: number;
  numKvHeads: number;
  headDim: number;
  rmsNormEps: number;
  ropeTheta: number;
  maxPositionEmbeddings: number;
  tieWordEmbeddings: boolean;
  /** Qwen3: RMSNorm over head_dim on q and k before RoPE. */
  qkNorm: boolean;
  /** Bias on q/k/v projections (Qwen2 always; Llama when attention_bias). */
  qkvBias: boolean;
  /** Bias on o_proj (Llama attention_bias). */
  oBias: boolean;
  /** Bias on gate/up/down (Llama mlp_bias). */
  mlpBias: boolean;
  bosTokenId: number | null;
  eosTokenIds: number[];
  /** The config dict as read, kept so a saved checkpoint round-trips unknown keys. */
  raw: Record<string, unknown>;
  /** A LoRA adapter over the frozen weights (native/model/lora.ts); absent for a plain model. */
  lora?: LoraConfig;
}

const positiveInt = z.number().int().positive();

const HfConfigSchema = z
  .object({
    model_type: z.string(),
    vocab_size: positiveInt,
    hidden_size: positiveInt,
    intermediate_size: positiveInt,
    num_hidden_layers: positiveInt,
    num_attention_heads: positiveInt,
    num_key_value_heads: positiveInt.optional(),
    head_dim: positiveInt.nullish(),
    rms_norm_eps: z.number().positive().optional(),
    rope_theta: z.number().positive().optional(),
    max_position_embeddings: positiveInt.optional(),
    tie_word_embeddings: z.boolean().optional(),
    attention_bias: z.boolean().optional(),
    mlp_bias: z.boolean().optional(),
    hidden_act: z.string().optional(),
    rope_scaling: z.unknown().optional(),
    bos_token_id: z.number().int().nullish(),
    eos_token_id: z.union([z.number().int(), z.array(z.number().int())]).nullish(),
  })
  .passthrough();

export const SUPPORTED_MODEL_TYPES: readonly ModelType[] = ['qwen3', 'qwen2', 'llama'];

/** Parses a config.json dict; `where` names the file for error messages. */
export function parseHfConfig(raw: unknown, where = 'config.json'): ModelConfig {
  const parsed = HfConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    fail('CONFIG_INVALID', `${where}: field "${issue.path.join('.')}" ${issue.message}`, { file: where, path: issue.path });
  }
  const c = parsed.data;
  if (!SUPPORTED_MODEL_TYPES.includes(c.model_type as ModelType)) {
    fail('MODEL_TYPE_UNSUPPORTED', `${where}: model_type "${c.model_type}" is not supported (supported: ${SUPPORTED_MODEL_TYPES.join(', ')})`, {
      file: where,
      modelType: c.model_type,
    });
  }
  if (c.hidden_act !== undefined && c.hidden_act !== 'silu') {
    fail('CONFIG_INVALID', `${where}: hidden_act "${c.hidden_act}" is not supported (only silu)`, { file: where });
  }
  if (c.rope_scaling !== undefined && c.rope_scaling !== null) {
    const kind = (c.rope_scaling as { rope_type?: string; type?: string }).rope_type ?? (c.rope_scaling as { type?: string }).type;
    if (kind !== 'default') fail('CONFIG_INVALID', `${where}: rope_scaling "${String(kind)}" is not supported`, { file: where });
  }
  const modelType = c.model_type as ModelType;
  const numKvHeads = c.num_key_value_heads ?? c.num_attention_heads;
  if (c.num_attention_heads % numKvHeads !== 0) {
    fail('CONFIG_INVALID', `${where}: num_attention_heads ${c.num_attention_heads} is not a multiple of num_key_value_heads ${numKvHeads}`, { file: where });
  }
  const headDim = c.head_dim ?? c.hidden_size / c.num_attention_heads;
  if (!Number.isInteger(headDim)) fail('CONFIG_INVALID', `${where}: hidden_size / num_attention_heads is not an integer and head_dim is absent`, { file: where });
  const eos = c.eos_token_id ?? null;
  const eosTokenIds = eos === null ? [] : Array.isArray(eos) ? eos : [eos];
  const special: Array<[string, number]> = [...eosTokenIds.map((id): [string, number] => ['eos_token_id', id]), ...(c.bos_token_id == null ? [] : [['bos_token_id', c.bos_token_id] as [string, number]])];
  for (const [field, id] of special) {
    if (id < 0 || id >= c.vocab_size) fail('CONFIG_INVALID', `${where}: ${field} ${id} is outside the vocabulary [0, ${c.vocab_size})`, { file: where, path: [field] });
  }
  return {
    modelType,
    vocabSize: c.vocab_size,
    hiddenSize: c.hidden_size,
    intermediateSize: c.intermediate_size,
    numLayers: c.num_hidden_layers,
    numHeads: c.num_attention_heads,
    numKvHeads,
    headDim,
    rmsNormEps: c.rms_norm_eps ?? 1e-6,
    ropeTheta: c.rope_theta ?? 10000,
    maxPositionEmbeddings: c.max_position_embeddings ?? 2048,
    tieWordEmbeddings: c.tie_word_embeddings ?? false,
    qkNorm: modelType === 'qwen3',
    qkvBias: modelType === 'qwen2' || c.attention_bias === true,
    oBias: modelType !== 'qwen2' && c.attention_bias === true,
    mlpBias: c.mlp_bias === true,
    bosTokenId: c.bos_token_id ?? null,
    eosTokenIds,
    raw: c as Record<string, unknown>,
  };
}

/** The config.json dict to write next to saved weights: the original keys, with the architecture fields restated. */
export function toHfConfig(config: ModelConfig): Record<string, unknown> {
  const architectures: Record<ModelType, string> = { qwen3: 'Qwen3ForCausalLM', qwen2: 'Qwen2ForCausalLM', llama: 'LlamaForCausalLM' };
  return {
    architectures: [architectures[config.modelType]],
    hidden_act: 'silu',
    torch_dtype: 'float32',
    ...config.raw,
    model_type: config.modelType,
    vocab_size: config.vocabSize,
    hidden_size: config.hiddenSize,
    intermediate_size: config.intermediateSize,
    num_hidden_layers: config.numLayers,
    num_attention_heads: config.numHeads,
    num_key_value_heads: config.numKvHeads,
    head_dim: config.headDim,
    rms_norm_eps: config.rmsNormEps,
    rope_theta: config.ropeTheta,
    max_position_embeddings: config.maxPositionEmbeddings,
    tie_word_embeddings: config.tieWordEmbeddings,
    ...(config.modelType === 'llama' ? { attention_bias: config.qkvBias, mlp_bias: config.mlpBias } : {}),
    ...(config.modelType === 'qwen3' ? { attention_bias: false } : {}),
    bos_token_id: config.bosTokenId,
    eos_token_id: config.eosTokenIds.length === 1 ? config.eosTokenIds[0] : config.eosTokenIds,
  };
}
