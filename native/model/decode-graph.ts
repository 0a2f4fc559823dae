import { fail } from '../../core/errors.ts';
import { Graph, MS_DOMAIN, type Value } from '../onnx/graph.ts';
import type { ModelConfig } from './config.ts';
import { layerPrefix, type Weights } from './weights.ts';

/** One model inside a decode graph; `prefix` keeps its tensors and cache names apart from its partners'. */
export interface DecodeMember {
  config: ModelConfig;
  weights: Weights;
  prefix: string;
}

export interface DecodeGraphOptions {
  /** Cache capacity in positions (prompt + generated). */
  maxLen: number;
  /** 'last': logits at each row's `last_index` ([B,V]); 'all': logits at every position ([B,S,V]). */
  logits: 'last' | 'all';
}

export const cacheName = (prefix: string, layer: number, kind: 'key' | 'value', io: 'past' | 'present'): string =>
  `${prefix}${io}_${kind}_${layer}`;

export const logitsName = (prefix: string): string => `${prefix}logits`;

/** head_dim must be a multiple of 16 for onnxruntime's fused GroupQueryAttention kernel on CPU. */
export function assertDecodable(config: ModelConfig, where: string): void {
  if (config.headDim % 16 !== 0) {
    fail('CONFIG_INVALID', `${where}: head_dim ${config.headDim} must be a multiple of 16 for the fused attention kernel`, { headDim: config.headDim });
  }
}

/**
 * Builds one inference graph stepping every member over the same tokens: prefill and decode are the same graph
 * (S new tokens per row appended at each row's own position), with preallocated KV caches updated in place by
 * GroupQueryAttention (past and present bound to one buffer). Frozen weights are initializers, pre-transposed.
 *
 * Inputs: input_ids [B,S] int64, seqlens_k [B] int32 (= past_len + S - 1), total_len [] int32 (max over rows of
 * past_len + S), last_index [B] int64 (for 'last'); per member and layer past_key_i / past_value_i [B,Hkv,maxLen,hd].
 * Outputs: per member `logits` and present_key_i / present_value_i (bind them to the past buffers).
 */
export function buildDecodeGraph(members: DecodeMember[], options: DecodeGraphOptions): Graph {
  const g = new Graph('ludus_decode');
  const ids = g.input('input_ids', 'int64', ['B', 'S']);
  const seqlens = g.input('seqlens_k', 'int32', ['B']);
  const total = g.input('total_len', 'int32', []);
  const lastIndex = options.logits === 'last' ? g.input('last_index', 'int64', ['B']) : null;
  for (const member of members) {
    assertDecodable(member.config, member.prefix || 'model');
    buildMember(g, member, options, { ids, seqlens, total, lastIndex });
  }
  return g;
}

interface SharedInputs {
  ids: Value;
  seqlens: Value;
  total: Value;
  lastIndex: Value | null;
}

function buildMember(g: Graph, member: DecodeMember, options: DecodeGraphOptions, inputs: SharedInputs): void {
  const { config: c, weights: w, prefix } = member;
  const tensor = (name: string) => {
    const t = w.get(name);
    if (!t) fail('CHECKPOINT_TENSOR_MISSING', `tensor "${name}" is missing`, { tensor: name });
    return t!;
  };
  const init = (name: string) => g.initializer(`${prefix}${name}`, { dtype: 'float32', dims: tensor(name).dims, data: tensor(name).data });
  const initT = (name: string) => {
    const t = tensor(name);
    return g.initializer(`${prefix}${name}.T`, { dtype: 'float32', dims: [t.dims[1], t.dims[0]], data: transpose(t.data, t.dims[0], t.dims[1]) });
  };
  const concatT = (names: string[], label: string) => {
    const parts = names.map(tensor);
    const cols = parts[0].dims[1];
    const rows = parts.reduce((a, t) => a + t.dims[0], 0);
    const stacked = new Float32Array(rows * cols);
    let offset = 0;
    for (const t of parts) {
      stacked.set(t.data, offset);
      offset += t.data.length;
    }
    return g.initializer(`${prefix}${label}.T`, { dtype: 'float32', dims: [cols, rows], data: transpose(stacked, rows, cols) });
  };
  const concatBias = (names: string[], label: string) => {
    const parts = names.map(tensor);
    const data = new Float32Array(parts.reduce((a, t) => a + t.data.length, 0));
    let offset = 0;
    for (const t of parts) {
      data.set(t.data, offset);
      offset += t.data.length;
    }
    return g.initializer(`${prefix}${label}`, { dtype: 'float32', dims: [data.length], data });
  };
  const rms = (x: Value, weight: Value) => g.op1('RMSNormalization', [x, weight], { axis: -1, epsilon: { float: c.rmsNormEps } });

  const qDim = c.numHeads * c.headDim;
  const kvDim = c.numKvHeads * c.headDim;
  const { cos, sin } = ropeTables(c, options.maxLen);
  const cosCache = g.initializer(`${prefix}rope_cos`, { dtype: 'float32', dims: [options.maxLen, c.headDim / 2], data: cos });
  const sinCache = g.initializer(`${prefix}rope_sin`, { dtype: 'float32', dims: [options.maxLen, c.headDim / 2], data: sin });
  const splitQkv = g.ints([qDim, kvDim, kvDim]);
  const splitMlp = g.ints([c.intermediateSize, c.intermediateSize]);
  const headShape = g.ints([0, 0, -1, c.headDim]);
  const flatShape = (dim: number) => g.ints([0, 0, dim]);
  const qFlat = flatShape(qDim);
  const kvFlat = flatShape(kvDim);

  let x = g.op1('Gather', [init('model.embed_tokens.weight'), inputs.ids], { axis: 0 });
  for (let i = 0; i < c.numLayers; i++) {
    const p = layerPrefix(i);
    const h = rms(x, init(`${p}.input_layernorm.weight`));
    const proj = [`${p}.self_attn.q_proj`, `${p}.self_attn.k_proj`, `${p}.self_attn.v_proj`];
    let qkv = g.op1('MatMul', [h, concatT(proj.map((n) => `${n}.weight`), `${p}.self_attn.qkv_proj.weight`)]);
    if (c.qkvBias) qkv = g.op1('Add', [qkv, concatBias(proj.map((n) => `${n}.bias`), `${p}.self_attn.qkv_proj.bias`)]);
    let [q, k, v] = g.op('Split', [qkv, splitQkv], { axis: -1 }, { outputs: 3 });
    if (c.qkNorm) {
      q = g.op1('Reshape', [rms(g.op1('Reshape', [q, headShape]), init(`${p}.self_attn.q_norm.weight`)), qFlat]);
      k = g.op1('Reshape', [rms(g.op1('Reshape', [k, headShape]), init(`${p}.self_attn.k_norm.weight`)), kvFlat]);
    }
    const pastKey = g.input(cacheName(prefix, i, 'key', 'past'), 'float32', ['B', c.numKvHeads, options.maxLen, c.headDim]);
    const pastValue = g.input(cacheName(prefix, i, 'value', 'past'), 'float32', ['B', c.numKvHeads, options.maxLen, c.headDim]);
    const [attn, presentKey, presentValue] = g.op(
      'GroupQueryAttention',
      [q, k, v, pastKey, pastValue, inputs.seqlens, inputs.total, cosCache, sinCache],
      { num_heads: c.numHeads, kv_num_heads: c.numKvHeads, do_rotary: 1, rotary_interleaved: 0, scale: { float: 1 / Math.sqrt(c.headDim) } },
      { domain: MS_DOMAIN, outputs: 3 },
    );
    g.output(presentKey, cacheName(prefix, i, 'key', 'present'));
    g.output(presentValue, cacheName(prefix, i, 'value', 'present'));
    let o = g.op1('MatMul', [attn, initT(`${p}.self_attn.o_proj.weight`)]);
    if (c.oBias) o = g.op1('Add', [o, init(`${p}.self_attn.o_proj.bias`)]);
    x = g.op1('Add', [x, o]);

    const h2 = rms(x, init(`${p}.post_attention_layernorm.weight`));
    let gateUp = g.op1('MatMul', [h2, concatT([`${p}.mlp.gate_proj.weight`, `${p}.mlp.up_proj.weight`], `${p}.mlp.gate_up_proj.weight`)]);
    if (c.mlpBias) gateUp = g.op1('Add', [gateUp, concatBias([`${p}.mlp.gate_proj.bias`, `${p}.mlp.up_proj.bias`], `${p}.mlp.gate_up_proj.bias`)]);
    const [gate, up] = g.op('Split', [gateUp, splitMlp], { axis: -1 }, { outputs: 2 });
    const act = g.op1('Mul', [g.op1('Mul', [gate, g.op1('Sigmoid', [gate])]), up]);
    let down = g.op1('MatMul', [act, initT(`${p}.mlp.down_proj.weight`)]);
    if (c.mlpBias) down = g.op1('Add', [down, init(`${p}.mlp.down_proj.bias`)]);
    x = g.op1('Add', [x, down]);
  }
  let hidden = rms(x, init('model.norm.weight'));
  if (inputs.lastIndex) {
    const index = g.op1('Unsqueeze', [inputs.lastIndex, g.ints([1])]);
    hidden = g.op1('GatherND', [hidden, index], { batch_dims: 1 });
  }
  const head = initT(c.tieWordEmbeddings ? 'model.embed_tokens.weight' : 'lm_head.weight');
  g.output(g.op1('MatMul', [hidden, head]), logitsName(prefix));
}

export function ropeTables(c: ModelConfig, maxLen: number): { cos: Float32Array; sin: Float32Array } {
  const half = c.headDim / 2;
  const cos = new Float32Array(maxLen * half);
  const sin = new Float32Array(maxLen * half);
  for (let i = 0; i < half; i++) {
    const invFreq = 1 / c.ropeTheta ** ((2 * i) / c.headDim);
    for (let p = 0; p < maxLen; p++) {
      const angle = p * invFreq;
      cos[p * half + i] = Math.cos(angle);
      sin[p * half + i] = Math.sin(angle);
    }
  }
  return { cos, sin };
}

export function transpose(data: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    const base = r * cols;
    for (let col = 0; col < cols; col++) out[col * rows + r] = data[base + col];
  }
  return out;
}
