import { withDirectoryLock } from '../../native/io/dir-lock.ts';
import { join, resolve } from 'node:path';
import { fail, present } from '../../core/errors.ts';
import { acrossSeeds } from '../../core/metrics/exact-tests.ts';
import { writeFileAtomically } from '../../native/io/files.ts';
import { correctFamily, pairedTest } from '../eval/significance.ts';
import type { CorrectedTest } from '../eval/report-types.ts';
import { markdownTable } from '../reports/markdown.ts';
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
}

export interface Headline {
  readonly metrics: readonly HeadlineMetric[];
  readonly comparisons: readonly HeadlineComparison[];
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

export interface SeedsResult<Result> {
  readonly out: string;
  readonly seeds: readonly number[];
  readonly results: readonly Result[];
  readonly summary: readonly SeedSummaryRow[];
  /** Each comparison pooled over seeds (each problem's value averaged over the seeds), Holm-corrected as one family. */
  readonly tests: readonly (CorrectedTest & { readonly model: string; readonly other: string; readonly seedsHigher: number })[];
  readonly report: string;
}

export const SEEDS_REPORT = 'report.md';

/**
 * The experiment once per training seed, each a whole run in `<out>/seed-<s>/` (resumable as one run is), then a report
 * across seeds in `<out>/report.md` and `report.json`: every headline number as mean ± SE across seeds beside each
 * seed's value ± its bootstrap SE over problems, and every headline comparison tested on the problems with each
 * problem's value averaged over seeds (the t-test and the exact sign test, Holm-corrected across the family).
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
    const summary = summarize(seeds, headlines);
    const listed = pooledTests(headlines);
    const corrected = correctFamily(listed.map((entry) => entry.test));
    const tests = listed.map((entry, i) => ({ ...corrected[i], model: entry.model, other: entry.other, seedsHigher: entry.seedsHigher }));
    const markdown = seedsMarkdown(definition.title, seeds, summary, tests);
    await writeFileAtomically(join(out, SEEDS_REPORT), markdown);
    await writeFileAtomically(join(out, 'report.json'), `${JSON.stringify({ experiment: definition.name, seeds, summary, tests, headlines }, null, 2)}\n`);
    return { out, seeds, results, summary, tests, report: join(out, SEEDS_REPORT) };
  });
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

/** Each headline comparison on the problems every seed shares, each problem's values averaged over seeds. */
function pooledTests(headlines: readonly Headline[]) {
  return (headlines[0]?.comparisons ?? []).flatMap((first) => {
    const found = headlines.map((headline) => headline.comparisons.find((c) => c.model === first.model && c.other === first.other && c.metric === first.metric));
    const all = found.filter((c) => c !== undefined);
    if (all.length < found.length) return [];
    const ids = first.perProblem.map((p) => p.id).filter((id) => all.every((c) => c.perProblem.some((p) => p.id === id)));
    if (ids.length < 2) return [];
    const meanOver = (id: string, side: 'model' | 'other') => all.reduce((a, c) => a + present(c.perProblem.find((p) => p.id === id), `problem ${id} of every seed`)[side], 0) / all.length;
    const seedsHigher = all.filter((c) => c.perProblem.reduce((a, p) => a + p.model - p.other, 0) > 0).length;
    return [{ model: first.model, other: first.other, seedsHigher, test: pairedTest(first.metric, 'greater', ids.map((id) => meanOver(id, 'model')), ids.map((id) => meanOver(id, 'other'))) }];
  });
}

const cell = (value: number, se: number | null, digits = 3) => (se === null ? value.toFixed(digits) : `${value.toFixed(digits)} ± ${se.toFixed(digits)}`);

function seedsMarkdown(title: string, seeds: readonly number[], summary: readonly SeedSummaryRow[], tests: SeedsResult<unknown>['tests']): string {
  const sections = [
    `# ${title}: ${seeds.length} training seeds`,
    `Training seeds ${seeds.join(', ')}, each a whole run of the experiment in \`seed-<s>/\` with its own report (same settings, the seed alone differing: training matches, adapter initialisations and evaluation samples). ` +
      `"Across seeds" is the mean ± the standard error across seeds (sample sd / √${seeds.length}): the spread of what training produces. Each seed's column is that run's value ± its bootstrap SE over test problems: the spread of the test set alone.`,
    `## Headline numbers`,
    markdownTable(
      ['model', 'metric', `across ${seeds.length} seeds (mean ± SE)`, ...seeds.map((s) => `seed ${s} (± bootstrap SE)`)],
      summary.map((row) => [row.model, row.metric, cell(row.mean, row.se), ...row.perSeed.map((entry) => cell(entry.value, entry.se))]),
    ),
    `## Comparisons pooled over seeds`,
    tests.length === 0
      ? 'No comparison: too few problems shared by every seed.'
      : `Each problem's value averaged over the ${seeds.length} seeds, then paired across problems. "Seeds higher" counts the seeds whose run had the model ahead on average. ${testsPreamble(tests.length)}\n\n` +
        markdownTable(
          ['comparison', 'metric', 'seeds higher', ...TEST_COLUMNS],
          tests.map((test) => [`${test.model} > ${test.other}`, test.metric, `${test.seedsHigher} of ${seeds.length}`, ...testCells(test)]),
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
