/**
 * Unbiased pass@k from n samples of which c are correct (Chen et al., 2021): 1 - C(n-c, k) / C(n, k),
 * computed as a running product so it stays exact in floating point for large n.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (!(Number.isInteger(n) && Number.isInteger(c) && Number.isInteger(k)) || n < 1 || c < 0 || c > n || k < 1 || k > n) {
    throw new RangeError(`pass@k needs integers 0 <= c <= n and 1 <= k <= n (got n=${n}, c=${c}, k=${k})`);
  }
  if (n - c < k) return 1;
  let allWrong = 1;
  for (let i = n - c + 1; i <= n; i++) allWrong *= 1 - k / i;
  return 1 - allWrong;
}

/** The k of the tandem paper's capability figure (§4.2). */
export const PAPER_KS: readonly number[] = [1, 2, 4, 8, 16, 32];

/** The paper's k that n samples support: those of PAPER_KS not above n. */
export function paperKs(n: number): number[] {
  return PAPER_KS.filter((k) => k <= n);
}

/** The k that n samples support when every power of two is wanted: 1, 2, 4, ... up to n. */
export function powersOfTwoUpTo(n: number): number[] {
  const ks: number[] = [];
  for (let k = 1; k <= n; k *= 2) ks.push(k);
  return ks;
}

/** Mean pass@k over problems, each given as its number of correct samples out of n. */
export function meanPassAtK(correctCounts: readonly number[], n: number, ks: readonly number[] = powersOfTwoUpTo(n)): Record<string, number> {
  const result: Record<string, number> = {};
  for (const k of ks) {
    result[String(k)] = correctCounts.reduce((a, c) => a + passAtK(n, c, k), 0) / Math.max(correctCounts.length, 1);
  }
  return result;
}
