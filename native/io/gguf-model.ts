import { fail } from '../../core/errors.ts';
import type { ModelConfig } from '../model/config.ts';
import { weightShapes, type Weights, tensorOf } from '../model/weights.ts';
import { gguf, type GgufTensor, type GgufTensorType, type GgufValue } from './gguf.ts';

/**
 * A ludus model as llama.cpp's GGUF holds it: the architecture's metadata and every tensor under llama.cpp's name,
 * as llama.cpp's own convert_hf_to_gguf.py writes them. Matrices take the chosen type; vectors (norms, biases) stay
 * F32. A tensor llama.cpp's architecture has no place for is refused by name, since llama.cpp would refuse the file.
 */

/** Which HF tensor suffixes (after `model.layers.N.`) each architecture's llama.cpp loader reads, and as what. */
const LAYER_TENSORS: Record<string, string> = {
  'input_layernorm.weight': 'attn_norm.weight',
  'self_attn.q_proj.weight': 'attn_q.weight',
  'self_attn.k_proj.weight': 'attn_k.weight',
  'self_attn.v_proj.weight': 'attn_v.weight',
  'self_attn.q_proj.bias': 'attn_q.bias',
  'self_attn.k_proj.bias': 'attn_k.bias',
  'self_attn.v_proj.bias': 'attn_v.bias',
  'self_attn.o_proj.weight': 'attn_output.weight',
  'self_attn.o_proj.bias': 'attn_output.bias',
  'self_attn.q_norm.weight': 'attn_q_norm.weight',
  'self_attn.k_norm.weight': 'attn_k_norm.weight',
  'post_attention_layernorm.weight': 'ffn_norm.weight',
  'mlp.gate_proj.weight': 'ffn_gate.weight',
  'mlp.up_proj.weight': 'ffn_up.weight',
  'mlp.down_proj.weight': 'ffn_down.weight',
  'mlp.gate_proj.bias': 'ffn_gate.bias',
  'mlp.up_proj.bias': 'ffn_up.bias',
  'mlp.down_proj.bias': 'ffn_down.bias',
};

/** The layer tensors llama.cpp's loader of each architecture has no place for (src/models/<arch>.cpp). */
const NOT_HELD: Record<ModelConfig['modelType'], readonly string[]> = {
  qwen3: ['self_attn.o_proj.bias', 'mlp.gate_proj.bias', 'mlp.up_proj.bias', 'mlp.down_proj.bias'],
  qwen2: ['self_attn.o_proj.bias', 'mlp.gate_proj.bias', 'mlp.up_proj.bias', 'mlp.down_proj.bias'],
  llama: [],
};

const LAYER = /^model\.layers\.(\d+)\.(.+)$/;

/** llama.cpp's name for a ludus (Hugging Face) tensor name; a tensor it cannot hold is refused by name. */
export function ggufTensorName(config: ModelConfig, name: string): string {
  if (name === 'model.embed_tokens.weight') return 'token_embd.weight';
  if (name === 'model.norm.weight') return 'output_norm.weight';
  if (name === 'lm_head.weight') return 'output.weight';
  const match = LAYER.exec(name);
  const mapped = match ? LAYER_TENSORS[match[2]] : undefined;
  if (!match || mapped === undefined || NOT_HELD[config.modelType].includes(match[2])) {
    return fail('EXPORT_UNSUPPORTED', `tensor "${name}" has no place in llama.cpp's ${config.modelType} architecture, so GGUF cannot hold this model`, { tensor: name, architecture: config.modelType });
  }
  return `blk.${match[1]}.${mapped}`;
}

/**
 * llama.cpp's Llama architecture rotates interleaved pairs, where transformers rotates halves: q and k rows are
 * (and biases) reordered within each head so the two agree (convert_hf_to_gguf.py's permute).
 */
function permuteHeads(data: Float32Array, dims: readonly number[], heads: number): Float32Array {
  const [rows, cols = 1] = dims;
  const headDim = rows / heads;
  const half = headDim / 2;
  const out = new Float32Array(data.length);
  for (let h = 0; h < heads; h++) {
    for (let i = 0; i < half; i++) {
      for (const j of [0, 1]) {
        const from = h * headDim + j * half + i;
        const to = h * headDim + 2 * i + j;
        out.set(data.subarray(from * cols, (from + 1) * cols), to * cols);
      }
    }
  }
  return out;
}

function exportedData(config: ModelConfig, name: string, data: Float32Array, dims: readonly number[]): Float32Array {
  if (config.modelType !== 'llama') return data;
  if (/self_attn\.q_proj\.(weight|bias)$/.test(name)) return permuteHeads(data, dims, config.numHeads);
  if (/self_attn\.k_proj\.(weight|bias)$/.test(name)) return permuteHeads(data, dims, config.numKvHeads);
  return data;
}

/** Every tensor of the model, named as llama.cpp names them; matrices as `type`, vectors as F32. */
export function ggufTensors(config: ModelConfig, weights: Weights, type: GgufTensorType): GgufTensor[] {
  if (config.lora) fail('INTERNAL', 'ggufTensors: merge the adapter into its base first (a defect of ludus; please report it)');
  for (const name of weights.keys()) ggufTensorName(config, name);
  if (config.modelType === 'qwen2' && config.numHeads * config.headDim !== config.hiddenSize) {
    const name = 'model.layers.0.self_attn.q_proj.weight';
    fail('EXPORT_UNSUPPORTED', `tensor "${name}" is [${config.numHeads * config.headDim}, ${config.hiddenSize}]: llama.cpp's qwen2 architecture holds q_proj only as [hidden, hidden] (head_dim × heads = hidden_size)`, { tensor: name });
  }
  return [...weightShapes(config)].map(([name, dims]) => {
    const { data } = tensorOf(weights, name);
    return { name: ggufTensorName(config, name), dims, type: dims.length === 1 ? 'F32' : type, data: exportedData(config, name, data, dims) };
  });
}

/** llama.cpp's general.file_type: 0 all F32, 1 mostly F16. */
const FILE_TYPE: Record<GgufTensorType, number> = { F32: 0, F16: 1 };

/** The architecture's metadata keys (gguf-py's constants), the ones llama.cpp's loader reads for these models. */
export function ggufModelMetadata(config: ModelConfig, name: string, type: GgufTensorType): Array<[string, GgufValue]> {
  const arch = config.modelType;
  return [
    ['general.architecture', gguf.str(arch)],
    ['general.name', gguf.str(name)],
    ['general.file_type', gguf.u32(FILE_TYPE[type])],
    [`${arch}.vocab_size`, gguf.u32(config.vocabSize)],
    [`${arch}.context_length`, gguf.u32(config.maxPositionEmbeddings)],
    [`${arch}.embedding_length`, gguf.u32(config.hiddenSize)],
    [`${arch}.block_count`, gguf.u32(config.numLayers)],
    [`${arch}.feed_forward_length`, gguf.u32(config.intermediateSize)],
    [`${arch}.attention.head_count`, gguf.u32(config.numHeads)],
    [`${arch}.attention.head_count_kv`, gguf.u32(config.numKvHeads)],
    [`${arch}.attention.key_length`, gguf.u32(config.headDim)],
    [`${arch}.attention.value_length`, gguf.u32(config.headDim)],
    [`${arch}.attention.layer_norm_rms_epsilon`, gguf.f32(config.rmsNormEps)],
    [`${arch}.rope.dimension_count`, gguf.u32(config.headDim)],
    [`${arch}.rope.freq_base`, gguf.f32(config.ropeTheta)],
  ];
}
