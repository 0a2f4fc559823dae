import { describe, expect, it } from 'vitest';
import { PAPER_KS, meanPassAtK, paperKs, passAtK, powersOfTwoUpTo } from '../../../core/metrics/pass-at-k.ts';

const choose = (n: number, k: number): number => {
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
};

describe('passAtK', () => {
  it('should equal the closed form 1 - C(n-c,k)/C(n,k)', () => {
    for (const [n, c, k] of [[10, 3, 1], [10, 3, 2], [10, 3, 5], [16, 1, 8], [32, 7, 16], [5, 0, 3]]) {
      expect(passAtK(n, c, k)).toBeCloseTo(1 - choose(n - c, k) / choose(n, k), 12);
    }
  });

  it('should be c/n for k = 1', () => {
    expect(passAtK(8, 3, 1)).toBeCloseTo(3 / 8, 12);
  });

  it('should be 1 once fewer than k samples are wrong', () => {
    expect(passAtK(4, 3, 2)).toBe(1);
  });

  it('should refuse k larger than n', () => {
    expect(() => passAtK(4, 1, 8)).toThrow(RangeError);
  });
});

describe('meanPassAtK', () => {
  it('should average over problems at k = 1, 2, 4, ... n', () => {
    expect(powersOfTwoUpTo(8)).toEqual([1, 2, 4, 8]);
    const result = meanPassAtK([0, 4, 8], 8);
    expect(Object.keys(result)).toEqual(['1', '2', '4', '8']);
    expect(result['1']).toBeCloseTo((0 + 0.5 + 1) / 3, 12);
    expect(result['8']).toBeCloseTo((0 + 1 + 1) / 3, 12);
  });
});

describe('paperKs', () => {
  it("should keep the paper's k in {1, 2, 4, 8, 16, 32} that n samples support", () => {
    expect(paperKs(64)).toEqual([1, 2, 4, 8, 16, 32]);
    expect(paperKs(20)).toEqual([1, 2, 4, 8, 16]);
    expect(paperKs(1)).toEqual([1]);
    expect(PAPER_KS).toEqual([1, 2, 4, 8, 16, 32]);
  });

  it('should give pass@2 of 2 right out of 5 as 1 - C(3,2)/C(5,2) = 0.7', () => {
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 14);
  });
});
