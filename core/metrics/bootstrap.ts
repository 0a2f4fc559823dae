import { fail } from '../errors.ts';
import { Rng } from '../rng.ts';

/** The tandem paper's resample count (§4.1, Table 1). */
export const BOOTSTRAP_DEFAULT_RESAMPLES = 10_000;

export interface BootstrapOptions {
  /** Resamples drawn (10,000 in the paper). */
  resamples?: number;
  seed: number;
  /** Leave resamples on which a component is NaN (undefined there) out of that component's SE. */
  skipUndefined?: boolean;
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
  return bootstrapEach(sizes, (indices) => [statistic(indices)], options)[0];
}

/**
 * `bootstrap` of a vector-valued statistic (e.g. every point of a curve): each resample is drawn once and the whole
 * vector computed on it, giving one estimate per component. `statistic` must return the same length every time.
 * A one-component statistic gives exactly `bootstrap`'s estimate under the same seed.
 */
export function bootstrapEach(sizes: readonly number[], statistic: (indices: readonly Int32Array[]) => ArrayLike<number>, options: BootstrapOptions): BootstrapEstimate[] {
  const resamples = options.resamples ?? BOOTSTRAP_DEFAULT_RESAMPLES;
  if (sizes.length === 0 || sizes.some((n) => !Number.isInteger(n) || n < 1)) fail('INPUT_INVALID', `bootstrap needs at least one stratum, each of at least one problem (got sizes ${JSON.stringify(sizes)})`);
  if (!Number.isInteger(resamples) || resamples < 2) fail('INPUT_INVALID', `bootstrap needs at least 2 resamples (got ${resamples})`);
  const value = Array.from(statistic(sizes.map((n) => Int32Array.from({ length: n }, (_, i) => i))));
  const rng = new Rng(options.seed);
  const indices = sizes.map((n) => new Int32Array(n));
  const mean = new Float64Array(value.length);
  const m2 = new Float64Array(value.length);
  const counted = new Float64Array(value.length);
  for (let r = 0; r < resamples; r++) {
    for (const [s, n] of sizes.entries()) for (let i = 0; i < n; i++) indices[s][i] = rng.int(n);
    const x = statistic(indices);
    if (x.length !== value.length) fail('INPUT_INVALID', `bootstrap statistic returned ${x.length} components on a resample, ${value.length} on the data`);
    for (let j = 0; j < x.length; j++) {
      // A ratio can be undefined (NaN) on a resample, e.g. an F1 drawn without positives: it is left out of that SE.
      if (options.skipUndefined && Number.isNaN(x[j])) continue;
      // Welford: numerically stable running variance.
      counted[j]++;
      const delta = x[j] - mean[j];
      mean[j] += delta / counted[j];
      m2[j] += delta * (x[j] - mean[j]);
    }
  }
  return value.map((v, j) => ({ value: v, se: Math.sqrt(m2[j] / (counted[j] - 1)) }));
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
