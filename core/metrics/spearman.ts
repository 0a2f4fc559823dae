import { fail } from '../errors.ts';
import { studentTCdf } from './t-test.ts';

/** Ranks 1..n, ties sharing the average of the ranks they span. */
export function averageRanks(values: readonly number[]): number[] {
  const order = values.map((_, i) => i).sort((i, j) => values[i] - values[j]);
  const ranks = new Array<number>(values.length);
  for (let start = 0; start < order.length; ) {
    let end = start + 1;
    while (end < order.length && values[order[end]] === values[order[start]]) end++;
    const rank = (start + 1 + end) / 2;
    for (let i = start; i < end; i++) ranks[order[i]] = rank;
    start = end;
  }
  return ranks;
}

export function pearson(x: readonly number[], y: readonly number[]): number {
  const n = x.length;
  const mx = x.reduce((a, v) => a + v, 0) / n;
  const my = y.reduce((a, v) => a + v, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) ** 2;
    syy += (y[i] - my) ** 2;
  }
  return sxx === 0 || syy === 0 ? Number.NaN : sxy / Math.sqrt(sxx * syy);
}

export interface SpearmanResult {
  /** Pearson correlation of the average ranks; NaN when either side is constant. */
  rho: number;
  /** Two-sided p-value by the t approximation t = rho sqrt((n-2)/(1-rho^2)), n-2 degrees of freedom; NaN when rho is. */
  p: number;
  n: number;
}

/** Spearman's rank correlation with ties by average rank (what scipy.stats.spearmanr computes). */
export function spearman(x: readonly number[], y: readonly number[]): SpearmanResult {
  if (x.length !== y.length) fail('INPUT_INVALID', `Spearman's rho needs paired values (got ${x.length} and ${y.length})`);
  const n = x.length;
  if (n < 3) fail('INPUT_INVALID', `Spearman's rho needs at least 3 pairs (got ${n})`);
  const rho = pearson(averageRanks(x), averageRanks(y));
  if (Number.isNaN(rho)) return { rho, p: Number.NaN, n };
  if (Math.abs(rho) >= 1) return { rho, p: 0, n };
  const t = rho * Math.sqrt((n - 2) / (1 - rho * rho));
  return { rho, p: 2 * studentTCdf(-Math.abs(t), n - 2), n };
}
