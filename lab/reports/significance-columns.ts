import type { CorrectedTest } from '../eval/report-types.ts';
import { EXACT_TEST_BELOW, SIGNIFICANCE_LEVEL } from '../eval/significance.ts';
import { markdownTable, pValue, signed } from './markdown.ts';

/** The columns every report prints for a paired test, after the comparison and metric it names. */
export const TEST_COLUMNS = ['Δ (mean per-problem difference)', 't', 'p (t-test)', 'higher / lower on', 'p (exact sign test)', 'test used', 'p (Holm)', 'result', 'problems'] as const;

/**
 * A test's cells under TEST_COLUMNS. p-values are one-sided; the result reads the Holm-adjusted p at the 0.05 level, in
 * `words` (a test about the trained models rather than the procedure says so).
 */
export function testCells(test: CorrectedTest, words: { readonly significant: string; readonly not: string } = { significant: 'significant', not: 'not significant' }): string[] {
  return [
    signed(test.mean_diff, 4),
    test.statistic === null ? 'n/a (zero variance)' : signed(test.statistic, 2),
    pValue(test.p).replace(/\*+$/, ''),
    test.sign ? `${test.sign.wins} / ${test.sign.losses}` : '–',
    test.sign ? pValue(test.sign.p).replace(/\*+$/, '') : '–',
    test.decided_by ?? 't-test',
    pValue(test.p_holm).replace(/\*+$/, ''),
    test.p_holm < SIGNIFICANCE_LEVEL ? words.significant : words.not,
    String(test.n),
  ];
}

/** The paragraph above a significance table: what was tested, how the family was corrected, and its size. */
export function testsPreamble(family: number): string {
  return (
    `Paired one-sided tests on per-problem statistics. Beside each t-test, the exact sign test on the problems that differ ` +
    `(on 0/1 outcomes, McNemar's exact test); where fewer than ${EXACT_TEST_BELOW} problems differ, the exact test decides. ` +
    `The deciding p-values are Holm-corrected across this report's family of **${family} tests**; "significant" means a Holm-adjusted ` +
    `p below ${SIGNIFICANCE_LEVEL}, and every other row is **not significant**, whatever its raw p.`
  );
}

/**
 * The paragraph above a report's tests when they fall in two Holm families: the experiment's fixed family of claims
 * (`claims` members, `tested` of them here) and the other tests, corrected apart.
 */
export function claimsPreamble(claims: number, tested: number, others: number): string {
  return (
    `Paired one-sided tests on per-problem statistics of this one training run: they say whether these trained models differ on these problems; a claim about the training procedure rests on the test across training seeds. ` +
    `Beside each t-test, the exact sign test on the problems that differ (on 0/1 outcomes, McNemar's exact test); where fewer than ${EXACT_TEST_BELOW} problems differ, the exact test decides. ` +
    `The deciding p-values are Holm-corrected in two families: the experiment's **${claims} claims** (fixed in docs/experiments/protocol.md, the same family in every report of the experiment${tested < claims ? `; ${claims - tested} untested here, kept in the family at p = 1` : ''}) and the **${others} other tests**, measured, not claimed. ` +
    `"Significant" means a Holm-adjusted p below ${SIGNIFICANCE_LEVEL}; every other row is **not significant**: no difference detected, which is not a finding of equality.`
  );
}

/** A claim of the paper and the one test of this report that bears on it (none: its runs were not made here). */
export interface Claim {
  readonly claim: string;
  readonly test: CorrectedTest | undefined;
  /** What the test compares, as the reader finds it in the tests table. */
  readonly evidence: string;
}

/** The claims, each with what this report's own test says of it: significant, no difference detected, or untested. */
export function claimsTable(claims: readonly Claim[]): string {
  const bare = (p: number) => pValue(p).replace(/\*+$/, '');
  const verdict = (test: CorrectedTest | undefined) =>
    test === undefined ? 'untested: its runs were not made here' : test.p_holm < SIGNIFICANCE_LEVEL ? `significant in this run (Holm p ${bare(test.p_holm)})` : `no difference detected (Holm p ${bare(test.p_holm)})`;
  return markdownTable(
    ['claim', 'tested by', 'this run'],
    claims.map(({ claim, test, evidence }) => [claim, evidence, verdict(test)]),
  );
}
