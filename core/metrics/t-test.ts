import jstat from 'jstat';
import { fail } from '../errors.ts';

export type Alternative = 'greater' | 'less';

export interface TTestResult {
  /** Pairs tested. */
  n: number;
  /** Mean of a[i] - b[i]. */
  mean_diff: number;
  /** t = mean_diff / (sd / sqrt(n)); null when every difference is equal (zero variance: t undefined). */
  statistic: number | null;
  df: number;
  /**
   * One-sided p-value for H1 mean(a - b) > 0 (`greater`) or < 0 (`less`). With zero variance: 0 when the constant
   * difference lies in the claimed direction, 1 otherwise.
   */
  p: number;
}

/**
 * Student's t CDF, P(T <= t) with `df` degrees of freedom, through jstat's regularized incomplete beta:
 * P(T <= -|t|) = I_{df/(df+t²)}(df/2, 1/2) / 2. This tail form stays accurate where jstat's own studentt.cdf
 * cancels to 0 (|t| large) and is closer near t = 0.
 */
export function studentTCdf(t: number, df: number): number {
  if (!(df > 0)) fail('INPUT_INVALID', `Student's t needs df > 0 (got ${df})`);
  if (Number.isNaN(t)) return Number.NaN;
  const tail = Number.isFinite(t) ? 0.5 * jstat.jStat.ibeta(df / (df + t * t), df / 2, 0.5) : 0;
  return t < 0 ? tail : 1 - tail;
}

/** Paired one-sided t-test (tandem RL §5.3) of a against b on per-problem statistics, paired by index. */
export function pairedTTest(a: readonly number[], b: readonly number[], alternative: Alternative): TTestResult {
  if (a.length !== b.length) fail('INPUT_INVALID', `a paired t-test needs as many values on each side (got ${a.length} and ${b.length})`);
  const n = a.length;
  if (n < 2) fail('INPUT_INVALID', `a paired t-test needs at least 2 pairs (got ${n})`);
  const d = a.map((x, i) => x - b[i]);
  if (!d.every(Number.isFinite)) fail('INPUT_INVALID', 'a paired t-test needs finite values');
  const mean = d.reduce((s, x) => s + x, 0) / n;
  const variance = d.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1);
  const df = n - 1;
  const sign = alternative === 'greater' ? 1 : -1;
  if (variance <= 1e-30 * Math.max(1, mean * mean)) {
    return { n, mean_diff: mean, statistic: null, df, p: sign * mean > 0 ? 0 : 1 };
  }
  const t = mean / Math.sqrt(variance / n);
  // The lower tail of -t (not 1 - CDF) keeps tiny p-values exact.
  const p = studentTCdf(-sign * t, df);
  return { n, mean_diff: mean, statistic: t, df, p };
}
