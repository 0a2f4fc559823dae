import { describe, expect, it } from 'vitest';
import { bootstrapMean } from '../../../core/metrics/bootstrap.ts';
import { perProblemMeans, problemMeanEstimates } from '../../../lab/eval/problem-means.ts';

describe('perProblemMeans', () => {
  it('should average a per-rollout value over each problem’s rollouts, per benchmark', () => {
    expect(perProblemMeans([[[1, 2, 3], [4]], [[0, 0]]], (x) => x)).toEqual([[2, 4], [0]]);
  });
});

describe('problemMeanEstimates', () => {
  // Benchmark a: per-problem rates 1 and 0. Exact bootstrap SE of a mean = sqrt(plug-in variance / n):
  // sqrt(0.25 / 2) = sqrt(1/8) (resampled means 0, 1/2, 1 w.p. 1/4, 1/2, 1/4). Benchmark b: 0, 0.5, 1, SE sqrt((1/6) / 3) = sqrt(1/18).
  const strata = [[1, 0], [0, 0.5, 1]];
  const seeds = (b: number) => 100 + b;
  const est = problemMeanEstimates(strata, 10_000, seeds);

  it('should give each benchmark its mean with the exact bootstrap SE, up to Monte Carlo error', () => {
    expect(est.per_benchmark.map((e) => e.value)).toEqual([0.5, 0.5]);
    // Monte Carlo error of an SD from 10,000 resamples: about SE / sqrt(20,000), under 0.003 here.
    expect(Math.abs(est.per_benchmark[0].se - Math.sqrt(1 / 8))).toBeLessThan(0.01);
    expect(Math.abs(est.per_benchmark[1].se - Math.sqrt(1 / 18))).toBeLessThan(0.01);
  });

  it('should stratify the macro: SE = sqrt(SE_a² + SE_b²) / 2 for the mean of two independent benchmark means', () => {
    expect(est.macro.value).toBe(0.5);
    expect(Math.abs(est.macro.se - Math.sqrt(1 / 8 + 1 / 18) / 2)).toBeLessThan(0.01);
  });

  it('should seed benchmark b with seed(b) and the macro with seed(-1), and take one benchmark’s estimate as its macro', () => {
    expect(est.per_benchmark[1]).toEqual(bootstrapMean([strata[1]], { resamples: 10_000, seed: 101 }));
    expect(est.macro).toEqual(bootstrapMean(strata, { resamples: 10_000, seed: 99 }));
    const one = problemMeanEstimates([strata[0]], 500, seeds);
    expect(one.macro).toBe(one.per_benchmark[0]);
  });
});
