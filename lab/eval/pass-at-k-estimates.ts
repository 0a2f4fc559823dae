import { bootstrapMean } from '../../core/metrics/bootstrap.ts';
import { passAtK } from '../../core/metrics/pass-at-k.ts';
import { deriveSeed } from '../../core/rng.ts';
import type { PassAtK } from './report-types.ts';

export interface PassAtKEstimates {
  per_benchmark: PassAtK[];
  macro: PassAtK;
}

/**
 * pass@k with bootstrap SEs from correct counts (out of n) per problem, one array per benchmark: each benchmark's
 * value is the mean of its per-problem unbiased estimates; the macro is the unweighted mean over benchmarks, its
 * SE stratified by benchmark.
 */
export function passAtKEstimates(correctByBenchmark: readonly (readonly number[])[], n: number, ks: readonly number[], resamples: number, seed: number): PassAtKEstimates {
  const per_benchmark: PassAtK[] = correctByBenchmark.map(() => ({}));
  const macro: PassAtK = {};
  for (const k of ks) {
    const strata = correctByBenchmark.map((counts) => counts.map((c) => passAtK(n, c, k)));
    for (const [b, values] of strata.entries()) per_benchmark[b][String(k)] = bootstrapMean([values], { resamples, seed: deriveSeed(seed, k, b) });
    macro[String(k)] = strata.length === 1 ? per_benchmark[0][String(k)] : bootstrapMean(strata, { resamples, seed: deriveSeed(seed, k, -1) });
  }
  return { per_benchmark, macro };
}
