import { describe, expect, it } from 'vitest';
import { acrossSeeds, binomialUpperTail, holm, mcnemarExact, signTest } from '../../../core/metrics/exact-tests.ts';
import { LudusError } from '../../../core/errors.ts';

const refused = (call: () => unknown) => expect(call).toThrow(LudusError);

describe('signTest', () => {
  it('should give (1/2)^3 = 0.125 when 3 of 100 problems differ, all one way (TRL at pass@8 against GRPO)', () => {
    const trl = Array.from({ length: 100 }, (_, i) => (i < 91 ? 1 : 0));
    const grpo = Array.from({ length: 100 }, (_, i) => (i < 88 ? 1 : 0));
    expect(signTest(trl, grpo, 'greater')).toEqual({ wins: 3, losses: 0, p: 0.125 });
    expect(signTest(trl, grpo, 'less').p).toBe(1);
  });

  it('should sum the binomial tail exactly: 8 wins, 2 losses, ties dropped: (45 + 10 + 1) / 1024', () => {
    const a = [1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0.5, 0.5];
    const b = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0.5, 0.5];
    const result = signTest(a, b, 'greater');
    expect(result.wins).toBe(8);
    expect(result.losses).toBe(2);
    expect(result.p).toBeCloseTo(56 / 1024, 15);
  });

  it('should give p = 1 when no pair differs', () => {
    expect(signTest([1, 0], [1, 0], 'greater')).toEqual({ wins: 0, losses: 0, p: 1 });
  });

  it('should refuse sides of different lengths', () => {
    refused(() => signTest([1], [1, 0], 'greater'));
  });
});

describe('binomialUpperTail', () => {
  it('should match hand-computed tails of Binomial(n, 1/2)', () => {
    expect(binomialUpperTail(5, 5)).toBeCloseTo(1 / 32, 15);
    expect(binomialUpperTail(6, 4)).toBeCloseTo((15 + 6 + 1) / 64, 15);
    expect(binomialUpperTail(4, 0)).toBe(1);
    expect(binomialUpperTail(4, 5)).toBe(0);
  });
});

describe('mcnemarExact', () => {
  it('should double the upper tail of the larger discordant count: 8 against 2 gives 2 · 56/1024', () => {
    expect(mcnemarExact(8, 2)).toBeCloseTo(112 / 1024, 15);
    expect(mcnemarExact(2, 8)).toBeCloseTo(112 / 1024, 15);
    expect(mcnemarExact(5, 0)).toBeCloseTo(2 / 32, 15);
  });

  it('should give 1 on balanced discordance and never exceed 1', () => {
    expect(mcnemarExact(0, 0)).toBe(1);
    expect(mcnemarExact(3, 3)).toBe(1);
    expect(mcnemarExact(1, 0)).toBe(1);
  });
});

describe('holm', () => {
  it('should multiply the i-th smallest of m by m − i, keep the adjusted values monotone, and return them in input order', () => {
    // Sorted: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 → raised to 0.06.
    const adjusted = holm([0.01, 0.04, 0.03, 0.005]);
    [0.03, 0.06, 0.06, 0.02].forEach((expected, i) => expect(adjusted[i]).toBeCloseTo(expected, 15));
  });

  it('should cap adjusted values at 1 and leave a family of one as it is', () => {
    expect(holm([0.5, 0.9])).toEqual([1, 1]);
    expect(holm([0.042])).toEqual([0.042]);
    expect(holm([])).toEqual([]);
  });

  it('should refuse a value outside [0, 1]', () => {
    refused(() => holm([0.2, 1.5]));
  });
});

describe('acrossSeeds', () => {
  it('should give the mean and sd/√n with the sample sd', () => {
    const summary = acrossSeeds([0.5, 0.6, 0.7]);
    expect(summary.n).toBe(3);
    expect(summary.mean).toBeCloseTo(0.6, 15);
    expect(summary.se).toBeCloseTo(0.1 / Math.sqrt(3), 15);
  });

  it('should give no SE for one seed', () => {
    expect(acrossSeeds([0.4])).toEqual({ n: 1, mean: 0.4, se: null });
  });
});
