import { MS_DOMAIN, type Graph, type Value } from '../onnx/graph.ts';

/**
 * The ops an inference graph is written in. 'cpu': the fused kernels onnxruntime's CPU provider has (FusedMatMul with
 * a transposed operand, opset-23 RMSNormalization and RotaryEmbedding, GatherND, LogSoftmax). 'gpu': only ops the
 * WebGPU provider of onnxruntime 1.30 registers kernels for at opset 20 (its kernel registry: no FusedMatMul,
 * RMSNormalization, opset-23 RotaryEmbedding, GatherND or LogSoftmax, and Transpose only up to opset 20), which CUDA
 * has too: a node a GPU provider cannot take runs on the CPU with a copy each way, once per decoded token.
 * `ludus bench placement --device D` reads where each node went.
 */
export type OpSet = 'cpu' | 'gpu';

/** The opset each op set's graphs are encoded at. */
export const OPSET: Record<OpSet, number> = { cpu: 23, gpu: 20 };

export interface Ops {
  /** x · wᵀ (w [out, in], as Hugging Face stores projections). */
  matmulT(x: Value, w: Value): Value;
  /** x · yᵀ over the last two axes of two activations. */
  matmulTActivations(x: Value, y: Value): Value;
  rmsNorm(x: Value, weight: Value, epsilon: number): Value;
  /** Rotary embedding of x [B, S, heads·hd] at `positions` [B, S], from cos/sin tables [P, hd/2] (not interleaved). */
  rope(x: Value, cos: Value, sin: Value, positions: Value, heads: number): Value;
  logSoftmax(x: Value): Value;
  /** hidden [B, S, D] at each row's `lastIndex` [B] → [B, D]. */
  gatherLast(hidden: Value, lastIndex: Value): Value;
}

export function opsFor(g: Graph, set: OpSet): Ops {
  return set === 'cpu' ? cpuOps(g) : gpuOps(g);
}

function cpuOps(g: Graph): Ops {
  const fusedT = (x: Value, y: Value) => g.op1('FusedMatMul', [x, y], { transB: 1 }, { domain: MS_DOMAIN });
  return {
    matmulT: fusedT,
    matmulTActivations: fusedT,
    rmsNorm: (x, weight, epsilon) => g.op1('RMSNormalization', [x, weight], { axis: -1, epsilon: { float: epsilon } }),
    rope: (x, cos, sin, positions, heads) => g.op1('RotaryEmbedding', [x, cos, sin, positions], { num_heads: heads, interleaved: 0 }),
    logSoftmax: (x) => g.op1('LogSoftmax', [x], { axis: -1 }),
    gatherLast: (hidden, lastIndex) => g.op1('GatherND', [hidden, g.op1('Unsqueeze', [lastIndex, g.ints([1])])], { batch_dims: 1 }),
  };
}

function gpuOps(g: Graph): Ops {
  const lastAxis = g.ints([-1]);
  return {
    // Transposing a weight initializer is folded once when the session loads; an activation's is a copy on the device.
    matmulT: (x, w) => g.op1('MatMul', [x, g.op1('Transpose', [w], { perm: [1, 0] })]),
    matmulTActivations: (x, y) => g.op1('MatMul', [x, g.op1('Transpose', [y], { perm: [0, 1, 3, 2] })]),
    // onnxruntime's contrib RMSNorm, registered in the ONNX domain since version 1.
    rmsNorm: (x, weight, epsilon) => g.op1('SimplifiedLayerNormalization', [x, weight], { axis: -1, epsilon: { float: epsilon } }),
    rope: (x, cos, sin, positions, heads) => g.op1('RotaryEmbedding', [x, positions, cos, sin], { num_heads: heads, interleaved: 0 }, { domain: MS_DOMAIN }),
    logSoftmax: (x) => {
      const shifted = g.op1('Sub', [x, g.op1('ReduceMax', [x, lastAxis], { keepdims: 1 })]);
      return g.op1('Sub', [shifted, g.op1('Log', [g.op1('ReduceSum', [g.op1('Exp', [shifted]), lastAxis], { keepdims: 1 })])]);
    },
    gatherLast: (hidden, lastIndex) => {
      const width = g.op1('Shape', [hidden], { start: 2, end: 3 }, { dtypes: ['int64'] });
      const rows = g.op1('Shape', [hidden], { start: 0, end: 1 }, { dtypes: ['int64'] });
      const index = g.op1('Expand', [g.op1('Reshape', [lastIndex, g.ints([-1, 1, 1])]), g.op1('Concat', [rows, g.ints([1]), width], { axis: 0 })]);
      return g.op1('Squeeze', [g.op1('GatherElements', [hidden, index], { axis: 1 }), g.ints([1])]);
    },
  };
}
