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
  /** Largest position the rotary tables cover. */
  maxLen: number;
  /** 'last': next-token probabilities at each row's `last_index` ([B,V]); 'all': log-probabilities at every position ([B,S,V]). */
  output: 'last' | 'all';
}

export const cacheName = (prefix: string, layer: number, kind: 'key' | 'value'): string => `${prefix}past_${kind}_${layer}`;
export const newKvName = (prefix: string, layer: number, kind: 'key' | 'value'): string => `${prefix}new_${kind}_${layer}`;
export const probsName = (prefix: string): string => `${prefix}probs`;
export const rowsName = (prefix: string): string => `${prefix}rows`;
export const logprobsName = (prefix: string): string => `${prefix}logprobs`;

/** Names of a member's per-call inputs (every member reads its own tokens: partners may be behind). */
export const inputName = (prefix: string, name: 'input_ids' | 'position_ids' | 'past_mask' | 'chunk_mask' | 'inv_temperature' | 'last_index' | 'active'): string =>
  `${prefix}${name}`;

/**
 * Builds one inference graph for one or more members (co-decoded policies). Prefill, decode and multi-token
 * appends are the same graph: each row appends S tokens after its own cached prefix. Every member has its own
 * inputs, so members may read different chunks; with several members each is wrapped in an If on its `active`
 * flag, so one run steps exactly the members that have work.
 *
 * The KV caches are graph inputs only, read in place (onnxruntime-node copies every fetched output into a fresh
 * buffer, so a cache that came back as an output would be copied whole on every step). The graph returns just the
 * new keys (after RoPE) and values, [B,Hkv,S,hd], which the caller writes into its caches.
 *
 * Inputs per member: input_ids [B,S] int64, position_ids [B,S] int64 (past_len + s), past_mask [B,1,1,C] (0 where
 * a cached position is valid, -inf after), chunk_mask [S,S] (causal, 0/-inf), inv_temperature [B,1]; for 'last'
 * last_index [B] int64 and rows [N] int64 (the rows whose next-token distribution it must return); past_key_i /
 * past_value_i [B,Hkv,C,hd] with any capacity C >= 1; `active` (bool scalar) when there are several members.
 * Outputs per member: probs [N,V] (softmax of logits·inv_temperature) or logprobs [B,S,V]; new_key_i, new_value_i.
 */
export function buildDecodeGraph(members: DecodeMember[], options: DecodeGraphOptions): Graph {
  const g = new Graph('ludus_decode');
  const gated = members.length > 1;
  for (const member of members) {
    const p = member.prefix;
    const inputs: MemberInputs = {
      ids: g.input(inputName(p, 'input_ids'), 'int64', [`${p}B`, `${p}S`]),
      positions: g.input(inputName(p, 'position_ids'), 'int64', [`${p}B`, `${p}S`]),
      pastMask: g.input(inputName(p, 'past_mask'), 'float32', [`${p}B`, 1, 1, `${p}C`]),
      chunkMask: g.input(inputName(p, 'chunk_mask'), 'float32', [`${p}S`, `${p}S`]),
      invTemperature: g.input(inputName(p, 'inv_temperature'), 'float32', [`${p}B`, 1]),
      lastIndex: options.output === 'last' ? g.input(inputName(p, 'last_index'), 'int64', [`${p}B`]) : null,
      rows: options.output === 'last' ? g.input(rowsName(p), 'int64', [`${p}rows`]) : null,
      caches: Array.from({ length: member.config.numLayers }, (_, i) => ({
        key: g.input(cacheName(p, i, 'key'), 'float32', [`${p}B`, member.config.numKvHeads, `${p}C`, member.config.headDim]),
        value: g.input(cacheName(p, i, 'value'), 'float32', [`${p}B`, member.config.numKvHeads, `${p}C`, member.config.headDim]),
      })),
    };
    if (!gated) {
      for (const [name, value] of buildMember(g, member, options, inputs)) g.output(value, name);
      continue;
    }
    const body = g.subgraph(`${p}body`);
    const idle = g.subgraph(`${p}idle`);
    const outputs = buildMember(body, member, options, inputs);
    for (const [name, value] of outputs) {
      body.output(value, `${name}__active`);
      idle.output(idle.const(new Float32Array(0), [0], 'float32', 'idle'), `${name}__idle`);
    }
    const active = g.input(inputName(p, 'active'), 'bool', []);
    const results = g.op('If', [active], { then_branch: { graph: body }, else_branch: { graph: idle } }, { outputs: outputs.length, dtypes: outputs.map(() => 'float32') });
    results.forEach((value, i) => g.output(value, outputs[i][0]));
  }
  return g;
}

interface MemberInputs {
  ids: Value;
  positions: Value;
  pastMask: Value;
  chunkMask: Value;
  invTemperature: Value;
  lastIndex: Value | null;
  rows: Value | null;
  caches: Array<{ key: Value; value: Value }>;
}

/** The member's computation, built into `g` (the graph itself, or an If branch); returns [output name, value] pairs. */
function buildMember(g: Graph, member: DecodeMember, options: DecodeGraphOptions, inputs: MemberInputs): Array<[string, Value]> {
  const outputs: Array<[string, Value]> = [];
  const { config: c, weights: w, prefix } = member;
  const tensor = (name: string) => {
    const t = w.get(name);
    if (!t) fail('CHECKPOINT_TENSOR_MISSING', `tensor "${name}" is missing`, { tensor: name });
    return t!;
  };
  const init = (name: string) => g.initializer(`${prefix}${name}`, { dtype: 'float32', dims: tensor(name).dims, data: tensor(name).data });
  const stackT = (names: string[], label: string) => {
    const parts = names.map(tensor);
    const cols = parts[0].dims[1];
    const rows = parts.reduce((a, t) => a + t.dims[0], 0);
    return g.initializer(`${prefix}${label}.T`, { dtype: 'float32', dims: [cols, rows], data: transpose(concat(parts.map((t) => t.data)), rows, cols) });
  };
  const stackBias = (names: string[], label: string) => {
    const data = concat(names.map((n) => tensor(n).data));
    return g.initializer(`${prefix}${label}`, { dtype: 'float32', dims: [data.length], data });
  };
  const rms = (x: Value, weight: Value) => g.op1('RMSNormalization', [x, weight], { axis: -1, epsilon: { float: c.rmsNormEps } });

  const H = c.numHeads;
  const Hkv = c.numKvHeads;
  const hd = c.headDim;
  const group = H / Hkv;
  const qDim = H * hd;
  const kvDim = Hkv * hd;
  const { cos, sin } = ropeTables(c, options.maxLen);
  const cosCache = g.initializer(`${prefix}rope_cos`, { dtype: 'float32', dims: [options.maxLen, hd / 2], data: cos });
  const sinCache = g.initializer(`${prefix}rope_sin`, { dtype: 'float32', dims: [options.maxLen, hd / 2], data: sin });
  const splitQkv = g.ints([qDim, kvDim, kvDim]);
  const splitMlp = g.ints([c.intermediateSize, c.intermediateSize]);
  const perHead = g.ints([0, 0, -1, hd]);
  const qGrouped = g.ints([0, 0, Hkv, group, hd]);
  const merged = (dim: number) => g.ints([0, 0, dim]);
  const scale = g.scalar(1 / Math.sqrt(hd), 'float32');
  const tileGroups = g.ints([group, 1]);
  const batchHeadsRows = g.ints([0, Hkv, -1, hd]);
  const ungroup = g.ints([0, Hkv, group, -1, hd]);
  const rope = (x: Value, heads: number) => g.op1('RotaryEmbedding', [x, cosCache, sinCache, inputs.positions], { num_heads: heads, interleaved: 0 });
  const chunkMask = g.op1('Tile', [inputs.chunkMask, tileGroups]);

  let x = g.op1('Gather', [init('model.embed_tokens.weight'), inputs.ids], { axis: 0 });
  for (let i = 0; i < c.numLayers; i++) {
    const p = layerPrefix(i);
    const h = rms(x, init(`${p}.input_layernorm.weight`));
    const proj = [`${p}.self_attn.q_proj`, `${p}.self_attn.k_proj`, `${p}.self_attn.v_proj`];
    let qkv = g.op1('MatMul', [h, stackT(proj.map((n) => `${n}.weight`), `${p}.self_attn.qkv_proj.weight`)]);
    if (c.qkvBias) qkv = g.op1('Add', [qkv, stackBias(proj.map((n) => `${n}.bias`), `${p}.self_attn.qkv_proj.bias`)]);
    let [q, k, v] = g.op('Split', [qkv, splitQkv], { axis: -1 }, { outputs: 3 });
    if (c.qkNorm) {
      q = g.op1('Reshape', [rms(g.op1('Reshape', [q, perHead]), init(`${p}.self_attn.q_norm.weight`)), merged(qDim)]);
      k = g.op1('Reshape', [rms(g.op1('Reshape', [k, perHead]), init(`${p}.self_attn.k_norm.weight`)), merged(kvDim)]);
    }
    q = g.op1('Mul', [rope(q, H), scale]);
    k = rope(k, Hkv);
    // [B,S,H*hd] -> [B,Hkv,group*S,hd]: the query heads sharing a kv head become rows of one matmul.
    const qRows = g.op1('Reshape', [g.op1('Transpose', [g.op1('Reshape', [q, qGrouped])], { perm: [0, 2, 3, 1, 4] }), batchHeadsRows]);
    const newKey = g.op1('Transpose', [g.op1('Reshape', [k, perHead])], { perm: [0, 2, 1, 3] });
    const newValue = g.op1('Transpose', [g.op1('Reshape', [v, perHead])], { perm: [0, 2, 1, 3] });
    outputs.push([newKvName(prefix, i, 'key'), newKey], [newKvName(prefix, i, 'value'), newValue]);
    const { key: pastKey, value: pastValue } = inputs.caches[i];
    const pastScores = g.op1('Add', [g.op1('FusedMatMul', [qRows, pastKey], { transB: 1 }, { domain: MS_DOMAIN }), inputs.pastMask]);
    const newScores = g.op1('Add', [g.op1('FusedMatMul', [qRows, newKey], { transB: 1 }, { domain: MS_DOMAIN }), chunkMask]);
    const probs = g.op1('Softmax', [g.op1('Concat', [pastScores, newScores], { axis: -1 })], { axis: -1 });
    const [pastProbs, newProbs] = g.op('Split', [probs, g.op1('Concat', [g.op1('Shape', [pastKey], { start: 2, end: 3 }), g.op1('Shape', [newKey], { start: 2, end: 3 })], { axis: 0 })], { axis: -1 }, { outputs: 2 });
    const attnRows = g.op1('Add', [g.op1('MatMul', [pastProbs, pastValue]), g.op1('MatMul', [newProbs, newValue])]);
    const attn = g.op1('Reshape', [g.op1('Transpose', [g.op1('Reshape', [attnRows, ungroup])], { perm: [0, 3, 1, 2, 4] }), merged(qDim)]);
    let o = g.op1('MatMul', [attn, stackT([`${p}.self_attn.o_proj.weight`], `${p}.self_attn.o_proj.weight`)]);
    if (c.oBias) o = g.op1('Add', [o, init(`${p}.self_attn.o_proj.bias`)]);
    x = g.op1('Add', [x, o]);

    const h2 = rms(x, init(`${p}.post_attention_layernorm.weight`));
    let gateUp = g.op1('MatMul', [h2, stackT([`${p}.mlp.gate_proj.weight`, `${p}.mlp.up_proj.weight`], `${p}.mlp.gate_up_proj.weight`)]);
    if (c.mlpBias) gateUp = g.op1('Add', [gateUp, stackBias([`${p}.mlp.gate_proj.bias`, `${p}.mlp.up_proj.bias`], `${p}.mlp.gate_up_proj.bias`)]);
    const [gate, up] = g.op('Split', [gateUp, splitMlp], { axis: -1 }, { outputs: 2 });
    const act = g.op1('Mul', [g.op1('Mul', [gate, g.op1('Sigmoid', [gate])]), up]);
    let down = g.op1('MatMul', [act, stackT([`${p}.mlp.down_proj.weight`], `${p}.mlp.down_proj.weight`)]);
    if (c.mlpBias) down = g.op1('Add', [down, init(`${p}.mlp.down_proj.bias`)]);
    x = g.op1('Add', [x, down]);
  }
  let hidden = rms(x, init('model.norm.weight'));
  const head = stackT([c.tieWordEmbeddings ? 'model.embed_tokens.weight' : 'lm_head.weight'], 'lm_head.weight');
  if (inputs.lastIndex && inputs.rows) {
    // Only the rows this member is asked about (the rows it authors) pay for the vocabulary projection.
    const rows = inputs.rows;
    hidden = g.op1('GatherND', [hidden, g.op1('Unsqueeze', [inputs.lastIndex, g.ints([1])])], { batch_dims: 1 });
    const picked = g.op1('Gather', [hidden, rows], { axis: 0 });
    const logits = g.op1('Mul', [g.op1('MatMul', [picked, head]), g.op1('Gather', [inputs.invTemperature, rows], { axis: 0 })]);
    outputs.push([probsName(prefix), g.op1('Softmax', [logits], { axis: -1 })]);
  } else {
    const logits = g.op1('MatMul', [hidden, head]);
    outputs.push([logprobsName(prefix), g.op1('LogSoftmax', [logits], { axis: -1 })]);
  }
  return outputs;
}

function concat(parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((a, t) => a + t.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
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
