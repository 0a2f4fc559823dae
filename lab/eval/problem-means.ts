import { bootstrapMean } from '../../core/metrics/bootstrap.ts';
import type { Estimate } from './report-types.ts';

/** Per benchmark, per problem: the mean of `f` over that problem's rollouts (0 for a problem without rollouts). */
export function perProblemMeans<T>(rollouts: readonly (readonly (readonly T[])[])[], f: (rollout: T) => number): number[][] {
  return rollouts.map((problems) => problems.map((rs) => (rs.length === 0 ? 0 : rs.reduce((a, r) => a + f(r), 0) / rs.length)));
}

export interface ProblemMeanEstimates {
  /** Per benchmark: the mean of its per-problem values, SE from resampling its problems. */
  per_benchmark: Estimate[];
  /** Unweighted mean over benchmarks, SE stratified by benchmark; with one benchmark, that benchmark's estimate. */
  macro: Estimate;
}

/**
 * Bootstrap estimates of a per-rollout rate (answer present, handoffs, senior share) from its per-problem means,
 * one array per benchmark, the way pass@k and legibility are estimated: problems are the resampled unit.
 * `seed(b)` seeds benchmark b's bootstrap, `seed(-1)` the macro's.
 */
export function problemMeanEstimates(strata: readonly (readonly number[])[], resamples: number, seed: (benchmark: number) => number): ProblemMeanEstimates {
  const per_benchmark = strata.map((values, b) => bootstrapMean([values], { resamples, seed: seed(b) }));
  return { per_benchmark, macro: strata.length === 1 ? per_benchmark[0] : bootstrapMean(strata, { resamples, seed: seed(-1) }) };
}
