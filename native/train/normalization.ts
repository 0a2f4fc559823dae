import { fail } from '../../core/errors.ts';

/**
 * How per-token losses are averaged into one loss:
 * - `token-mean`: every unmasked token of the batch weighs the same, mask / Σ mask (GRPO as in DAPO);
 * - `sequence-mean`: mean over each sequence's tokens, then over sequences, mask / (len_i · B);
 * - `constant`: divide by a fixed token budget, mask / (C · B) (Dr. GRPO).
 */
export type Normalization = 'token-mean' | 'sequence-mean' | 'constant';

/** The per-token loss weights [rows · cols] for a whole batch (before any split into micro-batches). */
export function lossWeights(mask: ArrayLike<number>, rows: number, cols: number, normalization: Normalization, constantTokens = cols): Float32Array {
  const weights = new Float32Array(rows * cols);
  const total = sum(mask, 0, rows * cols);
  if (total === 0) fail('INPUT_INVALID', 'loss mask selects no token: nothing to learn from');
  for (let r = 0; r < rows; r++) {
    const start = r * cols;
    const length = sum(mask, start, start + cols);
    const denominator = normalization === 'token-mean' ? total : normalization === 'sequence-mean' ? length * rows : constantTokens * rows;
    if (denominator === 0) continue;
    for (let t = start; t < start + cols; t++) weights[t] = mask[t] / denominator;
  }
  return weights;
}

function sum(values: ArrayLike<number>, from: number, to: number): number {
  let s = 0;
  for (let i = from; i < to; i++) s += values[i];
  return s;
}
