import { describe, expect, it } from 'vitest';
import { BOOTSTRAP_DEFAULT_RESAMPLES, bootstrap, bootstrapEach, bootstrapMean } from '../../../core/metrics/bootstrap.ts';
import { LudusError } from '../../../core/errors.ts';

describe('bootstrapMean', () => {
  it('should default to the paper’s 10,000 resamples', () => {
    expect(BOOTSTRAP_DEFAULT_RESAMPLES).toBe(10_000);
  });

  it('should give zero SE on constant data and the observed mean as value', () => {
    const r = bootstrapMean([[0.25, 0.25, 0.25, 0.25]], { seed: 1 });
    expect(r.value).toBe(0.25);
    expect(r.se).toBe(0);
  });

  it('should match the exact bootstrap SE of two problems scoring 0 and 1: means 0, 1/2, 1 w.p. 1/4, 1/2, 1/4, so SE = sqrt(1/8)', () => {
    const r = bootstrapMean([[0, 1]], { seed: 3 });
    expect(r.value).toBe(0.5);
    // Monte Carlo error of an SD from 10,000 draws is about sqrt(1/8)/sqrt(2 * 10,000) = 0.0025.
    expect(Math.abs(r.se - Math.sqrt(1 / 8))).toBeLessThan(0.01);
  });

  it('should approach the plug-in SE sqrt(mean((x - x̄)^2) / n) of the mean on 1..10: sqrt(8.25 / 10)', () => {
    const r = bootstrapMean([[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]], { seed: 5 });
    expect(r.value).toBe(5.5);
    expect(Math.abs(r.se - Math.sqrt(0.825))).toBeLessThan(0.025);
  });

  it('should stratify a macro average: a constant benchmark adds no variance, the other contributes half its SE', () => {
    const r = bootstrapMean([[0.5, 0.5, 0.5], [0, 1]], { seed: 7 });
    expect(r.value).toBeCloseTo((0.5 + 0.5) / 2, 14);
    expect(Math.abs(r.se - Math.sqrt(1 / 8) / 2)).toBeLessThan(0.006);
  });

  it('should replay exactly under one seed and differ under another', () => {
    const data = [[0, 1, 1, 0, 1, 0.5, 0.25]];
    expect(bootstrapMean(data, { seed: 9, resamples: 500 })).toEqual(bootstrapMean(data, { seed: 9, resamples: 500 }));
    expect(bootstrapMean(data, { seed: 9, resamples: 500 }).se).not.toBe(bootstrapMean(data, { seed: 10, resamples: 500 }).se);
  });
});

describe('bootstrap', () => {
  it('should resample within each stratum, keeping its size, and pass the identity first', () => {
    const seen: number[][] = [];
    bootstrap(
      [3, 5],
      (indices) => {
        seen.push(indices.map((idx) => idx.length));
        for (const [s, idx] of indices.entries()) for (const i of idx) expect(i).toBeLessThan([3, 5][s]);
        return 0;
      },
      { seed: 1, resamples: 20 },
    );
    expect(seen).toHaveLength(21);
    expect(seen.every(([a, b]) => a === 3 && b === 5)).toBe(true);
  });

  it('should refuse an empty stratum or fewer than 2 resamples', () => {
    expect(() => bootstrap([0], () => 0, { seed: 1 })).toThrow(LudusError);
    expect(() => bootstrap([2], () => 0, { seed: 1, resamples: 1 })).toThrow(LudusError);
  });

  it('should give, per component of a vector statistic, exactly the scalar bootstrap of that component under one seed', () => {
    const data = [[0, 1, 1, 0.5], [3, 1, 4]];
    const stats = [(idx: readonly Int32Array[]) => data[0][idx[0][0]] + data[1][idx[1][2]], (idx: readonly Int32Array[]) => Math.max(...Array.from(idx[1], (i) => data[1][i]))];
    const each = bootstrapEach([4, 3], (idx) => stats.map((f) => f(idx)), { seed: 4, resamples: 300 });
    expect(each).toEqual(stats.map((f) => bootstrap([4, 3], f, { seed: 4, resamples: 300 })));
    expect(each[0].se).toBeGreaterThan(0);
  });

  it('should refuse a vector statistic whose length changes between resamples', () => {
    let calls = 0;
    expect(() => bootstrapEach([2], () => (calls++ === 0 ? [1, 2] : [1]), { seed: 1, resamples: 2 })).toThrow(LudusError);
  });
});
