import type { ModelConfig } from '../model/config.ts';
import { layerPrefix, weightShapes } from '../model/weights.ts';
import { adapterShapes, loraName, loraScale } from '../model/lora.ts';
import type { Value } from '../onnx/graph.ts';
import type { Tape } from './tape.ts';
import { ropeGraphTables } from './rope.ts';
import { gatherRows } from './ops/gather-rows.ts';
import { linear, linearOnto } from './ops/linear.ts';
import { rmsnorm } from './ops/rmsnorm.ts';
import { rotary } from './ops/rotary.ts';
import { swiglu } from './ops/swiglu.ts';
import { causalAttention, groupedCausalMask } from './ops/attention.ts';
import { entryOf } from '../../core/errors.ts';

/**
 * The decoder of a Qwen3/Qwen2/Llama causal LM as tape ops, from `input_ids` [B, T] to the final hidden
 * states [B·T, D]; `logits(tape, net, hidden)` applies the LM head to all or some of those rows.
 */
export interface Network {
  /**
   * Every weight as a graph input named by its Hugging Face name, in `weightShapes` order, then the adapter's
   * tensors (`adapterShapes`). With an adapter only its tensors carry gradient; the base is a plain input.
   */
  params: Map<string, Value>;
  /** Final-norm output divided by the temperature, [B·T, D]: the LM head's input. */
  hidden: Value;
  /** lm_head.weight, or the embedding when tied, [V, D]. */
  head: Value;
  /** Runtime [B, T] of `input_ids`, for reshaping per-token outputs. */
  batchShape: Value;
}

/** Logits [rows, V] of final hidden rows (all of `net.hidden`, or a gathered subset). */
export function logits(tape: Tape, net: Network, hidden: Value = net.hidden): Value {
  return linear(tape, hidden, net.head);
}

export interface NetworkOptions {
  /** Scalar the logits are divided by; none means 1. */
  temperature?: Value;
  /** Graph input names are `${inputPrefix}${HF name}` (a second, frozen model in the same graph); `params` keeps HF names. */
  inputPrefix?: string;
}

interface Positional {
  cos: Value;
  signedSin: Value;
  /** The query tables carry the 1/sqrt(head_dim) attention scale, so scores need no extra pass. */
  queryCos: Value;
  querySignedSin: Value;
  mask: Value;
  qShape: Value;
  kvShape: Value;
}

export function buildNetwork(tape: Tape, config: ModelConfig, inputIds: Value, options: NetworkOptions = {}): Network {
  const g = tape.graph;
  const params = new Map<string, Value>();
  const frozen = config.lora !== undefined;
  const named = (name: string) => `${options.inputPrefix ?? ''}${name}`;
  for (const [name, dims] of weightShapes(config)) params.set(name, frozen ? g.input(named(name), tape.dtype, dims) : tape.parameter(named(name), dims));
  for (const [name, dims] of adapterShapes(config)) params.set(name, tape.parameter(named(name), dims));
  const w = (name: string): Value => entryOf(params, name, 'the network parameter');
  const wOpt = (name: string): Value | undefined => params.get(name);
  const scaling = config.lora ? tape.scalar(loraScale(config.lora)) : null;
  /** A projection by its Hugging Face name (`…q_proj`), with its bias and, where an adapter wraps it, the low-rank update. */
  const project = (x: Value, name: string): Value => {
    const y = linear(tape, x, w(`${name}.weight`), wOpt(`${name}.bias`));
    const a = wOpt(loraName(name, 'A'));
    if (!a || !scaling) return y;
    // The scale on the rank-r activations, and B's product accumulated onto the base's in its Gemm: no extra pass over [N, out].
    return linearOnto(tape, tape.scale(linear(tape, x, a), scaling), w(loraName(name, 'B')), y);
  };

  const batchShape = g.op1('Shape', [inputIds], {}, { dtypes: ['int64'] });
  const positional = positionalInputs(tape, config, batchShape);
  const ids = g.op1('Reshape', [inputIds, g.ints([-1])]);

  let x = gatherRows(tape, w('model.embed_tokens.weight'), ids);
  for (let i = 0; i < config.numLayers; i++) {
    const p = layerPrefix(i);
    const attnIn = rmsnorm(tape, x, w(`${p}.input_layernorm.weight`), config.rmsNormEps);
    const attnOut = selfAttention(tape, config, attnIn, positional, p, w, project);
    x = tape.add(x, attnOut);
    const mlpIn = rmsnorm(tape, x, w(`${p}.post_attention_layernorm.weight`), config.rmsNormEps);
    const gate = project(mlpIn, `${p}.mlp.gate_proj`);
    const up = project(mlpIn, `${p}.mlp.up_proj`);
    x = tape.add(x, project(swiglu(tape, gate, up), `${p}.mlp.down_proj`));
  }
  let hidden = rmsnorm(tape, x, w('model.norm.weight'), config.rmsNormEps);
  if (options.temperature) hidden = tape.scale(hidden, g.op1('Reciprocal', [options.temperature]));
  const head = config.tieWordEmbeddings ? w('model.embed_tokens.weight') : w('lm_head.weight');
  return { params, hidden, head, batchShape };
}

function selfAttention(
  tape: Tape,
  c: ModelConfig,
  x: Value,
  pos: Positional,
  p: string,
  w: (name: string) => Value,
  projectAt: (x: Value, name: string) => Value,
): Value {
  const project = (which: 'q' | 'k' | 'v'): Value => projectAt(x, `${p}.self_attn.${which}_proj`);
  const toHeads = (y: Value, which: 'q' | 'k', shape: Value): Value => {
    if (!c.qkNorm) return tape.reshape(y, shape);
    const perHead = rmsnorm(tape, tape.reshape(y, [-1, c.headDim]), w(`${p}.self_attn.${which}_norm.weight`), c.rmsNormEps);
    return tape.reshape(perHead, shape);
  };
  const q = rotary(tape, toHeads(project('q'), 'q', pos.qShape), pos.queryCos, pos.querySignedSin, c.headDim);
  const k = rotary(tape, toHeads(project('k'), 'k', pos.kvShape), pos.cos, pos.signedSin, c.headDim);
  const v = tape.reshape(project('v'), pos.kvShape);
  const heads = causalAttention(tape, q, k, v, pos.mask, { numHeads: c.numHeads, numKvHeads: c.numKvHeads, headDim: c.headDim, scale: 1 });
  const merged = tape.reshape(heads, [-1, c.numHeads * c.headDim]);
  return projectAt(merged, `${p}.self_attn.o_proj`);
}

function positionalInputs(tape: Tape, c: ModelConfig, batchShape: Value): Positional {
  const g = tape.graph;
  const seqLen = g.op1('Gather', [batchShape, g.const([1], [], 'int64')], { axis: 0 });
  const { cos, signedSin } = ropeGraphTables(g, c.headDim, c.ropeTheta, seqLen, tape.dtype);
  const scale = tape.scalar(1 / Math.sqrt(c.headDim));
  return {
    cos,
    signedSin,
    queryCos: g.op1('Mul', [cos, scale]),
    querySignedSin: g.op1('Mul', [signedSin, scale]),
    mask: groupedCausalMask(tape, seqLen, c.numHeads / c.numKvHeads),
    qShape: g.op1('Concat', [batchShape, g.ints([c.numHeads, c.headDim])], { axis: 0 }),
    kvShape: g.op1('Concat', [batchShape, g.ints([c.numKvHeads, c.headDim])], { axis: 0 }),
  };
}
