import type { CorrectedTest } from '../eval/report-types.ts';
import { EXACT_TEST_BELOW, SIGNIFICANCE_LEVEL } from '../eval/significance.ts';
import { markdownTable, pValue, signed } from './markdown.ts';

/** The columns every report prints for a paired test, after the comparison and metric it names. */
export const TEST_COLUMNS = ['Δ (mean per-problem difference)', 't', 'p (t-test)', 'higher / lower on', 'p (exact sign test)', 'test used', 'p (Holm)', 'result', 'problems'] as const;

/** A test's cells under TEST_COLUMNS. p-values are one-sided; the result reads the Holm-adjusted p at the 0.05 level. */
export function testCells(test: CorrectedTest): string[] {
  return [
    signed(test.mean_diff, 4),
    test.statistic === null ? 'n/a (zero variance)' : signed(test.statistic, 2),
    pValue(test.p).replace(/\*+$/, ''),
    test.sign ? `${test.sign.wins} / ${test.sign.losses}` : '–',
    test.sign ? pValue(test.sign.p).replace(/\*+$/, '') : '–',
    test.decided_by ?? 't-test',
    pValue(test.p_holm).replace(/\*+$/, ''),
    test.p_holm < SIGNIFICANCE_LEVEL ? 'significant' : 'not significant',
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

/** A claim of the paper and the one test of this report that bears on it (none: the design never tested it). */
export interface Claim {
  readonly claim: string;
  readonly test: CorrectedTest | undefined;
  /** What the test compares, as the reader finds it in the tests table. */
  readonly evidence: string;
}

/** The claims, each with what this report's own test says of it: supported, or plainly not. */
export function claimsTable(claims: readonly Claim[]): string {
  const verdict = (test: CorrectedTest | undefined) =>
    test === undefined ? 'not tested here: no claim made' : test.p_holm < SIGNIFICANCE_LEVEL ? `supported (Holm p ${pValue(test.p_holm).replace(/\*+$/, '')})` : `not supported: not significant (Holm p ${pValue(test.p_holm).replace(/\*+$/, '')})`;
  return markdownTable(
    ['claim', 'tested by', 'this run'],
    claims.map(({ claim, test, evidence }) => [claim, evidence, verdict(test)]),
  );
}
