import { describe, expect, it } from 'vitest';
import { pairedTTest, studentTCdf } from '../../../core/metrics/t-test.ts';
import { LudusError } from '../../../core/errors.ts';

// Closed forms of Student's t CDF for small df (x = t / sqrt(df + t^2)), independent of jstat:
//   df = 1: 1/2 + atan(t)/π;  df = 2: 1/2 + x/2;  df = 4: 1/2 + (x/2)(1 + (1 - x^2)/2).
const cdf1 = (t: number) => 0.5 + Math.atan(t) / Math.PI;
const cdf2 = (t: number) => 0.5 + t / Math.sqrt(2 + t * t) / 2;
const cdf4 = (t: number) => {
  const x = t / Math.sqrt(4 + t * t);
  return 0.5 + (x / 2) * (1 + (1 - x * x) / 2);
};

describe('studentTCdf', () => {
  it('should match the closed forms for 1, 2 and 4 degrees of freedom', () => {
    for (const t of [-3, -0.7, 0, 0.4, 1.5, 4.2]) {
      expect(studentTCdf(t, 1)).toBeCloseTo(cdf1(t), 8);
      expect(studentTCdf(t, 2)).toBeCloseTo(cdf2(t), 8);
      expect(studentTCdf(t, 4)).toBeCloseTo(cdf4(t), 8);
    }
  });

  it('should reproduce printed t-table critical values for 10 degrees of freedom', () => {
    expect(studentTCdf(1.812, 10)).toBeCloseTo(0.95, 3);
    expect(studentTCdf(2.228, 10)).toBeCloseTo(0.975, 3);
    expect(studentTCdf(3.169, 10)).toBeCloseTo(0.995, 3);
  });
});

describe('pairedTTest', () => {
  it('should test differences 1..5 (mean 3, sd sqrt(2.5)): t = 3/sqrt(0.5), df 4, one-sided p from the df-4 closed form', () => {
    const r = pairedTTest([2, 4, 6, 8, 10], [1, 2, 3, 4, 5], 'greater');
    expect(r.n).toBe(5);
    expect(r.df).toBe(4);
    expect(r.mean_diff).toBeCloseTo(3, 14);
    expect(r.statistic!).toBeCloseTo(3 / Math.sqrt(0.5), 12);
    expect(r.p).toBeCloseTo(1 - cdf4(3 / Math.sqrt(0.5)), 8);
    expect(r.p).toBeCloseTo(0.006618, 5);
  });

  it('should give the complementary p for the other direction', () => {
    const greater = pairedTTest([2, 4, 6, 8, 10], [1, 2, 3, 4, 5], 'greater');
    const less = pairedTTest([2, 4, 6, 8, 10], [1, 2, 3, 4, 5], 'less');
    expect(less.p).toBeCloseTo(1 - greater.p, 10);
  });

  it('should match the df-1 and df-2 closed forms', () => {
    // differences [1, 3]: mean 2, sd sqrt(2), t = 2; differences [1, 2, 6]: mean 3, var 7, t = 3/sqrt(7/3).
    expect(pairedTTest([1, 3], [0, 0], 'greater').p).toBeCloseTo(1 - cdf1(2), 8);
    const t2 = 3 / Math.sqrt(7 / 3);
    const r = pairedTTest([0, 0, 0], [1, 2, 6], 'less');
    expect(r.statistic!).toBeCloseTo(-t2, 12);
    expect(r.p).toBeCloseTo(1 - cdf2(t2), 8);
  });

  it('should keep tiny p-values that 1 - CDF would round to zero', () => {
    // df = 1, t near 1e12: the upper tail is atan(1/t)/π ≈ 3.2e-13, far below what 1 - CDF resolves.
    const r = pairedTTest([1, 1 + 2e-12], [0, 0], 'greater');
    expect(r.statistic!).toBeGreaterThan(1e11);
    expect(r.p / (Math.atan(1 / r.statistic!) / Math.PI)).toBeCloseTo(1, 6);
  });

  it('should report zero variance as an undefined statistic with p 0 in the claimed direction and 1 against it', () => {
    expect(pairedTTest([2, 3, 4], [1, 2, 3], 'greater')).toEqual({ n: 3, mean_diff: 1, statistic: null, df: 2, p: 0 });
    expect(pairedTTest([2, 3, 4], [1, 2, 3], 'less').p).toBe(1);
    expect(pairedTTest([1, 1], [1, 1], 'greater').p).toBe(1);
  });

  it('should refuse unpaired or too few values', () => {
    expect(() => pairedTTest([1, 2], [1], 'greater')).toThrow(LudusError);
    expect(() => pairedTTest([1], [1], 'greater')).toThrow(LudusError);
  });
});
