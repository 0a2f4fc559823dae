import { fail } from '../errors.ts';
import { Rng } from '../rng.ts';

/** The tandem paper's resample count (§4.1, Table 1). */
export const BOOTSTRAP_DEFAULT_RESAMPLES = 10_000;

export interface BootstrapOptions {
  /** Resamples drawn (10,000 in the paper). */
  resamples?: number;
  seed: number;
}

export interface BootstrapEstimate {
  /** The statistic on the data as observed. */
  value: number;
  /** Standard deviation of the statistic over the resamples (denominator resamples - 1). */
  se: number;
}

/**
 * Bootstrap over problems, stratified: stratum s holds `sizes[s]` problems (one stratum per benchmark), and every
 * resample draws `sizes[s]` problem indices with replacement within each stratum, so each benchmark keeps its size.
 * `statistic` receives, per stratum, the problem indices of one sample (the identity for the observed value) and
 * returns a number. One stratum is plain (unstratified) resampling. Deterministic in `seed`.
 */
export function bootstrap(sizes: readonly number[], statistic: (indices: readonly Int32Array[]) => number, options: BootstrapOptions): BootstrapEstimate {
  const resamples = options.resamples ?? BOOTSTRAP_DEFAULT_RESAMPLES;
  if (sizes.length === 0 || sizes.some((n) => !Number.isInteger(n) || n < 1)) fail('INPUT_INVALID', `bootstrap needs at least one stratum, each of at least one problem (got sizes ${JSON.stringify(sizes)})`);
  if (!Number.isInteger(resamples) || resamples < 2) fail('INPUT_INVALID', `bootstrap needs at least 2 resamples (got ${resamples})`);
  const value = statistic(sizes.map((n) => Int32Array.from({ length: n }, (_, i) => i)));
  const rng = new Rng(options.seed);
  const indices = sizes.map((n) => new Int32Array(n));
  let mean = 0;
  let m2 = 0;
  for (let r = 0; r < resamples; r++) {
    for (const [s, n] of sizes.entries()) for (let i = 0; i < n; i++) indices[s][i] = rng.int(n);
    const x = statistic(indices);
    // Welford: numerically stable running variance.
    const delta = x - mean;
    mean += delta / (r + 1);
    m2 += delta * (x - mean);
  }
  return { value, se: Math.sqrt(m2 / (resamples - 1)) };
}

/**
 * Mean of per-problem values with its bootstrap SE. Several strata (benchmarks): the macro average, the unweighted
 * mean of the per-benchmark means, resampled within each benchmark.
 */
export function bootstrapMean(strata: readonly (readonly number[])[], options: BootstrapOptions): BootstrapEstimate {
  return bootstrap(
    strata.map((values) => values.length),
    (indices) => {
      let total = 0;
      for (const [s, idx] of indices.entries()) {
        let sum = 0;
        for (let i = 0; i < idx.length; i++) sum += strata[s][idx[i]];
        total += sum / idx.length;
      }
      return total / indices.length;
    },
    options,
  );
}
