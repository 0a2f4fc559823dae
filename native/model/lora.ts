import { Rng } from '../../core/rng.ts';
import { LORA_TARGETS, type LoraConfig, type LoraTarget } from './lora-config.ts';
import type { ModelConfig } from './config.ts';
import { layerPrefix, tensorOf, weightShapes, type Weights } from './weights.ts';

const PARENT: Record<LoraTarget, 'self_attn' | 'mlp'> = {
  q_proj: 'self_attn', k_proj: 'self_attn', v_proj: 'self_attn', o_proj: 'self_attn', gate_proj: 'mlp', up_proj: 'mlp', down_proj: 'mlp',
};

/** The Hugging Face name of a wrapped projection, e.g. model.layers.3.self_attn.q_proj. */
export const projectionName = (layer: number, target: LoraTarget): string => `${layerPrefix(layer)}.${PARENT[target]}.${target}`;

/** An adapter tensor's name: PEFT's saved name without its `base_model.model.` prefix. */
export const loraName = (projection: string, which: 'A' | 'B'): string => `${projection}.lora_${which}.weight`;

/** The adapter tensors a config's `lora` implies (none without one), with their shapes, in layer order. */
export function adapterShapes(c: ModelConfig): Map<string, number[]> {
  const shapes = new Map<string, number[]>();
  if (!c.lora) return shapes;
  for (let i = 0; i < c.numLayers; i++) {
    for (const target of LORA_TARGETS) {
      if (!c.lora.targetModules.includes(target)) continue;
      const [out, inp] = projectionDims(c, target);
      const projection = projectionName(i, target);
      shapes.set(loraName(projection, 'A'), [c.lora.r, inp]);
      shapes.set(loraName(projection, 'B'), [out, c.lora.r]);
    }
  }
  return shapes;
}

export const isAdapterTensor = (name: string): boolean => name.endsWith('.lora_A.weight') || name.endsWith('.lora_B.weight');

/**
 * Several adapters of one LoRA shape as the stacks a multi-adapter decode graph reads: A as [N·r, in] (the adapters'
 * A one after another) and B as [out, N·r] (adapter i's B in columns i·r … i·r + r − 1). Adapter i is row index i of
 * `adapter_index`.
 */
export function stackAdapters(c: ModelConfig, adapters: readonly Weights[]): Weights {
  const stacks: Weights = new Map();
  const N = adapters.length;
  for (const [name, [rows, cols]] of adapterShapes(c)) {
    const dims = name.endsWith('.lora_A.weight') ? [N * rows, cols] : [rows, N * cols];
    stacks.set(name, { dims, data: new Float32Array(N * rows * cols) });
  }
  adapters.forEach((adapter, i) => writeStackSlice(c, stacks, i, adapter));
  return stacks;
}

/** Copies one adapter's tensors into slot `index` of stacks made by stackAdapters (after its optimizer step). */
export function writeStackSlice(c: ModelConfig, stacks: Weights, index: number, adapter: Weights): void {
  for (const [name, [rows, cols]] of adapterShapes(c)) {
    const source = tensorOf(adapter, name).data;
    const stack = tensorOf(stacks, name);
    if (name.endsWith('.lora_A.weight')) {
      stack.data.set(source, index * rows * cols);
      continue;
    }
    const width = stack.dims[1];
    for (let o = 0; o < rows; o++) stack.data.set(source.subarray(o * cols, (o + 1) * cols), o * width + index * cols);
  }
}

/**
 * Why policies cannot be stacked in one multi-adapter batch, or null when they can: at least one carries an adapter,
 * every adapter of one LoRA shape, all of one architecture and reading the same base arrays (one frozen base in
 * memory, not equal copies). A policy without an adapter is that base itself: its rows take no low-rank update.
 */
export function unstackableReason(policies: readonly { name: string; config: ModelConfig; weights: Weights }[]): string | null {
  const first = policies.find((p) => p.config.lora);
  if (!first) return `none of the policies (${policies.map((p) => `"${p.name}"`).join(', ')}) has an adapter`;
  const shape = JSON.stringify(first.config.lora);
  const arch = (c: ModelConfig) => JSON.stringify({ ...baseConfig(c), raw: undefined, maxPositionEmbeddings: undefined });
  for (const other of policies) {
    if (other === first) continue;
    if (other.config.lora && JSON.stringify(other.config.lora) !== shape) return `policies "${first.name}" and "${other.name}" have adapters of different shapes`;
    if (arch(other.config) !== arch(first.config)) return `policies "${first.name}" and "${other.name}" have different architectures`;
    for (const name of weightShapes(first.config).keys()) {
      if (other.weights.get(name)?.data !== first.weights.get(name)?.data) return `policies "${first.name}" and "${other.name}" do not share one base (${name} differs)`;
    }
  }
  return null;
}

/** Only the base's tensors of an adapted policy's weights (the arrays themselves). */
export const baseOf = (c: ModelConfig, weights: Weights): Weights => new Map([...weightShapes(c).keys()].map((name) => [name, tensorOf(weights, name)]));

/** Every tensor a graph of this config reads: the base's, then the adapter's. */
export const graphTensorShapes = (c: ModelConfig): Map<string, number[]> => new Map([...weightShapes(c), ...adapterShapes(c)]);

/** The tensors a learner of this config trains: the adapter's when it has one, else every weight. */
export const trainableShapes = (c: ModelConfig): Map<string, number[]> => (c.lora ? adapterShapes(c) : weightShapes(c));

/** [out, in] of a projection's Hugging Face weight. */
export function projectionDims(c: ModelConfig, target: LoraTarget): [number, number] {
  const D = c.hiddenSize;
  const qDim = c.numHeads * c.headDim;
  const kvDim = c.numKvHeads * c.headDim;
  const I = c.intermediateSize;
  const dims: Record<LoraTarget, [number, number]> = {
    q_proj: [qDim, D], k_proj: [kvDim, D], v_proj: [kvDim, D], o_proj: [D, qDim], gate_proj: [I, D], up_proj: [I, D], down_proj: [D, I],
  };
  return dims[target];
}

/** Adapter parameters in closed form. */
export function adapterParameterCount(c: ModelConfig): number {
  if (!c.lora) return 0;
  let perLayer = 0;
  for (const target of c.lora.targetModules) {
    const [out, inp] = projectionDims(c, target);
    perLayer += c.lora.r * (out + inp);
  }
  return perLayer * c.numLayers;
}

/** The scale of the low-rank update, alpha / r (PEFT without rsLoRA). */
export const loraScale = (lora: LoraConfig): number => lora.alpha / lora.r;

/** The base config with an adapter on it: the config a policy made of a shared base and its adapter runs under. */
export const withAdapter = (base: ModelConfig, lora: LoraConfig): ModelConfig => ({ ...base, lora });

/** The base config an adapted one sits on. */
export function baseConfig(c: ModelConfig): ModelConfig {
  const { lora: _lora, ...base } = c;
  return base;
}

/**
 * Fresh adapter weights, as PEFT initializes them: A uniform in ±1/sqrt(in) (kaiming_uniform with a = sqrt 5),
 * B zero, or normal with `initStdB` when that is positive. Every draw comes from `seed`.
 */
export function initAdapter(c: ModelConfig, seed: number): Weights {
  const rng = new Rng(seed);
  const weights: Weights = new Map();
  const initStdB = c.lora?.initStdB ?? 0;
  for (const [name, dims] of adapterShapes(c)) {
    const data = new Float32Array(dims[0] * dims[1]);
    if (name.endsWith('lora_A.weight')) {
      const bound = 1 / Math.sqrt(dims[1]);
      for (let i = 0; i < data.length; i++) data[i] = (2 * rng.next() - 1) * bound;
    } else if (initStdB > 0) {
      for (let i = 0; i < data.length; i++) data[i] = rng.normal() * initStdB;
    }
    weights.set(name, { dims, data });
  }
  return weights;
}

/** A policy's tensors: the base's own arrays (shared, never copied) and the adapter's. */
export function adaptedWeights(base: Weights, adapter: Weights): Weights {
  return new Map([...base, ...adapter]);
}

/** Only the adapter's tensors of an adapted policy's weights. */
export function adapterOf(c: ModelConfig, weights: Weights): Weights {
  return new Map([...adapterShapes(c).keys()].map((name) => [name, tensorOf(weights, name)]));
}

/**
 * The adapter folded into full weights, W + (alpha / r) · B A for every wrapped projection: a plain checkpoint of the
 * base config that computes what base + adapter computes. The wrapped projections are new arrays; every other tensor
 * is the base's own.
 */
export function mergeAdapter(c: ModelConfig, weights: Weights): Weights {
  const lora = c.lora;
  const merged: Weights = new Map([...weightShapes(c).keys()].map((name) => [name, tensorOf(weights, name)]));
  if (!lora) return merged;
  const scale = loraScale(lora);
  for (let i = 0; i < c.numLayers; i++) {
    for (const target of lora.targetModules) {
      const projection = projectionName(i, target);
      const w = tensorOf(weights, `${projection}.weight`);
      const a = tensorOf(weights, loraName(projection, 'A')).data;
      const b = tensorOf(weights, loraName(projection, 'B')).data;
      const [out, inp] = w.dims;
      const data = new Float32Array(w.data);
      for (let o = 0; o < out; o++) {
        for (let k = 0; k < lora.r; k++) {
          const bk = b[o * lora.r + k] * scale;
          if (bk === 0) continue;
          const row = o * inp;
          const aRow = k * inp;
          for (let j = 0; j < inp; j++) data[row + j] += bk * a[aRow + j];
        }
      }
      merged.set(`${projection}.weight`, { dims: [...w.dims], data });
    }
  }
  return merged;
}
