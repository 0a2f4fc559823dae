import { withDirectoryLock } from '../../native/io/dir-lock.ts';
import { join, resolve } from 'node:path';
import { fail, present } from '../../core/errors.ts';
import { acrossSeeds } from '../../core/metrics/exact-tests.ts';
import { writeFileAtomically } from '../../native/io/files.ts';
import { correctFamily, pairedTest, seedLevelTest, SIGNIFICANCE_LEVEL } from '../eval/significance.ts';
import type { CorrectedTest, PairedTest } from '../eval/report-types.ts';
import { markdownTable, pValue, signed } from '../reports/markdown.ts';
import { TEST_COLUMNS, testCells, testsPreamble } from '../reports/significance-columns.ts';
import { runExperiment, type ExperimentDefinition, type ExperimentRun, type ExperimentServices, type SharedExperimentConfig } from './experiment-runner.ts';

/** One headline number of one seed's run: a model's metric with its bootstrap SE over problems. */
export interface HeadlineMetric {
  readonly model: string;
  readonly metric: string;
  readonly value: number;
  readonly se: number | null;
}

/** A headline comparison of one seed's run: per test problem, the model's value and the other's (H1: the model's is higher). */
export interface HeadlineComparison {
  readonly model: string;
  readonly other: string;
  readonly metric: string;
  readonly perProblem: readonly { readonly id: string; readonly model: number; readonly other: number }[];
  /**
   * Not one of the experiment's claims (docs/experiments/protocol.md lists each experiment's): tested and Holm-corrected
   * in the report's secondary family, never in the claims' family.
   */
  readonly secondary?: boolean;
}

export interface Headline {
  readonly metrics: readonly HeadlineMetric[];
  readonly comparisons: readonly HeadlineComparison[];
  /** Claims of the experiment's fixed family that this configuration could not test (their runs were not made): they keep their place in the family at p = 1. */
  readonly untested?: readonly string[];
}

/** An experiment that can be summarized across training seeds: its headline numbers and comparisons per run. */
export interface SeededDefinition<Config extends SharedExperimentConfig, Arm extends string, Result> extends ExperimentDefinition<Config, Arm, Result> {
  readonly title: string;
  headline(result: Result): Headline;
}

export interface SeedSummaryRow {
  readonly model: string;
  readonly metric: string;
  /** Mean ± SE across seeds (sd / √n). */
  readonly mean: number;
  readonly se: number | null;
  readonly seeds: number;
  /** Each seed's value with its bootstrap SE over problems, in seed order. */
  readonly perSeed: readonly { readonly seed: number; readonly value: number; readonly se: number | null }[];
}

/**
 * One headline comparison across training seeds. The primary test is at the seed level, the unit of replication of a
 * claim about a training procedure: each seed's mean difference over the shared problems, paired t-test across seeds
 * with the exact sign test across seeds beside it, Holm-corrected over the experiment's fixed family of claims (or, for a
 * secondary comparison, over the secondary ones). The pooled per-problem test (each problem averaged over the seeds) is
 * kept as a secondary line: it is about these trained models on these problems, not about the training procedure.
 */
export interface SeedComparison {
  readonly model: string;
  readonly other: string;
  readonly metric: string;
  /** Whether the comparison is one of the experiment's claims (else secondary). */
  readonly claim: boolean;
  /** Each seed's mean of model − other over the problems every seed shares, in seed order. */
  readonly perSeed: readonly { readonly seed: number; readonly diff: number }[];
  /** Seeds whose run had the model ahead on average. */
  readonly seedsHigher: number;
  /** The seed-level test (n = seeds), with its Holm-adjusted p in its family; null with a single seed. */
  readonly test: CorrectedTest | null;
  /** The pooled per-problem test (n = problems), Holm-corrected over every pooled test of the report. */
  readonly pooled: CorrectedTest;
}

export interface SeedsResult<Result> {
  readonly out: string;
  readonly seeds: readonly number[];
  readonly results: readonly Result[];
  readonly summary: readonly SeedSummaryRow[];
  readonly tests: readonly SeedComparison[];
  /** Claims of the fixed family this configuration could not test. */
  readonly untested: readonly string[];
  readonly report: string;
}

export const SEEDS_REPORT = 'report.md';

/**
 * The experiment once per training seed, each a whole run in `<out>/seed-<s>/` (resumable as one run is), then a report
 * across seeds in `<out>/report.md` and `report.json`: every headline number as mean ± SE across seeds beside each
 * seed's value ± its bootstrap SE over problems, and every headline comparison tested across seeds (`seedComparisons`).
 */
export async function runSeeds<Config extends SharedExperimentConfig, Arm extends string, Result>(
  definition: SeededDefinition<Config, Arm, Result>,
  run: ExperimentRun<Config>,
  seeds: readonly number[],
  services?: ExperimentServices,
): Promise<SeedsResult<Result>> {
  if (seeds.length === 0) fail('CONFIG_INVALID', `${definition.name}: no seed to run`);
  if (new Set(seeds).size !== seeds.length) fail('CONFIG_INVALID', `${definition.name}: a seed is listed twice in seeds ${JSON.stringify(seeds)}`, { seeds });
  const out = resolve(run.out);
  // Each seed's run locks its own seed-<s>/; this lock keeps a second process off the report across seeds as well.
  return withDirectoryLock(out, 'experiment', async () => {
    const results: Result[] = [];
    for (const seed of seeds) {
      results.push(await runExperiment(definition, { ...run, out: join(out, `seed-${seed}`), config: { ...run.config, seed } }, services));
    }
    const headlines = results.map((result) => definition.headline(result));
    const written = await writeSeedsReport(out, definition, seeds, headlines);
    return { out, seeds, results, ...written };
  });
}

/** The report across seeds, written from each seed's headline (`tools/seeds-report.ts` rewrites one from a saved report.json). */
export async function writeSeedsReport(out: string, definition: { readonly name: string; readonly title: string }, seeds: readonly number[], headlines: readonly Headline[]) {
  const summary = summarize(seeds, headlines);
  const untested = headlines[0]?.untested ?? [];
  const tests = seedComparisons(seeds, headlines);
  await writeFileAtomically(join(out, SEEDS_REPORT), seedsMarkdown(definition.title, seeds, summary, tests, untested));
  await writeFileAtomically(join(out, 'report.json'), `${JSON.stringify({ experiment: definition.name, seeds, summary, tests, untested, headlines }, null, 2)}\n`);
  return { summary, tests, untested, report: join(out, SEEDS_REPORT) };
}

/** Every (model, metric) the headlines share, as mean ± SE across seeds with each seed's own value. */
export function summarize(seeds: readonly number[], headlines: readonly Headline[]): SeedSummaryRow[] {
  const rows: SeedSummaryRow[] = [];
  for (const first of headlines[0]?.metrics ?? []) {
    const perSeed = headlines.map((headline, i) => {
      const found = headline.metrics.find((m) => m.model === first.model && m.metric === first.metric);
      return found ? { seed: seeds[i], value: found.value, se: found.se } : undefined;
    });
    const found = perSeed.filter((entry) => entry !== undefined);
    if (found.length < perSeed.length) continue;
    const { mean, se, n } = acrossSeeds(found.map((entry) => entry.value));
    rows.push({ model: first.model, metric: first.metric, mean, se, seeds: n, perSeed: found });
  }
  return rows;
}

/**
 * Every headline comparison that all seeds made, on the problems every seed shares: the seed-level test (each seed's mean
 * difference, paired t across seeds, sign test beside) Holm-corrected over the claims' family (with the headline's
 * untested claims at p = 1) or over the secondary comparisons; and the pooled per-problem test, Holm-corrected over every
 * pooled test.
 */
export function seedComparisons(seeds: readonly number[], headlines: readonly Headline[]): SeedComparison[] {
  const listed = (headlines[0]?.comparisons ?? []).flatMap((first) => {
    const found = headlines.map((headline) => headline.comparisons.find((c) => c.model === first.model && c.other === first.other && c.metric === first.metric));
    const all = found.filter((c) => c !== undefined);
    if (all.length < found.length) return [];
    const ids = first.perProblem.map((p) => p.id).filter((id) => all.every((c) => c.perProblem.some((p) => p.id === id)));
    if (ids.length < 2) return [];
    const valueOf = (c: HeadlineComparison, id: string) => present(c.perProblem.find((p) => p.id === id), `problem ${id} of every seed`);
    const meanOf = (c: HeadlineComparison, side: 'model' | 'other') => ids.reduce((a, id) => a + valueOf(c, id)[side], 0) / ids.length;
    const overSeeds = (id: string, side: 'model' | 'other') => all.reduce((a, c) => a + valueOf(c, id)[side], 0) / all.length;
    const [model, other] = [all.map((c) => meanOf(c, 'model')), all.map((c) => meanOf(c, 'other'))];
    return [
      {
        first,
        perSeed: seeds.map((seed, i) => ({ seed, diff: model[i] - other[i] })),
        seedsHigher: model.filter((m, i) => m > other[i]).length,
        test: all.length >= 2 ? seedLevelTest(first.metric, 'greater', model, other) : null,
        pooled: pairedTest(first.metric, 'greater', ids.map((id) => overSeeds(id, 'model')), ids.map((id) => overSeeds(id, 'other'))),
      },
    ];
  });
  const corrected = new Map<PairedTest, CorrectedTest>();
  const correct = (tests: readonly PairedTest[], untested = 0) => correctFamily(tests, untested).forEach((c, i) => corrected.set(tests[i], c));
  const seedTests = (claims: boolean) => listed.flatMap((entry) => (entry.test && !entry.first.secondary === claims ? [entry.test] : []));
  correct(seedTests(true), headlines[0]?.untested?.length ?? 0);
  correct(seedTests(false));
  correct(listed.map((entry) => entry.pooled));
  return listed.map(({ first, perSeed, seedsHigher, test, pooled }) => ({
    model: first.model,
    other: first.other,
    metric: first.metric,
    claim: !first.secondary,
    perSeed,
    seedsHigher,
    test: test ? present(corrected.get(test), 'a corrected seed-level test') : null,
    pooled: present(corrected.get(pooled), 'a corrected pooled test'),
  }));
}

/** What a seed-level test says, in the protocol's words: significant, or how many seeds went the claimed way. */
export function seedVerdict(comparison: Pick<SeedComparison, 'test' | 'seedsHigher' | 'perSeed'>): string {
  const n = comparison.perSeed.length;
  if (comparison.test && comparison.test.p_holm < SIGNIFICANCE_LEVEL) return 'significant';
  return `not significant; consistent in ${comparison.seedsHigher} of ${n} seed${n === 1 ? '' : 's'}`;
}

const cell = (value: number, se: number | null, digits = 3) => (se === null ? value.toFixed(digits) : `${value.toFixed(digits)} ± ${se.toFixed(digits)}`);
const bare = (p: number) => pValue(p).replace(/\*+$/, '');

function seedTestsTable(tests: readonly SeedComparison[], n: number): string {
  return markdownTable(
    ['comparison', 'metric', 'per-seed Δ', 'mean Δ ± SE across seeds', 't (df)', 'p (t across seeds)', 'seeds higher / lower', 'p (sign test across seeds)', 'p (Holm)', 'result'],
    tests.map((c) => {
      const { mean, se } = acrossSeeds(c.perSeed.map((s) => s.diff));
      const t = c.test;
      return [
        `${c.model} > ${c.other}`,
        c.metric,
        c.perSeed.map((s) => signed(s.diff, 3)).join(', '),
        se === null ? signed(mean, 4) : `${signed(mean, 4)} ± ${se.toFixed(4)}`,
        t ? `${t.statistic === null ? 'n/a (equal differences)' : signed(t.statistic, 2)} (${t.df})` : '–',
        t ? bare(t.p) : '–',
        t?.sign ? `${t.sign.wins} / ${t.sign.losses} of ${n}` : '–',
        t?.sign ? bare(t.sign.p) : '–',
        t ? bare(t.p_holm) : '–',
        t ? seedVerdict(c) : 'one seed: no seed-level test',
      ];
    }),
  );
}

function seedsMarkdown(title: string, seeds: readonly number[], summary: readonly SeedSummaryRow[], tests: readonly SeedComparison[], untested: readonly string[]): string {
  const n = seeds.length;
  const claims = tests.filter((c) => c.claim);
  const secondary = tests.filter((c) => !c.claim);
  const family = claims.find((c) => c.test)?.test?.family ?? claims.length + untested.length;
  const sections = [
    `# ${title}: ${n} training seeds`,
    `Training seeds ${seeds.join(', ')}, each a whole run of the experiment in \`seed-<s>/\` with its own report (same settings, the seed alone differing: training matches, adapter initialisations and evaluation samples). ` +
      `"Across seeds" is the mean ± the standard error across seeds (sample sd / √${n}): the spread of what training produces. Each seed's column is that run's value ± its bootstrap SE over test problems: the spread of the test set alone.`,
    `## Headline numbers`,
    markdownTable(
      ['model', 'metric', `across ${n} seeds (mean ± SE)`, ...seeds.map((s) => `seed ${s} (± bootstrap SE)`)],
      summary.map((row) => [row.model, row.metric, cell(row.mean, row.se), ...row.perSeed.map((entry) => cell(entry.value, entry.se))]),
    ),
    `## The claims, tested across seeds (primary)`,
    claims.length === 0
      ? 'No claim tested: too few problems shared by every seed.'
      : `The training seed is the unit of replication: each seed's run gives one difference (its mean over the problems every seed shares, model − other), and the paired one-sided t-test across the ${n} seeds (df ${n - 1}) decides, with the exact sign test across seeds beside it (${n} seeds can give no sign-test p below ${bare(0.5 ** n)}). ` +
        `The deciding p-values are Holm-corrected over the experiment's fixed family of **${family} claims** (docs/experiments/protocol.md)${untested.length > 0 ? `, ${untested.length} of them untested here (their runs were not made: ${untested.join('; ')}) and kept in the family at p = 1` : ''}. ` +
        `"Significant" means a Holm-adjusted p below ${SIGNIFICANCE_LEVEL}; every other row is not significant, with the number of seeds that went the claimed way. Not significant means no difference was detected, not that the two are equal.\n\n` +
        seedTestsTable(claims, n),
    ...(secondary.length === 0
      ? []
      : [`## Secondary comparisons, tested across seeds`, `The same seed-level test, Holm-corrected over these ${secondary.length} comparisons apart from the claims: measured, not claimed.\n\n${seedTestsTable(secondary, n)}`]),
    `## Pooled over seeds (secondary: about these ${n} trained models on these problems)`,
    tests.length === 0
      ? 'No comparison.'
      : `Each problem's value averaged over the ${n} seeds, then paired across problems. This test counts the spread of the test problems, not that of training: it says whether these ${n} trained models differ on these problems, not whether the training procedure does, and no claim rests on it. ${testsPreamble(tests.length)}\n\n` +
        markdownTable(
          ['comparison', 'metric', 'seeds higher', ...TEST_COLUMNS],
          tests.map((c) => [`${c.model} > ${c.other}`, c.metric, `${c.seedsHigher} of ${n}`, ...testCells(c.pooled, { significant: 'these models differ', not: 'no difference detected' })]),
        ),
  ];
  return `${sections.join('\n\n')}\n`;
}

/** A report's solo pass@1 (macro) with its bootstrap SE, as a headline number. */
export function capabilityPass1(model: string, report: { readonly capability?: { readonly macro: { readonly pass_at_k: Readonly<Record<string, { value: number; se: number }>> } } }): HeadlineMetric[] {
  const pass = report.capability?.macro.pass_at_k['1'];
  return pass ? [{ model, metric: 'pass@1', value: pass.value, se: pass.se }] : [];
}

/** Each problem's share of correct samples, keyed `<benchmark>/<id>`, from a report's per-problem statistics. */
export function perProblemPass1(report: { readonly capability?: { readonly samples: number }; readonly per_problem: readonly { readonly benchmark: string; readonly id: string; readonly capability_correct?: number }[] }): Map<string, number> {
  const n = report.capability?.samples ?? 1;
  return new Map(report.per_problem.flatMap((p) => (p.capability_correct === undefined ? [] : [[`${p.benchmark}/${p.id}`, p.capability_correct / n] as const])));
}

/** A comparison on per-problem values of the problems both sides have. */
export function comparisonOf(model: string, other: string, metric: string, a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): HeadlineComparison {
  return {
    model,
    other,
    metric,
    perProblem: [...a].flatMap(([id, value]) => {
      const theirs = b.get(id);
      return theirs === undefined ? [] : [{ id, model: value, other: theirs }];
    }),
  };
}
