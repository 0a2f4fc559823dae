import { initWeights, presetConfig } from '../../native/model/presets.ts';
import type { ModelConfig } from '../../native/model/config.ts';
import type { Weights } from '../../native/model/weights.ts';
import type { Policy } from '../../native/runtime/policy.ts';

/** The architecture variants every engine path is checked on. */
export const VARIANTS: Record<string, Record<string, unknown>> = {
  'qwen3 tied': {},
  'qwen3 untied': { tie_word_embeddings: false },
  'qwen2 with qkv bias': { model_type: 'qwen2' },
  'llama with attention and mlp bias': { model_type: 'llama', attention_bias: true, mlp_bias: true, num_key_value_heads: 4 },
};

/** Random weights with non-trivial norms and biases so every tensor matters. */
export function randomModel(overrides: Record<string, unknown> = {}, seed = 7, name = 'micro'): { config: ModelConfig; weights: Weights; policy: Policy } {
  const config = presetConfig('qwen3-micro', overrides);
  const weights = initWeights(config, seed, 0.2);
  let k = 0;
  for (const [tensorName, t] of weights) {
    if (tensorName.endsWith('norm.weight') || tensorName.endsWith('.bias')) {
      for (let i = 0; i < t.data.length; i++) t.data[i] = (tensorName.endsWith('.bias') ? 0 : 1) + 0.3 * Math.sin(++k * 1.7);
    }
  }
  return { config, weights, policy: { name, config, weights, tokenizerHash: 'test-vocab' } };
}
