import { Graph, type Value } from '../onnx/graph.ts';
import type { ModelConfig } from './config.ts';
import { layerPrefix } from './weights.ts';
import { adapterShapes, graphTensorShapes, isAdapterTensor, loraName, loraScale } from './lora.ts';
import { opsFor, type OpSet } from './op-set.ts';
import { entryOf, present } from '../../core/errors.ts';

/**
 * How a graph gets its weights. 'inputs': every weight is a graph input by its Hugging Face name, fed zero-copy on
 * each run from the one host copy, so any number of graphs and co-decoded members share it and a trained policy's
 * new weights are seen without rebuilding anything. 'initializers': external initializers (ONNX external data,
 * handed over from memory), which onnxruntime copies into the session once — what a CUDA session needs, since
 * inputs would cross to the device on every run. Neither goes through the protobuf, so neither has its 2 GB limit.
 */
export type WeightBinding = 'inputs' | 'initializers';

export interface DecodeGraphOptions {
  /** 'last': next-token probabilities at each row's `last_index` ([N,V] for the N `rows`); 'all': log-probabilities at every position ([B,S,V]) and of each `targets` token ([B,S]). */
  output: 'last' | 'all';
  weights: WeightBinding;
  /**
   * Several adapters of the config's LoRA shape in one batch (S-LoRA/Punica-style serving): each adapter tensor is fed
   * as a stack over the N adapters, A as [N·r, in] and B as [out, N·r] (`stackAdapters`), and `adapter_index` [B] int64
   * names each row's adapter. The base's matmuls are shared by every row; the low-rank update is two plain GEMMs over
   * every adapter's ranks, x A_all^T masked per row to its own adapter's r columns (scaled by alpha / r) and then
   * B_all^T, so N adapters cost N times one adapter's low-rank flops and no per-row gather of weights.
   * Inputs only (the stacks change with the adapters a batch holds).
   */
  adapterStack?: boolean;
  /** The ops the graph is written in (OpSet): 'cpu' (default) or 'gpu'. Encode it at OPSET[opSet]. */
  opSet?: OpSet;
  /**
   * 'host' (default): the graph returns only the new keys and values, which the caller writes into its caches.
   * 'resident': it returns each whole cache with the new positions appended (present_key_i = past ‖ new along the
   * positions), for a caller that keeps the caches on the device and feeds them back (ResidentCaches).
   */
  cache?: 'host' | 'resident';
}

export const cacheName = (layer: number, kind: 'key' | 'value'): string => `past_${kind}_${layer}`;
export const newKvName = (layer: number, kind: 'key' | 'value'): string => `new_${kind}_${layer}`;
export const presentName = (layer: number, kind: 'key' | 'value'): string => `present_${kind}_${layer}`;

/** The external-data file name of a weight in 'initializers' graphs. */
export const weightLocation = (name: string): string => `${name}.bin`;

/**
 * One model's inference graph. Prefill, decode and multi-token appends are the same graph: each row appends S
 * tokens after its own cached prefix. Co-decoded policies run it one member at a time (several members with one
 * architecture share one session), so there is no control flow in the graph and a member with nothing to read
 * costs nothing; adapters over one base and that base itself may instead run as lanes of one batch (`adapterStack`).
 *
 * The KV caches are graph inputs only, read in place (onnxruntime-node copies every fetched output into a fresh
 * buffer, so a cache that came back as an output would be copied whole on every step). The graph returns just the
 * new keys (after RoPE) and values, [B,Hkv,S,hd], which the caller writes into its caches.
 *
 * Inputs: the weights (see WeightBinding); input_ids [B,S] int64, position_ids [B,S] int64 (past_len + s),
 * past_mask [B,1,1,C] (0 where a cached position is valid, -inf after), chunk_mask [S,S] (causal, 0/-inf),
 * inv_temperature [B,1], rope_cos / rope_sin [P, hd/2] (RotaryTables, P above every position); for 'last'
 * last_index [B] int64 and rows [N] int64 (the rows whose next-token distribution it must return: only they pay for
 * the vocabulary projection, so a member that writes no row runs a KV-only forward); for 'all' targets [B,S] int64;
 * past_key_i / past_value_i [B,Hkv,C,hd] with any capacity C >= 1.
 * Outputs: probs [N,V] (softmax of logits·inv_temperature), or logprobs [B,S,V] and target_logprobs [B,S];
 * new_key_i, new_value_i (or, with `cache: 'resident'`, present_key_i, present_value_i [B,Hkv,C+S,hd]).
 */
export function buildDecodeGraph(c: ModelConfig, options: DecodeGraphOptions): Graph {
  const g = new Graph('ludus_decode');
  const weights = new Map<string, Value>();
  const stacked = options.adapterStack === true && c.lora !== undefined;
  for (const [name, dims] of graphTensorShapes(c)) {
    if (stacked && isAdapterTensor(name)) weights.set(name, g.input(name, 'float32', name.endsWith('.lora_A.weight') ? ['NR', dims[1]] : [dims[0], 'NR']));
    else weights.set(name, options.weights === 'inputs' ? g.input(name, 'float32', dims) : g.externalInitializer(name, 'float32', dims, weightLocation(name)));
  }
  const adapterIndex = stacked ? g.input('adapter_index', 'int64', ['B']) : null;
  const w = (name: string): Value => entryOf(weights, name, 'the decode graph tensor');
  const ids = g.input('input_ids', 'int64', ['B', 'S']);
  const positions = g.input('position_ids', 'int64', ['B', 'S']);
  const pastMask = g.input('past_mask', 'float32', ['B', 1, 1, 'C']);
  const chunkMaskInput = g.input('chunk_mask', 'float32', ['S', 'S']);
  const invTemperature = g.input('inv_temperature', 'float32', ['B', 1]);
  const cosCache = g.input('rope_cos', 'float32', ['P', c.headDim / 2]);
  const sinCache = g.input('rope_sin', 'float32', ['P', c.headDim / 2]);
  const lastIndex = options.output === 'last' ? g.input('last_index', 'int64', ['B']) : null;
  const rows = options.output === 'last' ? g.input('rows', 'int64', ['N']) : null;
  const targets = options.output === 'all' ? g.input('targets', 'int64', ['B', 'S']) : null;
  const caches = Array.from({ length: c.numLayers }, (_, i) => ({
    key: g.input(cacheName(i, 'key'), 'float32', ['B', c.numKvHeads, 'C', c.headDim]),
    value: g.input(cacheName(i, 'value'), 'float32', ['B', c.numKvHeads, 'C', c.headDim]),
  }));

  const ops = opsFor(g, options.opSet ?? 'cpu');
  const matmulT = ops.matmulT;
  const scaling = c.lora ? g.scalar(loraScale(c.lora), 'float32') : null;
  const rowMask = adapterIndex && c.lora && scaling ? stackedRowMask(g, adapterIndex, w([...adapterShapes(c).keys()][0]), c.lora.r, scaling) : null;
  // y = x W^T (+ b) (+ (alpha/r) · (x A^T) B^T where an adapter wraps the projection; with stacked adapters each row's own).
  const linear = (x: Value, name: string, bias: boolean): Value => {
    let y = matmulT(x, w(`${name}.weight`));
    const a = weights.get(loraName(name, 'A'));
    if (a && scaling) {
      const b = w(loraName(name, 'B'));
      // The scale (with stacked adapters, the row's mask) on the rank-r activations, as the training graph has it.
      const update = matmulT(g.op1('Mul', [matmulT(x, a), rowMask ?? scaling]), b);
      y = g.op1('Add', [y, update]);
    }
    return bias ? g.op1('Add', [y, w(`${name}.bias`)]) : y;
  };
  const rms = (x: Value, weight: Value) => ops.rmsNorm(x, weight, c.rmsNormEps);

  const H = c.numHeads;
  const Hkv = c.numKvHeads;
  const hd = c.headDim;
  const group = H / Hkv;
  const qDim = H * hd;
  const kvDim = Hkv * hd;
  const perHead = g.ints([0, 0, -1, hd]);
  const qGrouped = g.ints([0, 0, Hkv, group, hd]);
  const merged = (dim: number) => g.ints([0, 0, dim]);
  const scale = g.scalar(1 / Math.sqrt(hd), 'float32');
  const batchHeadsRows = g.ints([0, Hkv, -1, hd]);
  const ungroup = g.ints([0, Hkv, group, -1, hd]);
  const rope = (x: Value, heads: number) => ops.rope(x, cosCache, sinCache, positions, heads);
  const chunkMask = g.op1('Tile', [chunkMaskInput, g.ints([group, 1])]);

  let x = g.op1('Gather', [w('model.embed_tokens.weight'), ids], { axis: 0 });
  for (let i = 0; i < c.numLayers; i++) {
    const p = layerPrefix(i);
    const h = rms(x, w(`${p}.input_layernorm.weight`));
    let q = linear(h, `${p}.self_attn.q_proj`, c.qkvBias);
    let k = linear(h, `${p}.self_attn.k_proj`, c.qkvBias);
    const v = linear(h, `${p}.self_attn.v_proj`, c.qkvBias);
    if (c.qkNorm) {
      q = g.op1('Reshape', [rms(g.op1('Reshape', [q, perHead]), w(`${p}.self_attn.q_norm.weight`)), merged(qDim)]);
      k = g.op1('Reshape', [rms(g.op1('Reshape', [k, perHead]), w(`${p}.self_attn.k_norm.weight`)), merged(kvDim)]);
    }
    q = g.op1('Mul', [rope(q, H), scale]);
    k = rope(k, Hkv);
    // [B,S,H*hd] -> [B,Hkv,group*S,hd]: the query heads sharing a kv head become rows of one matmul.
    const qRows = g.op1('Reshape', [g.op1('Transpose', [g.op1('Reshape', [q, qGrouped])], { perm: [0, 2, 3, 1, 4] }), batchHeadsRows]);
    const newKey = g.op1('Transpose', [g.op1('Reshape', [k, perHead])], { perm: [0, 2, 1, 3] });
    const newValue = g.op1('Transpose', [g.op1('Reshape', [v, perHead])], { perm: [0, 2, 1, 3] });
    const { key: pastKey, value: pastValue } = caches[i];
    if (options.cache === 'resident') {
      g.output(g.op1('Concat', [pastKey, newKey], { axis: 2 }), presentName(i, 'key'));
      g.output(g.op1('Concat', [pastValue, newValue], { axis: 2 }), presentName(i, 'value'));
    } else {
      g.output(newKey, newKvName(i, 'key'));
      g.output(newValue, newKvName(i, 'value'));
    }
    const pastScores = g.op1('Add', [ops.matmulTActivations(qRows, pastKey), pastMask]);
    const newScores = g.op1('Add', [ops.matmulTActivations(qRows, newKey), chunkMask]);
    const probs = g.op1('Softmax', [g.op1('Concat', [pastScores, newScores], { axis: -1 })], { axis: -1 });
    const [pastProbs, newProbs] = g.op('Split', [probs, g.op1('Concat', [g.op1('Shape', [pastKey], { start: 2, end: 3 }), g.op1('Shape', [newKey], { start: 2, end: 3 })], { axis: 0 })], { axis: -1 }, { outputs: 2 });
    const attnRows = g.op1('Add', [g.op1('MatMul', [pastProbs, pastValue]), g.op1('MatMul', [newProbs, newValue])]);
    const attn = g.op1('Reshape', [g.op1('Transpose', [g.op1('Reshape', [attnRows, ungroup])], { perm: [0, 3, 1, 2, 4] }), merged(qDim)]);
    x = g.op1('Add', [x, linear(attn, `${p}.self_attn.o_proj`, c.oBias)]);

    const h2 = rms(x, w(`${p}.post_attention_layernorm.weight`));
    const gate = linear(h2, `${p}.mlp.gate_proj`, c.mlpBias);
    const up = linear(h2, `${p}.mlp.up_proj`, c.mlpBias);
    const act = g.op1('Mul', [g.op1('Mul', [gate, g.op1('Sigmoid', [gate])]), up]);
    x = g.op1('Add', [x, linear(act, `${p}.mlp.down_proj`, c.mlpBias)]);
  }
  let hidden = rms(x, w('model.norm.weight'));
  const head = w(c.tieWordEmbeddings ? 'model.embed_tokens.weight' : 'lm_head.weight');
  const project = (rowsOfHidden: Value) => matmulT(rowsOfHidden, head);
  if (lastIndex && rows) {
    hidden = ops.gatherLast(hidden, lastIndex);
    const picked = g.op1('Gather', [hidden, rows], { axis: 0 });
    const logits = g.op1('Mul', [project(picked), g.op1('Gather', [invTemperature, rows], { axis: 0 })]);
    g.output(g.op1('Softmax', [logits], { axis: -1 }), 'probs');
  } else {
    const logprobs = ops.logSoftmax(project(hidden));
    g.output(logprobs, 'logprobs');
    g.output(g.op1('Squeeze', [g.op1('GatherElements', [logprobs, g.op1('Unsqueeze', [present(targets, "the 'all' output's targets input"), g.ints([2])])], { axis: 2 }), g.ints([2])]), 'target_logprobs');
  }
  return g;
}

/**
 * [B, 1, N·r]: alpha / r on the r columns of each row's own adapter in a stack of N (`adapter_index`), 0 on the others.
 * N·r is read off a stacked A's first dimension, so one graph takes any number of adapters.
 */
function stackedRowMask(g: Graph, adapterIndex: Value, stackedA: Value, r: number, scaling: Value): Value {
  const ranks = g.op1('Squeeze', [g.op1('Shape', [stackedA], { start: 0, end: 1 }, { dtypes: ['int64'] }), g.ints([0])]);
  const columns = g.op1('Range', [g.scalar(0, 'int64'), ranks, g.scalar(1, 'int64')]);
  const owner = g.op1('Div', [columns, g.scalar(r, 'int64')]);
  const own = g.op1('Equal', [g.op1('Unsqueeze', [adapterIndex, g.ints([1])]), g.op1('Unsqueeze', [owner, g.ints([0])])], {}, { dtypes: ['bool'] });
  return g.op1('Unsqueeze', [g.op1('Mul', [g.op1('Cast', [own], { to: 1 }, { dtypes: ['float32'] }), scaling]), g.ints([1])]);
}
