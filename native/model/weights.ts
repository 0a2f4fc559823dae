import { fail } from '../../core/errors.ts';
import type { ModelConfig } from './config.ts';

/** One tensor of a model, always held as float32 on the host. Names follow transformers. */
export interface WeightTensor {
  dims: number[];
  data: Float32Array;
}

export type Weights = Map<string, WeightTensor>;

/** Bytes of every tensor in `weights` (any map of tensors). */
export const weightsBytes = (weights: ReadonlyMap<string, { data: { byteLength: number } }>): number => [...weights.values()].reduce((sum, t) => sum + t.data.byteLength, 0);

export const layerPrefix = (i: number): string => `model.layers.${i}`;

/** Every tensor a config implies, with its shape: the single source of truth for loaders, init and graphs. */
export function weightShapes(c: ModelConfig): Map<string, number[]> {
  const shapes = new Map<string, number[]>();
  const D = c.hiddenSize;
  const qDim = c.numHeads * c.headDim;
  const kvDim = c.numKvHeads * c.headDim;
  shapes.set('model.embed_tokens.weight', [c.vocabSize, D]);
  for (let i = 0; i < c.numLayers; i++) {
    const p = layerPrefix(i);
    shapes.set(`${p}.input_layernorm.weight`, [D]);
    shapes.set(`${p}.self_attn.q_proj.weight`, [qDim, D]);
    shapes.set(`${p}.self_attn.k_proj.weight`, [kvDim, D]);
    shapes.set(`${p}.self_attn.v_proj.weight`, [kvDim, D]);
    if (c.qkvBias) {
      shapes.set(`${p}.self_attn.q_proj.bias`, [qDim]);
      shapes.set(`${p}.self_attn.k_proj.bias`, [kvDim]);
      shapes.set(`${p}.self_attn.v_proj.bias`, [kvDim]);
    }
    shapes.set(`${p}.self_attn.o_proj.weight`, [D, qDim]);
    if (c.oBias) shapes.set(`${p}.self_attn.o_proj.bias`, [D]);
    if (c.qkNorm) {
      shapes.set(`${p}.self_attn.q_norm.weight`, [c.headDim]);
      shapes.set(`${p}.self_attn.k_norm.weight`, [c.headDim]);
    }
    shapes.set(`${p}.post_attention_layernorm.weight`, [D]);
    shapes.set(`${p}.mlp.gate_proj.weight`, [c.intermediateSize, D]);
    shapes.set(`${p}.mlp.up_proj.weight`, [c.intermediateSize, D]);
    shapes.set(`${p}.mlp.down_proj.weight`, [D, c.intermediateSize]);
    if (c.mlpBias) {
      shapes.set(`${p}.mlp.gate_proj.bias`, [c.intermediateSize]);
      shapes.set(`${p}.mlp.up_proj.bias`, [c.intermediateSize]);
      shapes.set(`${p}.mlp.down_proj.bias`, [D]);
    }
  }
  shapes.set('model.norm.weight', [D]);
  if (!c.tieWordEmbeddings) shapes.set('lm_head.weight', [c.vocabSize, D]);
  return shapes;
}

/**
 * Refuses weights holding NaN or ±Inf with NON_FINITE naming the tensor and index: such a model scores and samples
 * garbage without any error, and one NaN spreads to every logit.
 */
export function assertFiniteWeights(weights: Weights, where: string): void {
  for (const [name, { data }] of weights) {
    for (let i = 0; i < data.length; i++) {
      const x = data[i];
      if (x - x !== 0) fail('NON_FINITE', `${where}: tensor "${name}" holds ${x} at index ${i}`, { file: where, tensor: name, index: i });
    }
  }
}

/** The tensor `name` of `weights`; a missing one is CHECKPOINT_TENSOR_MISSING, naming it and where it was looked for. */
export function tensorOf(weights: ReadonlyMap<string, WeightTensor>, name: string, where = 'the weights'): WeightTensor {
  return weights.get(name) ?? fail('CHECKPOINT_TENSOR_MISSING', `${where}: tensor "${name}" is missing`, { file: where, tensor: name });
}

/** Checks that `weights` holds exactly the tensors the config implies, with the right shapes. */
export function validateWeights(c: ModelConfig, weights: Weights, where: string): void {
  validateTensors(weightShapes(c), weights, where);
}

/** Checks that `weights` holds every tensor of `shapes`, with that shape. */
export function validateTensors(shapes: ReadonlyMap<string, number[]>, weights: ReadonlyMap<string, { readonly dims: readonly number[] }>, where: string): void {
  for (const [name, dims] of shapes) {
    const t = weights.get(name) ?? fail('CHECKPOINT_TENSOR_MISSING', `${where}: tensor "${name}" is missing`, { file: where, tensor: name });
    if (t.dims.length !== dims.length || t.dims.some((d, i) => d !== dims[i])) {
      fail('CHECKPOINT_TENSOR_SHAPE', `${where}: tensor "${name}" has shape [${t.dims}] but the config implies [${dims}]`, {
        file: where,
        tensor: name,
        shape: t.dims,
        expected: dims,
      });
    }
  }
}

export function cloneWeights(weights: Weights): Weights {
  const out: Weights = new Map();
  for (const [name, t] of weights) out.set(name, { dims: [...t.dims], data: new Float32Array(t.data) });
  return out;
}
