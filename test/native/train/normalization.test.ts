import { describe, expect, it } from 'vitest';
import { lossWeights } from '../../../native/train/normalization.ts';

// Two rows of 4 positions: 3 trained tokens, then 1.
const mask = [1, 1, 1, 0, 0, 1, 0, 0];

describe('loss weights', () => {
  it('token-mean: every trained token of the batch weighs 1 / Σ mask', () => {
    expect(Array.from(lossWeights(mask, 2, 4, 'token-mean'))).toEqual(mask.map((m) => m / 4));
  });

  it('sequence-mean: 1 / (len_i · B), so each sequence weighs the same', () => {
    const w = lossWeights(mask, 2, 4, 'sequence-mean');
    expect(Array.from(w)).toEqual([1 / 6, 1 / 6, 1 / 6, 0, 0, 1 / 2, 0, 0].map(Math.fround));
  });

  it('constant: 1 / (C · B) whatever the lengths (Dr. GRPO)', () => {
    expect(Array.from(lossWeights(mask, 2, 4, 'constant', 10))).toEqual(mask.map((m) => Math.fround(m / 20)));
  });

  it('an all-zero mask is an input error, not a silent zero loss', () => {
    expect(() => lossWeights([0, 0], 1, 2, 'token-mean')).toThrow(/INPUT_INVALID/);
  });
});
