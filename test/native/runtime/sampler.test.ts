import { describe, expect, it } from 'vitest';
import { Rng } from '../../../core/rng.ts';
import { LOGPROB_FLOOR, Sampler } from '../../../native/runtime/sampler.ts';

const probs = Float32Array.from([0.5, 0.25, 0.125, 0.0625, 0.0625]);
const draw = (params: { temperature: number; topK: number; topP: number }, n = 20000, seed = 3) => {
  const sampler = new Sampler(probs.length);
  const rng = new Rng(seed);
  const counts = new Array(probs.length).fill(0);
  for (let i = 0; i < n; i++) counts[sampler.sample(probs, 0, params, rng).token] += 1;
  return counts.map((c) => c / n);
};

describe('Sampler', () => {
  describe('having no truncation', () => {
    it('should draw tokens at their probabilities', () => {
      const freq = draw({ temperature: 1, topK: 0, topP: 1 });
      for (let i = 0; i < probs.length; i++) expect(freq[i]).toBeCloseTo(probs[i], 1);
    });

    it('should report the log-probability of the drawn token', () => {
      const sample = new Sampler(5).sample(probs, 0, { temperature: 1, topK: 0, topP: 1 }, new Rng(1));
      expect(sample.logprob).toBeCloseTo(Math.log(probs[sample.token]), 6);
    });
  });

  describe('having top-k 2', () => {
    it('should draw only the two likeliest tokens, renormalized, while reporting untruncated log-probabilities', () => {
      const freq = draw({ temperature: 1, topK: 2, topP: 1 });
      expect(freq[0]).toBeCloseTo(2 / 3, 1);
      expect(freq[1]).toBeCloseTo(1 / 3, 1);
      expect(freq[2] + freq[3] + freq[4]).toBe(0);
    });
  });

  describe('having top-p 0.7', () => {
    it('should keep the smallest head of mass at least 0.7', () => {
      const freq = draw({ temperature: 1, topK: 0, topP: 0.7 });
      expect(freq[2] + freq[3] + freq[4]).toBe(0);
      expect(freq[0]).toBeGreaterThan(0.6);
    });
  });

  describe('having temperature 0', () => {
    it('should take the argmax', () => {
      const flipped = Float32Array.from([0.1, 0.2, 0.6, 0.1]);
      expect(new Sampler(4).sample(flipped, 0, { temperature: 0, topK: 0, topP: 1 }, new Rng(1)).token).toBe(2);
    });
  });

  describe('having rows laid out one after another', () => {
    it('should read the row it is asked for', () => {
      const two = Float32Array.from([1, 0, 0, 0, 0, 1]);
      expect(new Sampler(3).sample(two, 1, { temperature: 1, topK: 0, topP: 1 }, new Rng(1)).token).toBe(2);
    });
  });

  describe('having the same seed twice', () => {
    it('should draw the same tokens', () => {
      expect(draw({ temperature: 1, topK: 0, topP: 1 }, 200, 9)).toEqual(draw({ temperature: 1, topK: 0, topP: 1 }, 200, 9));
    });
  });

  it('should floor the log-probability of an underflowed probability at the smallest float32', () => {
    expect(LOGPROB_FLOOR).toBeCloseTo(-103.28, 1);
  });
});
