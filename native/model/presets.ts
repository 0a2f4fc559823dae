import { Rng } from '../../core/rng.ts';
import { fail } from '../../core/errors.ts';
import { parseHfConfig, type ModelConfig } from './config.ts';
import { weightShapes, type Weights } from './weights.ts';
import { ensureFits, parameterCount, weightBytes } from './memory.ts';

/** The fields the released Qwen3 models share: their vocabulary (151,936 ids), special tokens, RoPE and context. */
function qwen3Shape(size: Record<string, number>): Record<string, unknown> {
  return {
    model_type: 'qwen3', vocab_size: 151936, num_key_value_heads: 8, head_dim: 128, rms_norm_eps: 1e-6, rope_theta: 1000000,
    max_position_embeddings: 40960, tie_word_embeddings: true, hidden_act: 'silu', bos_token_id: 151643, eos_token_id: 151645,
    ...size,
  };
}

/** Presets with the shape and vocabulary of a released model: their random checkpoints carry the real Qwen3 tokenizer. */
export const REAL_SHAPE_PRESETS: readonly string[] = ['qwen3-0.6b', 'qwen3-1.7b', 'qwen3-4b'];

/** Qwen3-style configs, as Hugging Face config dicts, for benchmarks, tests and the embedded default. */
export const PRESETS: Record<string, Record<string, unknown>> = {
  /** About 4M parameters: the benchmark model. */
  'qwen3-4m': {
    model_type: 'qwen3', vocab_size: 4096, hidden_size: 256, intermediate_size: 688, num_hidden_layers: 4,
    num_attention_heads: 4, num_key_value_heads: 2, head_dim: 64, rms_norm_eps: 1e-6, rope_theta: 10000,
    max_position_embeddings: 4096, tie_word_embeddings: true, hidden_act: 'silu', bos_token_id: null, eos_token_id: 0,
  },
  /** Qwen3-0.6B's config.json (596M parameters: 28 layers, hidden 1024, 16/8 heads of 128, tied embeddings). */
  'qwen3-0.6b': qwen3Shape({ hidden_size: 1024, intermediate_size: 3072, num_hidden_layers: 28, num_attention_heads: 16 }),
  /** Qwen3-1.7B's config.json (1.72B parameters: 28 layers, hidden 2048, 16/8 heads of 128, tied embeddings). */
  'qwen3-1.7b': qwen3Shape({ hidden_size: 2048, intermediate_size: 6144, num_hidden_layers: 28, num_attention_heads: 16 }),
  /** Qwen3-4B's config.json (4.02B parameters: 36 layers, hidden 2560, 32/8 heads of 128, tied embeddings). */
  'qwen3-4b': qwen3Shape({ hidden_size: 2560, intermediate_size: 9728, num_hidden_layers: 36, num_attention_heads: 32 }),
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

export interface InitOptions {
  /** Standard deviation of the matrices (transformers' initializer_range). Default 0.02. */
  std?: number;
  /**
   * Draw each matrix entry from a fixed table of 65,536 normal samples, picked by a hashed counter: about 40 times
   * faster than a Box–Muller draw per weight (a 0.6B model in seconds, not minutes), for the billion-parameter
   * benchmark presets. A different stream from the default one, which `ludus pretrain` relies on to regenerate the
   * shipped base bit for bit.
   */
  fast?: boolean;
}

/** Seeded init in the transformers style: normal(0, std) matrices and biases zero, norms one. */
export function initWeights(config: ModelConfig, seed: number, options: number | InitOptions = {}): Weights {
  const { std = 0.02, fast = false } = typeof options === 'number' ? { std: options } : options;
  ensureFits(`random weights (${parameterCount(config)} parameters as float32)`, weightBytes(config));
  const rng = new Rng(seed);
  const table = fast ? Float32Array.from({ length: 65536 }, () => rng.normal() * std) : null;
  let counter = seed >>> 0;
  const weights: Weights = new Map();
  for (const [name, dims] of weightShapes(config)) {
    const size = dims.reduce((a, b) => a * b, 1);
    const data = new Float32Array(size);
    if (name.endsWith('norm.weight')) data.fill(1);
    else if (name.endsWith('.bias')) data.fill(0);
    else if (table) {
      for (let i = 0; i < size; i += 2) {
        counter = (counter + 0x9e3779b9) >>> 0;
        let z = Math.imul(counter ^ (counter >>> 16), 0x85ebca6b);
        z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
        z ^= z >>> 16;
        data[i] = table[z & 0xffff];
        if (i + 1 < size) data[i + 1] = table[z >>> 16 & 0xffff];
      }
    } else for (let i = 0; i < size; i++) data[i] = rng.normal() * std;
    weights.set(name, { dims, data });
  }
  return weights;
}
