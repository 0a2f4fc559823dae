import { Rng } from '../../core/rng.ts';
import { fail } from '../../core/errors.ts';
import { parseHfConfig, type ModelConfig } from './config.ts';
import { weightShapes, type Weights } from './weights.ts';

/** Small Qwen3-style configs, as Hugging Face config dicts, for benchmarks, tests and the embedded default. */
export const PRESETS: Record<string, Record<string, unknown>> = {
  /** About 4M parameters: the benchmark model. */
  'qwen3-4m': {
    model_type: 'qwen3', vocab_size: 4096, hidden_size: 256, intermediate_size: 688, num_hidden_layers: 4,
    num_attention_heads: 4, num_key_value_heads: 2, head_dim: 64, rms_norm_eps: 1e-6, rope_theta: 10000,
    max_position_embeddings: 4096, tie_word_embeddings: true, hidden_act: 'silu', bos_token_id: null, eos_token_id: 0,
  },
  /** A few thousand parameters: fast tests. head_dim 16 is the smallest ORT's fused attention takes. */
  'qwen3-micro': {
    model_type: 'qwen3', vocab_size: 64, hidden_size: 32, intermediate_size: 48, num_hidden_layers: 2,
    num_attention_heads: 4, num_key_value_heads: 2, head_dim: 16, rms_norm_eps: 1e-6, rope_theta: 10000,
    max_position_embeddings: 256, tie_word_embeddings: true, hidden_act: 'silu', bos_token_id: null, eos_token_id: 0,
  },
};

export function presetConfig(name: string, overrides: Record<string, unknown> = {}): ModelConfig {
  const base = PRESETS[name];
  if (!base) fail('CONFIG_INVALID', `unknown preset "${name}" (known: ${Object.keys(PRESETS).join(', ')})`);
  return parseHfConfig({ ...base, ...overrides }, `preset ${name}`);
}

/** Seeded init in the transformers style: normal(0, 0.02) matrices and biases zero, norms one. */
export function initWeights(config: ModelConfig, seed: number, std = 0.02): Weights {
  const rng = new Rng(seed);
  const weights: Weights = new Map();
  for (const [name, dims] of weightShapes(config)) {
    const size = dims.reduce((a, b) => a * b, 1);
    const data = new Float32Array(size);
    if (name.endsWith('norm.weight')) data.fill(1);
    else if (!name.endsWith('.bias')) for (let i = 0; i < size; i++) data[i] = rng.normal() * std;
    weights.set(name, { dims, data });
  }
  return weights;
}
