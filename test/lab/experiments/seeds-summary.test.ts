import { describe, expect, it } from 'vitest';
import { seedComparisons, seedVerdict, type Headline } from '../../../lab/experiments/seeds-summary.ts';

/** One seed's headline: a claim and a secondary comparison over four problems with the given 0/1 outcomes. */
const headline = (claimModel: number[], claimOther: number[], untested: string[] = []): Headline => ({
  metrics: [],
  comparisons: [
    { model: 'A', other: 'B', metric: 'pass@1', perProblem: claimModel.map((m, i) => ({ id: `p${i}`, model: m, other: claimOther[i] })) },
    { model: 'A', other: 'C', metric: 'pass@1', secondary: true, perProblem: claimModel.map((m, i) => ({ id: `p${i}`, model: m, other: 0 })) },
  ],
  untested,
});

describe('seedComparisons', () => {
  describe('having three seeds in which A beats B by +0.25, +0.25 and −0.25 on four problems', () => {
    const headlines = [headline([1, 1, 0, 0], [0, 1, 0, 0], ['X > Y']), headline([1, 0, 1, 0], [0, 0, 1, 0], ['X > Y']), headline([0, 0, 0, 0], [1, 0, 0, 0], ['X > Y'])];
    const [claim, secondary] = seedComparisons([0, 1, 2], headlines);

    it("should test the seeds' mean differences across seeds: t = 0.5 on 2 df, p = (1 − 0.5/√2.25)/2 = 1/3", () => {
      expect(claim.perSeed.map((s) => s.diff)).toEqual([0.25, 0.25, -0.25]);
      expect(claim.seedsHigher).toBe(2);
      // Mean 1/12, sample variance 1/12, SE 1/6: t = 1/2; with df = 2, P(T > t) = (1 − t/√(t² + 2))/2.
      expect(claim.test!.statistic).toBeCloseTo(0.5, 12);
      expect(claim.test!.p).toBeCloseTo(1 / 3, 12);
      expect(claim.test!.sign).toEqual({ wins: 2, losses: 1, p: 0.5 });
    });

    it("should Holm-correct the claim over the claims' family, its untested member at p = 1, and the secondary comparison apart", () => {
      expect(claim.claim).toBe(true);
      expect(claim.test!.family).toBe(2);
      expect(claim.test!.p_holm).toBeCloseTo(Math.min(1, 2 * claim.test!.p), 12);
      expect(secondary.claim).toBe(false);
      expect(secondary.test!.family).toBe(1);
      expect(secondary.pooled.family).toBe(2);
    });

    it('should keep the pooled per-problem test beside it, on each problem averaged over the seeds', () => {
      // Problem means A: 2/3, 1/3, 1/3, 0; B: 1/3, 1/3, 1/3, 0: one problem higher, none lower.
      expect(claim.pooled.n).toBe(4);
      expect(claim.pooled.sign).toEqual({ wins: 1, losses: 0, p: 0.5 });
    });

    it('should word a row that is not significant with the seeds that went its way', () => {
      expect(seedVerdict(claim)).toBe('not significant; consistent in 2 of 3 seeds');
    });
  });

  it('should call a comparison significant only when its Holm-adjusted seed-level p is below 0.05', () => {
    const up = (k: number) => headline([1, 1, 1, k % 2], [0, 0, 0, 0]);
    const [claim] = seedComparisons([0, 1, 2, 3, 4], [up(0), up(1), up(2), up(3), up(4)]);
    expect(claim.test!.p_holm).toBeLessThan(0.05);
    expect(seedVerdict(claim)).toBe('significant');
  });
});
