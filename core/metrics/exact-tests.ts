import { fail } from '../errors.ts';
import type { Alternative } from './t-test.ts';

export interface SignTestResult {
  /** Pairs in which the first side is higher, and lower; ties (equal pairs) leave the test. */
  readonly wins: number;
  readonly losses: number;
  /** Exact binomial p-value under H0 P(win) = 1/2, one-sided in the direction of `alternative`. */
  readonly p: number;
}

/** log C(n, k), for the tails of large n. */
function logChoose(n: number, k: number): number {
  let sum = 0;
  for (let i = 1; i <= k; i++) sum += Math.log((n - k + i) / i);
  return sum;
}

/**
 * P(X >= k) for X ~ Binomial(n, 1/2). Up to n = 1000 term by term from 2^-n (exact in binary for the small n of a
 * per-problem test: 3 of 3 gives 0.125 to the bit); beyond, each term through logarithms.
 */
export function binomialUpperTail(n: number, k: number): number {
  if (!Number.isInteger(n) || n < 0 || !Number.isInteger(k)) fail('INPUT_INVALID', `a binomial tail needs whole n >= 0 and k (got n = ${n}, k = ${k})`);
  if (k <= 0) return 1;
  if (k > n) return 0;
  let p = 0;
  if (n <= 1000) {
    let term = 0.5 ** n;
    for (let i = 0; i < k; i++) term = (term * (n - i)) / (i + 1);
    for (let i = k; i <= n; i++) {
      p += term;
      term = (term * (n - i)) / (i + 1);
    }
  } else {
    for (let i = k; i <= n; i++) p += Math.exp(logChoose(n, Math.min(i, n - i)) - n * Math.LN2);
  }
  return Math.min(1, p);
}

/**
 * The exact sign test of paired values a[i] against b[i]: the pairs that differ, counted by direction, against a fair
 * coin. On 0/1 outcomes (a problem solved or not by each model) it is McNemar's exact test on the discordant problems.
 * One-sided: `greater` asks whether a is higher more often than chance, `less` lower. No pair differs: p = 1.
 */
export function signTest(a: readonly number[], b: readonly number[], alternative: Alternative): SignTestResult {
  if (a.length !== b.length) fail('INPUT_INVALID', `a sign test needs as many values on each side (got ${a.length} and ${b.length})`);
  let wins = 0;
  let losses = 0;
  for (const [i, x] of a.entries()) {
    if (!Number.isFinite(x) || !Number.isFinite(b[i])) fail('INPUT_INVALID', 'a sign test needs finite values');
    if (x > b[i]) wins++;
    else if (x < b[i]) losses++;
  }
  return { wins, losses, p: binomialUpperTail(wins + losses, alternative === 'greater' ? wins : losses) };
}

/**
 * McNemar's exact test, two-sided, on the discordant pairs: `b` pairs where only the first side succeeded, `c` where
 * only the second did. p = min(1, 2 · P(X >= max(b, c))) with X ~ Binomial(b + c, 1/2).
 */
export function mcnemarExact(b: number, c: number): number {
  if (!Number.isInteger(b) || !Number.isInteger(c) || b < 0 || c < 0) fail('INPUT_INVALID', `McNemar's test needs whole discordant counts >= 0 (got ${b} and ${c})`);
  if (b === c) return 1;
  return Math.min(1, 2 * binomialUpperTail(b + c, Math.max(b, c)));
}

/**
 * Holm's step-down correction of a family of p-values (Holm, 1979): sorted ascending, the i-th (0-based) of m is
 * multiplied by m − i, each adjusted value is at least the one before it, and none exceeds 1. Returned in the input's
 * order; reject at level α where the adjusted p is at most α. It controls the family-wise error rate under any
 * dependence between the tests.
 */
export function holm(ps: readonly number[]): number[] {
  if (!ps.every((p) => p >= 0 && p <= 1)) fail('INPUT_INVALID', `Holm's correction needs p-values in [0, 1] (got ${JSON.stringify(ps)})`);
  const m = ps.length;
  const order = ps.map((p, i) => [p, i] as const).sort((x, y) => x[0] - y[0]);
  const adjusted = new Array<number>(m);
  let running = 0;
  for (const [rank, [p, i]] of order.entries()) {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    adjusted[i] = running;
  }
  return adjusted;
}

export interface SeedSummary {
  readonly n: number;
  readonly mean: number;
  /** Standard error of the mean across seeds, sd / √n with the sample sd (n − 1); null for a single seed. */
  readonly se: number | null;
}

/** Mean ± standard error of one metric across independent training seeds. */
export function acrossSeeds(values: readonly number[]): SeedSummary {
  const n = values.length;
  if (n === 0) fail('INPUT_INVALID', 'a summary across seeds needs at least one value');
  const mean = values.reduce((a, v) => a + v, 0) / n;
  if (n === 1) return { n, mean, se: null };
  const variance = values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1);
  return { n, mean, se: Math.sqrt(variance / n) };
}
