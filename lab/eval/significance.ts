import { fail } from '../../core/errors.ts';
import { passAtK } from '../../core/metrics/pass-at-k.ts';
import { holm, signTest } from '../../core/metrics/exact-tests.ts';
import { pairedTTest, type Alternative } from '../../core/metrics/t-test.ts';
import { HANDOFF_VARIANTS, type CorrectedTest, type EvalReport, type PairedTest, type ProblemStats, type SignificanceResult } from './report-types.ts';

/**
 * Below this many problems that differ between the two sides, the exact sign test decides instead of the t-test, whose
 * normal approximation needs more (ours: 30, the usual rule of thumb; "TRL leads at pass@8" rested on 3 of 100 problems,
 * t-test p 0.042, exact sign test p 0.125).
 */
export const EXACT_TEST_BELOW = 30;

/** Level at which a Holm-adjusted p is called significant. */
export const SIGNIFICANCE_LEVEL = 0.05;

/** One paired one-sided comparison on per-problem values: the t-test (§5.3), the exact sign test beside it, and which decides. */
export function pairedTest(metric: string, alternative: Alternative, a: readonly number[], b: readonly number[]): PairedTest {
  const t = pairedTTest(a, b, alternative);
  const sign = signTest(a, b, alternative);
  const exact = sign.wins + sign.losses < EXACT_TEST_BELOW;
  return { metric, alternative, mean_diff: t.mean_diff, statistic: t.statistic, df: t.df, p: t.p, n: t.n, sign, decided_by: exact ? 'sign test' : 't-test', p_test: exact ? sign.p : t.p };
}

/**
 * The primary test of a claim about a training procedure, whose unit of replication is the training seed: each seed's
 * run gives one value per side (its mean over the test problems), and the paired one-sided t-test across the seeds
 * (df = seeds − 1) decides, with the exact sign test across seeds beside it (k of n seeds higher against a fair coin;
 * n seeds can reach no p below 1/2^n). Where every seed's difference is the same (zero variance) the sign test decides.
 * `n` is the number of seeds. Needs at least 2 seeds.
 */
export function seedLevelTest(metric: string, alternative: Alternative, model: readonly number[], other: readonly number[]): PairedTest {
  if (model.length < 2) fail('INPUT_INVALID', `a seed-level test of ${metric} needs at least 2 seeds (got ${model.length})`);
  const t = pairedTTest(model, other, alternative);
  const sign = signTest(model, other, alternative);
  const bySign = t.statistic === null;
  return { metric, alternative, mean_diff: t.mean_diff, statistic: t.statistic, df: t.df, p: t.p, n: t.n, sign, decided_by: bySign ? 'sign test' : 't-test', p_test: bySign ? sign.p : t.p };
}

/**
 * Holm's correction across a report's whole family of tests: every test gets its adjusted p and the family size. A test
 * made before the sign test existed is decided by its t-test p. `untested` members of a family fixed in advance (a claim
 * whose runs this report did not make) keep their place in it at p = 1, so a comparison is corrected over the same
 * family in every report of the experiment.
 */
export function correctFamily<T extends PairedTest>(tests: readonly T[], untested = 0): (T & CorrectedTest)[] {
  if (!Number.isInteger(untested) || untested < 0) fail('INPUT_INVALID', `a family's untested members must be a whole number >= 0 (got ${untested})`);
  const ps = tests.map((test) => test.p_test ?? test.p);
  const adjusted = holm([...ps, ...new Array<number>(untested).fill(1)]);
  return tests.map((test, i) => ({ ...test, p_test: ps[i], p_holm: adjusted[i], family: tests.length + untested }));
}

/**
 * A report's tests in two Holm families: the experiment's claims (a family of `claims` fixed in advance,
 * docs/experiments/protocol.md; a claim the report could not test keeps its place at p = 1) and every other test, which
 * is measured, not claimed, and corrected apart. Each test says which family it is in.
 */
export function correctClaims<T extends PairedTest>(tests: readonly T[], isClaim: (test: T, index: number) => boolean, claims: number): (T & CorrectedTest & { readonly claim: boolean })[] {
  const flags = tests.map(isClaim);
  const inFamily = tests.filter((_, i) => flags[i]);
  if (inFamily.length > claims) fail('INPUT_INVALID', `${inFamily.length} tests claim a place in a family of ${claims} claims`);
  const others = tests.filter((_, i) => !flags[i]);
  const [claimed, rest] = [correctFamily(inFamily, claims - inFamily.length), correctFamily(others)];
  return tests.map((_, i) => ({ ...(flags[i] ? claimed : rest).shift()!, claim: flags[i] }));
}

/**
 * Paired one-sided t-tests (tandem RL §5.3) of `model` against `other` on per-problem statistics, pooled across
 * benchmarks and paired by (benchmark, problem id): per-problem unbiased pass@k for capability and each handoff
 * variant (H1: the model is higher), the junior's per-token cross-entropy (H1: lower) and overlap α (H1: higher).
 * A metric enters when both reports carry it for at least two shared problems.
 */
export function compareReports(model: EvalReport, other: EvalReport): SignificanceResult {
  const key = (p: ProblemStats) => `${p.benchmark}\u0000${p.id}`;
  const others = new Map(other.per_problem.map((p) => [key(p), p]));
  const pairs = model.per_problem.flatMap((p) => {
    const theirs = others.get(key(p));
    return theirs ? [[p, theirs] as const] : [];
  });
  if (pairs.length < 2) fail('INPUT_INVALID', `--compare: the two reports share ${pairs.length} problems; a paired t-test needs at least 2 (same --task, --split and --problems?)`);
  const tests: PairedTest[] = [];
  const test = (metric: string, alternative: Alternative, of: (p: ProblemStats) => number | undefined) => {
    const both = pairs.flatMap(([a, b]) => {
      const [x, y] = [of(a), of(b)];
      return x !== undefined && y !== undefined ? [[x, y] as const] : [];
    });
    if (both.length < 2) return;
    tests.push(pairedTest(metric, alternative, both.map(([x]) => x), both.map(([, y]) => y)));
  };
  const ksOf = (n: number) => model.config.ks.filter((k) => k <= n);
  if (model.capability && other.capability) {
    const [n, m] = [model.capability.samples, other.capability.samples];
    if (n !== m) fail('INPUT_INVALID', `--compare: capability used ${n} samples per problem against ${m}; pair reports with equal --samples`);
    for (const k of ksOf(n)) test(`capability pass@${k}`, 'greater', (p) => (p.capability_correct === undefined ? undefined : passAtK(n, p.capability_correct, k)));
  }
  for (const variant of HANDOFF_VARIANTS) {
    const a = model.handoff?.find((h) => h.variant === variant);
    const b = other.handoff?.find((h) => h.variant === variant);
    if (!a || !b) continue;
    if (a.samples !== b.samples) fail('INPUT_INVALID', `--compare: handoff used ${a.samples} samples per problem against ${b.samples}`);
    for (const k of ksOf(a.samples)) {
      test(`handoff ${variant} pass@${k}`, 'greater', (p) => {
        const c = p.handoff?.[variant]?.correct;
        return c === undefined ? undefined : passAtK(a.samples, c, k);
      });
    }
  }
  test('legibility cross_entropy', 'less', (p) => p.cross_entropy);
  test('legibility overlap', 'greater', (p) => p.overlap);
  return { other: other.model, tests };
}
