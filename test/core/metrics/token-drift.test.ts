import { describe, expect, it } from 'vitest';
import { averageRanks, spearman } from '../../../core/metrics/spearman.ts';
import {
  displacedTokens,
  distributionFromCounts,
  klDivergence,
  logRatio,
  overEmitted,
  overlap,
  overlapOfLogs,
  survivalCurve,
  thresholdGrid,
  tokenCounts,
} from '../../../core/metrics/token-drift.ts';

describe('token distributions', () => {
  it('should count tokens, skipping stop tokens, and smooth additively', () => {
    const counts = tokenCounts([[1, 1, 0, 2], [1, 0]], 3, [2]);
    expect(Array.from(counts)).toEqual([2, 3, 0]);
    expect(Array.from(distributionFromCounts([3, 1, 0], 1))).toEqual([4 / 7, 2 / 7, 1 / 7]);
    expect(Array.from(distributionFromCounts([3, 1, 0], 0))).toEqual([0.75, 0.25, 0]);
  });

  it('should give KL([.5,.5] || [.25,.75]) = .5 ln 2 + .5 ln(2/3) and overlap .75', () => {
    expect(klDivergence([0.5, 0.5], [0.25, 0.75])).toBeCloseTo(0.5 * Math.log(2) + 0.5 * Math.log(2 / 3), 14);
    expect(klDivergence([0.5, 0.5], [0.25, 0.75])).toBeCloseTo(0.143841, 6);
    expect(overlap([0.5, 0.5], [0.25, 0.75])).toBeCloseTo(0.75, 14);
    expect(overlapOfLogs([9, Math.log(0.5), Math.log(0.5)], [9, Math.log(0.25), Math.log(0.75)], 1, 2)).toBeCloseTo(0.75, 14);
  });

  it('should treat KL terms with p = 0 as 0, be 0 for identical distributions and infinite where q misses mass p has', () => {
    expect(klDivergence([0, 1], [0.5, 0.5])).toBeCloseTo(Math.log(2), 14);
    expect(klDivergence([0.2, 0.8], [0.2, 0.8])).toBe(0);
    expect(klDivergence([0.5, 0.5], [1, 0])).toBe(Number.POSITIVE_INFINITY);
    expect(overlap([1, 0], [0, 1])).toBe(0);
  });

  it('should sign the log-ratio positive where p over-uses a token', () => {
    const r = Array.from(logRatio([0.5, 0.5], [0.25, 0.75]));
    expect(r[0]).toBeCloseTo(Math.log(2), 14);
    expect(r[1]).toBeCloseTo(Math.log(2 / 3), 14);
  });
});

describe('survivalCurve', () => {
  it('should give the share of |x| strictly above each threshold', () => {
    const curve = survivalCurve([-2, 0.5, 1, -3], [0, 0.5, 1, 2.5, 3]);
    expect(curve.map((p) => p.fraction)).toEqual([1, 0.75, 0.5, 0.25, 0]);
    expect(thresholdGrid(2, 5)).toEqual([0, 0.5, 1, 1.5, 2]);
  });
});

describe('spearman', () => {
  it('should rank ties by their average rank', () => {
    expect(averageRanks([5, 6, 7, 8, 7])).toEqual([1, 2, 3.5, 5, 3.5]);
  });

  it('should give rho = 8 / sqrt(95) on a hand-ranked case, with the df-3 closed-form two-sided p', () => {
    const r = spearman([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]);
    const rho = 8 / Math.sqrt(95);
    expect(r.rho).toBeCloseTo(rho, 14);
    const t = rho * Math.sqrt(3 / (1 - rho * rho));
    const theta = Math.atan(t / Math.sqrt(3));
    // df = 3: P(T <= t) = 1/2 + (θ + sin θ cos θ)/π.
    expect(r.p).toBeCloseTo(2 * (0.5 - (theta + Math.sin(theta) * Math.cos(theta)) / Math.PI), 8);
  });

  it('should be -1 for a reversed order and NaN for a constant side', () => {
    expect(spearman([1, 2, 3, 4], [40, 30, 20, 10]).rho).toBe(-1);
    expect(spearman([1, 2, 3], [1, 1, 1]).rho).toBeNaN();
  });
});

describe('displacedTokens', () => {
  // Junior uniform over 5 tokens; the reference moves token 0 up 2.5x, tokens 1, 3, 4 down to half, token 2 not at all.
  const pJun = [0.2, 0.2, 0.2, 0.2, 0.2];
  const pRef = [0.5, 0.1, 0.2, 0.1, 0.1];
  // Relative to the reference the model goes down on 0 (back), up on 1 (back), down on 3 (further out).
  const pModel = [0.3, 0.2, 0.4, 0.05, 0.05];

  it('should by default take the tokens of highest signed log(p_ref / p_jun), as the paper\'s footnote 4 ranks them', () => {
    // Signed: token 0 (+log 2.5), token 2 (0), then the halved tokens 1, 3, 4 (−log 2) in id order.
    const r = displacedTokens(pModel, pRef, pJun, 3);
    expect(r.ids).toEqual([0, 2, 1]);
    expect(r.displacement[1]).toBe(0);
    expect(r.displacement[2]).toBeCloseTo(-Math.log(2), 14);
  });

  it('should with the absolute ranking take the tokens of largest |log(p_ref / p_jun)| (ties by id) and count those the model moves the opposite way', () => {
    const r = displacedTokens(pModel, pRef, pJun, 3, undefined, 'absolute');
    expect(r.ids).toEqual([0, 1, 3]);
    expect(r.displacement[0]).toBeCloseTo(Math.log(2.5), 14);
    expect(r.shift[1]).toBeCloseTo(Math.log(2), 14);
    expect(r.shiftBackShare).toBeCloseTo(2 / 3, 14);
  });

  it('should give shift-back share 1 and rho -1 when the model exactly undoes the reference', () => {
    const ref = [0.4, 0.3, 0.15, 0.1, 0.05];
    const r = displacedTokens(pJun, ref, pJun, 5, undefined, 'absolute');
    expect(r.shiftBackShare).toBe(1);
    expect(r.spearman.rho).toBeCloseTo(-1, 12);
  });
});

describe('overEmitted', () => {
  it('should list only positive log-ratios, largest first, at most `top`', () => {
    const r = overEmitted([0.5, 0.1, 0.3, 0.1], [0.25, 0.25, 0.1, 0.4], 5);
    expect(r.map((t) => t.id)).toEqual([2, 0]);
    expect(r[0].logRatio).toBeCloseTo(Math.log(3), 14);
    expect(overEmitted([0.5, 0.1, 0.3, 0.1], [0.25, 0.25, 0.1, 0.4], 1)).toHaveLength(1);
  });
});
