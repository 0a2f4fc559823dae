import { fail } from '../../core/errors.ts';
import { passAtK } from '../../core/metrics/pass-at-k.ts';
import { pairedTTest, type Alternative } from '../../core/metrics/t-test.ts';
import { HANDOFF_VARIANTS, type EvalReport, type PairedTest, type ProblemStats, type SignificanceResult } from './report-types.ts';

/**
 * Paired one-sided t-tests (tandem RL §5.3) of `model` against `other` on per-problem statistics, pooled across
 * benchmarks and paired by (benchmark, problem id): per-problem unbiased pass@k for capability and each handoff
 * variant (H1: the model is higher), the junior's per-token cross-entropy (H1: lower) and overlap α (H1: higher).
 * A metric enters when both reports carry it for at least two shared problems.
 */
export function compareReports(model: EvalReport, other: EvalReport): SignificanceResult {
  const key = (p: ProblemStats) => `${p.benchmark}\u0000${p.id}`;
  const others = new Map(other.per_problem.map((p) => [key(p), p]));
  const pairs = model.per_problem.flatMap((p) => (others.has(key(p)) ? [[p, others.get(key(p))!] as const] : []));
  if (pairs.length < 2) fail('INPUT_INVALID', `--compare: the two reports share ${pairs.length} problems; a paired t-test needs at least 2 (same --task, --split and --problems?)`);
  const tests: PairedTest[] = [];
  const test = (metric: string, alternative: Alternative, of: (p: ProblemStats) => number | undefined) => {
    const both = pairs.filter(([a, b]) => of(a) !== undefined && of(b) !== undefined);
    if (both.length < 2) return;
    const r = pairedTTest(both.map(([a]) => of(a)!), both.map(([, b]) => of(b)!), alternative);
    tests.push({ metric, alternative, mean_diff: r.mean_diff, statistic: r.statistic, df: r.df, p: r.p, n: r.n });
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
