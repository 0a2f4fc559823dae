import type { Graph, Value } from '../onnx/graph.ts';
import type { FloatDType } from './tape.ts';

/** Rotary tables for positions 0..length-1, laid out [length, 1, headDim] to broadcast over heads. */
export interface RopeTables {
  length: number;
  headDim: number;
  cos: Float32Array | Float64Array;
  /** sin with the first half negated, so that rotate_half(x)·sin = swap_halves(x)·signedSin. */
  signedSin: Float32Array | Float64Array;
}

/**
 * The non-interleaved (rotate_half) rotary embedding of Llama/Qwen: inv_freq_i = θ^(−2i/d),
 * angle(pos, j) = pos · inv_freq_(j mod d/2). Computed in float64, stored in `dtype`.
 */
export function ropeTables(headDim: number, theta: number, length: number, dtype: FloatDType): RopeTables {
  const half = headDim / 2;
  const size = length * headDim;
  const cos = dtype === 'float64' ? new Float64Array(size) : new Float32Array(size);
  const signedSin = dtype === 'float64' ? new Float64Array(size) : new Float32Array(size);
  for (let pos = 0; pos < length; pos++) {
    for (let i = 0; i < half; i++) {
      const angle = pos * Math.pow(theta, (-2 * i) / headDim);
      const c = Math.cos(angle);
      const s = Math.sin(angle);
      cos[pos * headDim + i] = c;
      cos[pos * headDim + half + i] = c;
      signedSin[pos * headDim + i] = -s;
      signedSin[pos * headDim + half + i] = s;
    }
  }
  return { length, headDim, cos, signedSin };
}

/**
 * The same tables built inside a graph for positions 0..seqLen-1, [seqLen, 1, headDim]: angles and their cos/sin in
 * float64 (as `ropeTables` computes them), then cast to `dtype`. Nothing in the graph is sized by the longest
 * sequence a model allows, which a config may set to 1e9.
 */
export function ropeGraphTables(g: Graph, headDim: number, theta: number, seqLen: Value, dtype: FloatDType): { cos: Value; signedSin: Value } {
  const half = headDim / 2;
  const invFreq = new Float64Array(headDim);
  const signs = dtype === 'float64' ? new Float64Array(headDim) : new Float32Array(headDim);
  for (let i = 0; i < half; i++) {
    invFreq[i] = invFreq[half + i] = Math.pow(theta, (-2 * i) / headDim);
    signs[i] = -1;
    signs[half + i] = 1;
  }
  const positions = g.op1('Range', [g.const([0], [], 'int64'), seqLen, g.const([1], [], 'int64')], {}, { dtypes: ['int64'] });
  const column = g.op1('Unsqueeze', [g.op1('Cast', [positions], { to: 11 }, { dtypes: ['float64'] }), g.ints([1, 2])]);
  const angles = g.op1('Mul', [column, g.const(invFreq, [1, 1, headDim], 'float64', 'inv_freq')]);
  const narrow = (v: Value): Value => (dtype === 'float64' ? v : g.op1('Cast', [v], { to: 1 }, { dtypes: ['float32'] }));
  return {
    cos: narrow(g.op1('Cos', [angles])),
    signedSin: g.op1('Mul', [narrow(g.op1('Sin', [angles])), g.const(signs, [headDim], dtype, 'rope_signs')]),
  };
}
