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
