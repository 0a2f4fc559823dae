import { describe, expect, it } from 'vitest';
import { Rng } from '../../../core/rng.ts';
import { pfspProbabilities, pfspWeight, sampleIndex, smoothedWinRate } from '../../../core/tournament/pfsp.ts';

describe('PFSP (AlphaStar)', () => {
  describe('having win rates 0.2, 0.5 and 0.9', () => {
    const rates = [0.2, 0.5, 0.9];
    it('should weigh by (1 − x)² under hard: 0.64, 0.25, 0.01 over 0.90', () => {
      expect(rates.map((x) => pfspWeight('hard', x))).toEqual([0.64, 0.25, 0.01].map((w) => expect.closeTo(w, 12)));
      const p = pfspProbabilities('hard', rates);
      [0.64 / 0.9, 0.25 / 0.9, 0.01 / 0.9].forEach((expected, i) => expect(p[i]).toBeCloseTo(expected, 12));
    });
    it('should weigh by x(1 − x) under variance: 0.16, 0.25, 0.09 over 0.50', () => {
      const p = pfspProbabilities('variance', rates);
      [0.32, 0.5, 0.18].forEach((expected, i) => expect(p[i]).toBeCloseTo(expected, 12));
    });
    it('should take another exponent for hard: (1 − x)³', () => {
      const p = pfspProbabilities('hard', rates, 3);
      const w = [0.512, 0.125, 0.001];
      w.forEach((expected, i) => expect(p[i]).toBeCloseTo(expected / 0.638, 12));
    });
    it('should be uniform under uniform', () => {
      expect(pfspProbabilities('uniform', rates)).toEqual([1 / 3, 1 / 3, 1 / 3]);
    });
  });

  describe('having a learner that beats everyone', () => {
    it('should fall back to uniform when every hard weight is 0', () => {
      expect(pfspProbabilities('hard', [1, 1])).toEqual([0.5, 0.5]);
    });
  });

  describe('smoothedWinRate', () => {
    it('should count an opponent never met as even, and add one split game to a record', () => {
      expect(smoothedWinRate(0, 0)).toBe(0.5);
      expect(smoothedWinRate(3, 4)).toBeCloseTo(3.5 / 5, 12);
      expect(smoothedWinRate(3, 4, 0)).toBe(0.75);
    });
  });

  describe('sampling 20,000 opponents from a seeded stream', () => {
    it('should draw each as often as its probability, within 1.5 points', () => {
      const p = pfspProbabilities('hard', [0.2, 0.5, 0.9]);
      const rng = new Rng(7);
      const counts = [0, 0, 0];
      for (let i = 0; i < 20_000; i++) counts[sampleIndex(rng, p)] += 1;
      counts.forEach((count, i) => expect(Math.abs(count / 20_000 - p[i])).toBeLessThan(0.015));
    });
    it('should draw the same sequence from the same seed', () => {
      const p = [0.25, 0.25, 0.5];
      const draw = (seed: number) => {
        const rng = new Rng(seed);
        return Array.from({ length: 20 }, () => sampleIndex(rng, p));
      };
      expect(draw(3)).toEqual(draw(3));
    });
  });
});
