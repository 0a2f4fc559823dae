import type { EvalReport, HandoffBenchmark, HandoffResult, PassAtK, ShareStats, SignificanceResult } from '../eval/report-types.ts';
import { correctFamily } from '../eval/significance.ts';
import { estimate, markdownTable, percentEstimate, pValue, signed, tokenText } from './markdown.ts';
import { TEST_COLUMNS, testCells } from './significance-columns.ts';

/** A report under the name it is shown by in tables and legends. */
export interface LabelledReport {
  label: string;
  report: EvalReport;
}

/** A paired comparison to print: `model` against `significance.other`. */
export interface Comparison {
  model: string;
  significance: SignificanceResult;
}

const MACRO = 'macro';
const DASH = '–';

const sortedKs = (tables: ReadonlyArray<PassAtK>): string[] => [...new Set(tables.flatMap((t) => Object.keys(t)))].sort((a, b) => Number(a) - Number(b));

/** One row per model (and per benchmark, then the macro average, when there are several). */
function benchmarkRows<T>(entries: readonly LabelledReport[], pick: (r: EvalReport) => { perBenchmark: Record<string, T>; macro: T } | undefined): Array<{ label: string; benchmark: string; value: T }> {
  return entries.flatMap(({ label, report }) => {
    const picked = pick(report);
    if (!picked) return [];
    const names = Object.keys(picked.perBenchmark);
    if (names.length === 1) return [{ label, benchmark: names[0], value: picked.perBenchmark[names[0]] }];
    if (names.length === 0) return [{ label, benchmark: MACRO, value: picked.macro }];
    return [...names.map((benchmark) => ({ label, benchmark, value: picked.perBenchmark[benchmark] })), { label, benchmark: MACRO, value: picked.macro }];
  });
}

const severalBenchmarks = (entries: readonly LabelledReport[]) => entries.some(({ report }) => report.benchmarks.length > 1);

/** Table: solo capability, pass@k ± SE per model (the paper's Figure 2 as numbers). */
export function capabilityTable(entries: readonly LabelledReport[]): string | undefined {
  const rows = benchmarkRows(entries, (r) =>
    r.capability && {
      perBenchmark: Object.fromEntries(
        Object.entries(r.capability.per_benchmark).map(([name, b]) => [name, { pass: b.pass_at_k, present: b.answer_present_rate, presentSe: b.answer_present_rate_se, tokens: b.mean_response_tokens } as CapabilityRow]),
      ),
      macro: { pass: r.capability.macro.pass_at_k } as CapabilityRow,
    },
  );
  if (rows.length === 0) return undefined;
  const ks = sortedKs(rows.map((row) => row.value.pass));
  const withBenchmark = severalBenchmarks(entries);
  const header = ['model', ...(withBenchmark ? ['benchmark'] : []), ...ks.map((k) => `pass@${k} (%)`), 'answer present (%)', 'response tokens'];
  const body = rows.map(({ label, benchmark, value }) => [
    label,
    ...(withBenchmark ? [benchmark] : []),
    ...ks.map((k) => (value.pass[k] ? percentEstimate(value.pass[k]) : DASH)),
    value.present === undefined ? DASH : percentWithSe(value.present, value.presentSe),
    value.tokens === undefined ? DASH : value.tokens.toFixed(1),
  ]);
  return markdownTable(header, body);
}

interface CapabilityRow {
  pass: PassAtK;
  present?: number;
  presentSe?: number;
  tokens?: number;
}

/** A benchmark's handoff statistics or the macro average (which has no answer-present rate). */
type HandoffRow = HandoffResult['macro'] & Partial<Pick<HandoffBenchmark, 'answer_present_rate' | 'answer_present_rate_se'>>;

export const handoffVariantName = (h: Pick<HandoffResult, 'variant' | 'p'>): string =>
  h.variant === 'alternate' ? 'strict alternation' : h.variant === 'word' ? `word handoff, Bernoulli(${h.p})` : `Bernoulli(${h.p})`;

/**
 * Tables: handoff robustness per schedule variant, team pass@k ± SE with the senior's share (mean ± std over
 * rollouts), handoffs per rollout and the answer-present rate, ± SE where the report has one.
 */
export function handoffTables(entries: readonly LabelledReport[]): Array<{ variant: string; table: string }> {
  const variants = [...new Set(entries.flatMap(({ report }) => (report.handoff ?? []).map(handoffVariantName)))];
  return variants.map((variant) => {
    const rows = benchmarkRows<HandoffRow>(entries, (r) => {
      const h = r.handoff?.find((candidate) => handoffVariantName(candidate) === variant);
      return h && { perBenchmark: h.per_benchmark, macro: h.macro };
    });
    const ks = sortedKs(rows.map((row) => row.value.pass_at_k));
    const withBenchmark = severalBenchmarks(entries);
    const withShareSe = rows.some((row) => row.value.senior_share.mean_se !== undefined);
    const header = ['model', ...(withBenchmark ? ['benchmark'] : []), ...ks.map((k) => `pass@${k} (%)`), `senior share (%, mean ± std${withShareSe ? '; SE of the mean' : ''})`, 'handoffs / rollout', 'answer present (%)'];
    const body = rows.map(({ label, benchmark, value }) => [
      label,
      ...(withBenchmark ? [benchmark] : []),
      ...ks.map((k) => (value.pass_at_k[k] ? percentEstimate(value.pass_at_k[k]) : DASH)),
      shareCell(value.senior_share),
      withSe(value.handoffs_per_rollout.toFixed(2), value.handoffs_per_rollout_se?.toFixed(2)),
      value.answer_present_rate === undefined ? DASH : percentWithSe(value.answer_present_rate, value.answer_present_rate_se),
    ]);
    return { variant, table: markdownTable(header, body) };
  });
}

/** Table: drift from the junior — KL, the displaced-token analysis against a reference, the most over-emitted tokens. */
export function driftTable(entries: readonly LabelledReport[], overEmitted = 5): string | undefined {
  const rows = entries.flatMap(({ label, report }) => (report.drift ? [{ label, report, drift: report.drift }] : []));
  if (rows.length === 0) return undefined;
  const labelOf = labeller(entries);
  const header = ['model', 'tokens generated', 'KL(model ‖ junior) (nats)', 'vs reference', 'shift-back share (%)', 'Spearman ρ', `top ${overEmitted} over-emitted tokens (model / junior count)`];
  const body = rows.map(({ label, report, drift }) => {
    const displaced = drift.displaced;
    return [
      label,
      String(drift.tokens.model),
      estimate(drift.kl),
      displaced && report.reference ? `${labelOf(report.reference)} (top ${displaced.top})` : DASH,
      displaced ? withSe((displaced.shift_back_share * 100).toFixed(1), displaced.shift_back_share_se === undefined ? undefined : (displaced.shift_back_share_se * 100).toFixed(1)) : DASH,
      displaced ? `${withSe(signed(displaced.spearman.rho, 3), displaced.spearman_rho_se?.toFixed(3))} (p ${pValue(displaced.spearman.p).replace(/\*+$/, '')})` : DASH,
      drift.over_emitted.slice(0, overEmitted).map((t) => `${tokenText(t.text)} ${t.model_count}/${t.junior_count}`).join(', ') || DASH,
    ];
  });
  return markdownTable(header, body, ['left', 'right', 'right', 'left', 'right', 'right', 'left']);
}

/** Table: junior legibility — the junior's per-token cross-entropy on the model's chain of thought, and overlap α (the paper's Table 1). */
export function legibilityTable(entries: readonly LabelledReport[]): string | undefined {
  const rows = benchmarkRows(
    entries,
    (r) =>
      r.legibility && {
        perBenchmark: r.legibility.per_benchmark,
        macro: { ...r.legibility.macro, tokens: Object.values(r.legibility.per_benchmark).reduce((sum, b) => sum + b.tokens, 0) },
      },
  );
  if (rows.length === 0) return undefined;
  const withBenchmark = severalBenchmarks(entries);
  const header = ['model', ...(withBenchmark ? ['benchmark'] : []), 'junior cross-entropy (nats/token, ↓)', 'overlap α (↑)', 'tokens scored'];
  const body = rows.map(({ label, benchmark, value }) => [
    label,
    ...(withBenchmark ? [benchmark] : []),
    estimate(value.cross_entropy),
    estimate(value.overlap),
    String(value.tokens),
  ]);
  return markdownTable(header, body);
}

/** Table: paired one-sided tests (the paper's Table 3), Holm-corrected across all of them; with the family size. */
export function significanceTable(entries: readonly LabelledReport[], comparisons: readonly Comparison[]): { table: string; family: number } | undefined {
  const listed = comparisons.flatMap(({ model, significance }) => significance.tests.map((test) => ({ model, other: significance.other, test })));
  if (listed.length === 0) return undefined;
  const corrected = correctFamily(listed.map(({ test }) => test));
  const labelOf = labeller(entries);
  const body = listed.map(({ model, other, test }, i) => [`${labelOf(model)} ${test.alternative === 'greater' ? '>' : '<'} ${labelOf(other)}`, test.metric, ...testCells(corrected[i])]);
  return { table: markdownTable(['comparison', 'metric', ...TEST_COLUMNS], body), family: corrected.length };
}

const withSe = (value: string, se: string | undefined): string => (se === undefined ? value : `${value} ± ${se}`);

/** A rate in percent, ± its SE in percent where there is one. */
const percentWithSe = (rate: number, se: number | undefined): string => withSe((rate * 100).toFixed(1), se === undefined ? undefined : (se * 100).toFixed(1));

/** Senior share as mean ± std over rollouts, with the bootstrap SE of the mean where the report has one. */
function shareCell(share: ShareStats): string {
  const cell = `${(share.mean * 100).toFixed(1)} ± ${(share.std * 100).toFixed(1)}`;
  return share.mean_se === undefined ? cell : `${cell}; ${(share.mean_se * 100).toFixed(1)}`;
}

/** Models are named by their label where one of the reports is theirs, else by their path. */
function labeller(entries: readonly LabelledReport[]): (model: string) => string {
  const labels = new Map(entries.map(({ label, report }) => [report.model, label]));
  return (model) => labels.get(model) ?? model;
}
