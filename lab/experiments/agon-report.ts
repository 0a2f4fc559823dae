import { join } from 'node:path';
import { readJsonl } from '../../engine/trainer/jsonl-log.ts';
import type { MetricsLine } from '../../engine/trainer/metrics-line.ts';
import { METRICS_FILE } from '../../engine/trainer/trainer.ts';
import { pathExists, writeFileAtomically } from '../../native/io/files.ts';
import type { Estimate, PassAtK } from '../eval/report-types.ts';
import { correctClaims, SIGNIFICANCE_LEVEL } from '../eval/significance.ts';
import { markdownTable, percentEstimate, pValue, signed } from '../reports/markdown.ts';
import { claimsPreamble, claimsTable, TEST_COLUMNS, testCells, type Claim } from '../reports/significance-columns.ts';
import { linePlot, type LineSeries } from '../reports/plots/line-plot.ts';
import { passAtKPlot } from '../reports/plots/pass-at-k-plot.ts';
import { svgToPng } from '../reports/plots/rasterize.ts';
import type { Figure } from '../reports/report-plots.ts';
import { AGON_CLAIMS, AGON_ROWS, ROW_LABELS, type AgonArm, type AgonExperimentConfig, type AgonRow } from './agon-experiment-config.ts';
import type { AgonExperimentResult, AgonRowResult, TrainingConversions } from './agon-result.ts';
export type { TrainingConversions } from './agon-result.ts';
import { costTable } from './tango-report.ts';
import { present } from '../../core/errors.ts';

export const AGON_REPORT = 'report.md';

type Result = Omit<AgonExperimentResult, 'report'>;

const ARM_DESCRIPTIONS: Record<AgonArm, string> = {
  agon: 'Agon (two rank-16 LoRA adapters A and B, roles swapping every step)',
  'fixed-roles': 'fixed roles (A always drafts)',
  cooperative: 'cooperative exchange (conversion bonus 0)',
  'self-refinement': 'self-refinement (one adapter challenging its own draft)',
  grpo: 'vanilla GRPO (one rank-16 adapter, one pass)',
};

const pct = (e: Estimate | undefined) => (e ? percentEstimate(e) : '–');
const tokens = (e: Estimate | number | undefined) => (e === undefined ? '–' : typeof e === 'number' ? e.toFixed(1) : `${e.value.toFixed(1)} ± ${e.se.toFixed(1)}`);

/** What the report needs of any row, single pass or cascade. */
interface RowView {
  readonly generations: number;
  readonly passAtK: PassAtK;
  readonly answerPresent: Estimate | undefined;
  readonly draftPass1?: Estimate;
  readonly converted?: Estimate;
  readonly regressed?: Estimate;
  readonly summaryReveals?: Estimate;
  /** Mean tokens of the answering (last) pass; of drafting (every earlier pass); the summary prefill. */
  readonly lastTokens: Estimate | number;
  readonly draftTokens?: Estimate;
  readonly prefill?: Estimate;
}

/** A row's correct answers per problem, out of its n. */
export function perProblemOf(row: AgonRowResult): { n: number; perProblem: { id: string; correct: number }[] } {
  if (row.kind === 'cascade') return { n: row.result.samples, perProblem: row.result.per_problem.map(({ id, correct }) => ({ id, correct })) };
  return { n: present(row.report.capability, 'the capability axis of a single-pass report').samples, perProblem: row.report.per_problem.map((p) => ({ id: p.id, correct: p.capability_correct ?? 0 })) };
}

function view(row: AgonRowResult): RowView {
  if (row.kind === 'cascade') {
    const r = row.result;
    return {
      generations: r.generations,
      passAtK: r.pass_at_k,
      answerPresent: r.answer_present_rate,
      draftPass1: r.draft_pass_at_k['1'],
      converted: r.converted,
      regressed: r.regressed,
      ...(r.summary_reveals ? { summaryReveals: r.summary_reveals } : {}),
      lastTokens: r.trace_tokens.challenge,
      draftTokens: r.trace_tokens.draft,
      prefill: r.trace_tokens.summary_prefill,
    };
  }
  const b = Object.values(present(row.report.capability, 'the capability axis of a single-pass report').per_benchmark)[0];
  return { generations: 1, passAtK: b.pass_at_k, answerPresent: b.answer_present_rate_se === undefined ? undefined : { value: b.answer_present_rate, se: b.answer_present_rate_se }, lastTokens: b.mean_response_tokens };
}

/**
 * The experiment's report: how it was run, every model's pass@k (single passes and cascades at the same per-generation
 * cap) with paired tests, the ablation table, per-stage trace lengths, each run's training and what every phase cost.
 * Writes report.md, report.json and each figure as SVG and PNG into the experiment directory.
 */
export async function writeAgonReport(result: Result, config: AgonExperimentConfig, environment: { machine: string }): Promise<string> {
  const rows = AGON_ROWS.flatMap((row) => (result.rows[row] ? [[row, view(result.rows[row])] as const] : []));
  const figures = [passFigure(rows), await trainingFigure(result)].filter((f): f is Figure => f !== undefined);
  const sections = [
    `# Agon against vanilla GRPO, with its ablations and an untrained Mixture-of-Agents`,
    notes(result, config),
    `## pass@k on ${config.eval.problems} test problems × ${config.eval.samples} answers (T = ${config.eval.temperature})`,
    mainTable(rows),
    identicalRows(result),
    ...figures.slice(0, 1).map((f) => `![${f.caption}](${f.name}.png)\n\n*${f.caption}*`),
    `## Paired tests`,
    testsTable(result),
    `## Do A and B answer differently?`,
    divergenceSection(result, config),
    `## What this run says of the paper's claims`,
    claimsSection(result),
    `## Ablations (§5)`,
    ablationTable(result, rows),
    `## Trace lengths per stage`,
    traceTable(rows, result.turnTokens),
    `## Training`,
    await trainingTable(result),
    ...figures.slice(1).map((f) => `![${f.caption}](${f.name}.png)\n\n*${f.caption}*`),
    `## Cost on this machine`,
    costTable(result, environment),
  ];
  const markdown = `${sections.join('\n\n')}\n`;
  await writeFileAtomically(join(result.out, AGON_REPORT), markdown);
  await writeFileAtomically(join(result.out, 'report.json'), `${JSON.stringify({ config, ...result }, null, 2)}\n`);
  for (const figure of figures) {
    await writeFileAtomically(join(result.out, `${figure.name}.svg`), figure.svg);
    await writeFileAtomically(join(result.out, `${figure.name}.png`), svgToPng(figure.svg, 1440));
  }
  return join(result.out, AGON_REPORT);
}

/** What the GRPO run was paid, from its own config: Agon's correctness-and-format reward, or correctness alone. */
function grpoPaid(result: Result): string {
  const knobs = result.arms.find((a) => a.arm === 'grpo')?.config.knobs as { correctWeight?: number; formatWeight?: number } | undefined;
  if (!knobs) return 'was not trained here';
  const correct = knobs.correctWeight ?? 1;
  const format = knobs.formatWeight ?? 0;
  return format === 0 && correct === 1 ? 'was paid 1 for a right answer and 0 otherwise, while every Agon arm is paid for correctness and format' : `was paid ${correct} · correct + ${format} · format, as the Agon arms are`;
}

function notes(result: Result, config: AgonExperimentConfig): string {
  const agon = present(result.arms.find((a) => a.arm === 'agon') ?? result.arms[0], 'a trained arm').config;
  const knobs = Object.entries(agon.knobs).map(([k, v]) => `${k} ${JSON.stringify(v)}`);
  return [
    `${result.arms.length === 1 ? 'One run' : `${result.arms.length} runs`} from one frozen base (\`${result.base}\`), task \`${config.task}\`, seed ${config.seed}, ${config.steps} optimizer steps each: ` +
      `${result.arms.map((arm) => ARM_DESCRIPTIONS[arm.arm]).join('; ')}. Each step: ${agon.problemsPerStep} problems × groups of ${agon.groupSize}, ` +
      `advantage \`${agon.advantage}\` (zero-variance groups dropped in every run, GRPO's too, as the paper's GRPO drops them), learning rate ${agon.schedule.lr}, rollout temperature ${agon.temperature}, grader \`${agon.grader}\`` +
      `${knobs.length > 0 ? `; agon knobs ${knobs.join(', ')}` : ''} (every other knob at its default: see games/agon/agon.ts). Every Agon adapter and the GRPO adapter take one update per step on ${agon.problemsPerStep * agon.groupSize} generations of its own.`,
    `**Not the paper's** (docs/experiments/protocol.md): the learning rate ${agon.schedule.lr} (ours; the paper gives none); vanilla GRPO ${grpoPaid(result)}; the withheld summary keeps the draft's working, which on arithmetic spells its answer (the cascades' "summary spells the draft's answer" column).`,
    `**Budget.** Every generation, in every model, is capped at ${result.turnTokens} tokens (the agon turn cap; GRPO trains and answers at the same cap). A cascade answer costs two capped generations (the draft, then the challenge that reads the draft's summary, its final answer withheld); a one-pass model's pass@2 spends the same two generations with an oracle picking the better, so "Agon pass@1 vs GRPO pass@2" is the generation-count-matched comparison and pass@1 vs pass@1 the per-answer one. The summary the challenger reads is extra prefill, reported apart (the paper does not equalize it either, §4).`,
    `**Mixture-of-Agents** (untrained, the paper's §1/§5 baseline "an untrained Mixture-of-Agents pass over the same base"): ${config.moaProposals} proposals, each a draft by the base from the plain prompt, then one more base pass that reads every proposal's summary (answers withheld, as Agon's challenger reads one) and answers: ${config.moaProposals + 1} generations per answer. At one proposal it is the base → base cascade, the two-pass-matched MoA, shown beside it.`,
    `**Direction.** The paper picks the better cascade direction post hoc (§6); here A → B is the pre-registered direction and B → A is shown beside it, untested.`,
    `Numbers are what this run measured, ± one bootstrap standard error over problems; the paired tests, Holm-corrected over the experiment's claims, say which gaps are more than the noise of these test problems for these trained models. At this scale (a few million parameters pretrained on generated problems, tens of steps, the seed above) read them as a test of the machinery and the direction, not a reproduction of the paper's magnitudes: the small base, pretrained on plain prompts, mostly continues the draft's summary, so the challenger's answer tracks the draft's and conversions are rare.`,
  ].join('\n\n');
}

function mainTable(rows: readonly (readonly [AgonRow, RowView])[]): string {
  const ks = Object.keys(rows[0]?.[1].passAtK ?? {});
  const body = rows.map(([row, v]) => [
    ROW_LABELS[row],
    String(v.generations),
    ...ks.map((k) => pct(v.passAtK[k])),
    pct(v.answerPresent),
    pct(v.draftPass1),
    pct(v.converted),
    pct(v.regressed),
    pct(v.summaryReveals),
  ]);
  return `${markdownTable(['model', 'generations per answer', ...ks.map((k) => `pass@${k} (%)`), 'answer present (%)', 'draft pass@1 (%)', 'converted (%)', 'regressed (%)', "summary spells the draft's answer (%)"], body)}\n\n"Draft pass@1" is the cascade's first stage alone; "converted": every draft wrong and the challenge right; "regressed": a draft right and the challenge wrong (pass@1 − draft pass@1 = converted − regressed for one draft). "Summary spells the draft's answer": the challenger's withheld summary of the first draft keeps working (on arithmetic, each column's \`Write d\`) that reads the draft's own final answer, so that answer was withheld in name only.`;
}

/** Whether a test is the one an Agon claim rests on. */
const isClaimTest = (claim: (typeof AGON_CLAIMS)[number], t: Result['tests'][number]) =>
  claim.metric !== 'training' && t.model === claim.model && t.other === claim.other && t.other_k === claim.k && (claim.metric === 'converted') === (t.metric === 'converted');

/** The report's tests in two Holm families: the experiment's claims (AGON_CLAIMS, docs/experiments/protocol.md) and the others. */
function reportTests(result: Result) {
  return correctClaims(result.tests, (t) => AGON_CLAIMS.some((claim) => isClaimTest(claim, t)), AGON_CLAIMS.length);
}

function claimsSection(result: Result): string {
  const tests = reportTests(result);
  const claims: Claim[] = AGON_CLAIMS.map((claim) => ({
    claim: claim.claim,
    evidence:
      claim.metric === 'training'
        ? `${ROW_LABELS[claim.model]} > ${ROW_LABELS[claim.other]}: conversions per wrong draft in training, step by step (tested across seeds only)`
        : `${ROW_LABELS[claim.model]} pass@1 > ${ROW_LABELS[claim.other]} ${claim.metric === 'converted' ? 'on answers converting a wrong draft' : `pass@${claim.k}`}`,
    test: tests.find((t) => isClaimTest(claim, t)),
  }));
  return `Each claim rests on the one comparison of the design that isolates it, read from the claims' Holm family above. This is one training run: a claim about the training procedure rests on the test across seeds, where the experiment ran several.\n\n${claimsTable(claims)}`;
}

function testsTable(result: Result): string {
  const tests = reportTests(result);
  const claims = tests.filter((t) => t.claim).length;
  const rows = tests.map((t) => [`${ROW_LABELS[t.model]} > ${ROW_LABELS[t.other]}`, t.metric, t.claim ? 'claim' : 'other', ...testCells(t)]);
  return `${claimsPreamble(AGON_CLAIMS.length, claims, tests.length - claims)} Per-problem pass rates, or for \`converted\` each problem's share of answers converting a wrong draft, problems paired by id (H1: the first is higher).\n\n${markdownTable(['comparison', 'metric', 'family', ...TEST_COLUMNS], rows)}`;
}

function ablationTable(result: Result, rows: readonly (readonly [AgonRow, RowView])[]): string {
  const of = (row: AgonRow) => rows.find(([r]) => r === row)?.[1];
  const corrected = reportTests(result);
  const test = (other: AgonRow) => corrected.find((t) => t.model === 'agon' && t.other === other && t.other_k === 1);
  const agon = of('agon');
  const lines: [AgonRow, string, string, string, string][] = [
    ['agon', 'yes', 'yes', 'yes', 'two'],
    ['fixed-roles', 'no', 'yes', 'yes', 'two'],
    ['cooperative', 'yes', 'no', 'yes', 'two'],
    ['self-refinement', '–', 'yes', 'yes', 'one'],
    ['grpo', '–', '–', 'no', 'one'],
  ];
  const body = lines.filter(([row]) => of(row) !== undefined).map(([row, rotation, competition, exchange, policies]) => {
    const v = of(row);
    const t = test(row);
    return [ROW_LABELS[row], rotation, competition, exchange, policies, pct(v?.passAtK['1']), agon && v && row !== 'agon' ? signed((agon.passAtK['1'].value - v.passAtK['1'].value) * 100, 1) : '–', t ? `${pValue(t.p_holm).replace(/\*+$/, '')}${t.p_holm < SIGNIFICANCE_LEVEL ? '' : ' (not significant)'}` : '–'];
  });
  return `The paper's §5 ablations (61 pass@1 for Agon against 52 with fixed roles; 32 for competition against 30 for cooperative exchange):\n\n${markdownTable(['run', 'role rotation', 'conversion bonus', 'exchange (reads a draft)', 'policies', 'pass@1 (%)', 'Agon − run (points)', 'p (Agon higher, Holm)'], body)}`;
}

function traceTable(rows: readonly (readonly [AgonRow, RowView])[], cap: number): string {
  const body = rows.map(([row, v]) => [ROW_LABELS[row], tokens(v.draftTokens), tokens(v.lastTokens), tokens(v.prefill)]);
  return `Mean tokens per answer (± bootstrap SE over problems; the one-pass rows' single pass in the answering column), every generation capped at ${cap}. The paper compares the final stage with a single GRPO pass (3.5k vs 8.1k tokens) and does not report drafting tokens; both are here.\n\n${markdownTable(['model', 'drafting (all drafts)', 'answering pass', 'summary prefill'], body)}`;
}

function passFigure(rows: readonly (readonly [AgonRow, RowView])[]): Figure | undefined {
  if (rows.length === 0) return undefined;
  const series = rows.map(([row, v]) => ({ label: ROW_LABELS[row], points: Object.entries(v.passAtK).map(([k, e]) => ({ k: Number(k), value: e.value, se: e.se })) }));
  return {
    name: 'pass-at-k',
    caption: 'pass@k of every model on the same test problems and seeds (±1 bootstrap SE)',
    svg: passAtKPlot(series, { title: 'pass@k: one pass, cascades and the Mixture-of-Agents', subtitle: 'each generation at the same token cap; a cascade answer is two generations', yDomain: [0, 1] }),
  };
}

async function metricsOf(result: Result, arm: string): Promise<MetricsLine[]> {
  return metricsIn(join(result.out, arm));
}

async function metricsIn(dir: string): Promise<MetricsLine[]> {
  const path = join(dir, METRICS_FILE);
  return (await pathExists(path)) ? readJsonl<MetricsLine>(path) : [];
}

/** The conversions a run's metrics.jsonl records (Agon's challenger labels `converted` and `draft_correct`). */
export async function trainingConversions(dir: string): Promise<TrainingConversions> {
  const steps = (await metricsIn(dir)).flatMap((line) => {
    const role = line.roles.challenger as Record<string, unknown> | undefined;
    const [converted, draftCorrect] = [role?.converted, role?.draft_correct];
    if (typeof converted !== 'number' || typeof draftCorrect !== 'number') return [];
    return [{ step: line.step, converted, draft_correct: draftCorrect, per_wrong_draft: draftCorrect < 1 ? converted / (1 - draftCorrect) : null }];
  });
  const wrong = steps.reduce((a, s) => a + 1 - s.draft_correct, 0);
  return { steps, per_wrong_draft: wrong > 0 ? steps.reduce((a, s) => a + s.converted, 0) / wrong : null };
}

/** How often each pair's adapters, answering alone on the same problems and seeds, give different final answers. */
function divergenceSection(result: Result, config: AgonExperimentConfig): string {
  const entries = Object.entries(result.divergence) as [AgonArm, Result['divergence'][AgonArm]][];
  if (entries.length === 0) return 'No two-adapter run was trained here.';
  const body = entries.map(([arm, d]) => [arm, `${d!.problems_differing} of ${d!.problems} (${(100 * d!.problem_share).toFixed(1)}%)`, `${d!.samples_differing} of ${d!.problems * d!.samples} (${(100 * d!.sample_share).toFixed(1)}%)`]);
  return (
    `Each adapter of the run answers the ${config.eval.problems} test problems alone, from the plain prompt, ${config.eval.samples} samples each, on the same sampling seeds as the other (T = ${config.eval.temperature}, cap ${result.turnTokens}): ` +
    `with the same random numbers drawn, identical weights give identical answers, so every difference is the adapters'. A final answer is the last \\boxed{} (none: no answer, equal to another none).\n\n` +
    markdownTable(['run', 'problems with a differing final answer', 'samples with differing final answers'], body)
  );
}

/** The answering role of each run: Agon's challenger, GRPO's only role. */
const answering = (arm: string) => (arm === 'grpo' ? 'senior' : 'challenger');

async function trainingFigure(result: Result): Promise<Figure | undefined> {
  const series: LineSeries[] = [];
  for (const arm of result.arms) {
    const lines = await metricsOf(result, arm.arm);
    const points = lines.flatMap((l) => {
      const y = l.roles[answering(arm.arm)]?.correct;
      return typeof y === 'number' ? [{ x: l.step, y }] : [];
    });
    if (points.length > 0) series.push({ label: arm.arm === 'grpo' ? 'GRPO (its answer)' : `${arm.arm} (challenger)`, points });
  }
  if (series.length === 0) return undefined;
  return {
    name: 'training-correct',
    caption: "Share of training answers correct per step: the challenger's in the Agon runs, GRPO's own",
    svg: linePlot(series, { title: 'Training: answers correct per step', subtitle: 'on the step’s training problems; the challenger reads the draft’s summary', xLabel: 'optimizer step', yLabel: 'fraction correct', yDomain: [0, 1] }),
  };
}

async function trainingTable(result: Result): Promise<string> {
  const rows: string[][] = [];
  for (const arm of result.arms) {
    const lines = await metricsOf(result, arm.arm);
    const mean = (slice: readonly MetricsLine[], role: string) => {
      const values = slice.map((l) => l.roles[role]?.correct).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
      return values.length === 0 ? '–' : (values.reduce((a, v) => a + v, 0) / values.length).toFixed(3);
    };
    const trend = (role: string) => `${mean(lines.slice(0, 5), role)} → ${mean(lines.slice(-5), role)}`;
    const conversions = result.training[arm.arm]?.per_wrong_draft;
    rows.push([arm.arm, String(lines.length), arm.arm === 'grpo' ? '–' : trend('drafter'), trend(answering(arm.arm)), conversions === undefined || conversions === null ? '–' : `${(100 * conversions).toFixed(1)}%`, lines.reduce((a, l) => a + l.seconds, 0).toFixed(0)]);
  }
  return `${markdownTable(['run', 'steps', 'drafter correct, first → last 5 steps', 'answer correct (challenger; GRPO its own), first → last 5', 'conversions per wrong draft (all steps)', 'training wall (s)'], rows)}\n\n(Each run's metrics.jsonl and transcripts.jsonl are in its directory; \`npx ludus serve --runs DIR\` replays its matches.)`;
}

/**
 * Rows that answered every problem alike (the same correct counts, and for cascades the same draft counts): on the same
 * seeds, models trained identically or not changed by training. Said outright, so a reader does not take their equal
 * numbers for equal skill reached separately.
 */
function identicalRows(result: Result): string {
  const groups = new Map<string, AgonRow[]>();
  for (const row of AGON_ROWS) {
    const r = result.rows[row];
    if (!r) continue;
    const drafts = r.kind === 'cascade' ? r.result.per_problem.map((p) => p.draft_correct) : [];
    const key = JSON.stringify([r.kind, perProblemOf(r).perProblem.map((p) => [p.id, p.correct]), drafts]);
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  const same = [...groups.values()].filter((rows) => rows.length > 1);
  if (same.length === 0) return 'No two models answered every problem alike.';
  return `Answered every problem exactly alike (per-problem correct answers${same.some((rows) => result.rows[rows[0]]?.kind === 'cascade') ? ' and drafts' : ''}, same seeds): ${same.map((rows) => rows.map((row) => ROW_LABELS[row]).join(' = ')).join('; ')}. Their equal numbers do not separate their games: either their trainings were identical (a knob that never acted, such as a conversion bonus with no conversion in training) or training changed nothing they sample.`;
}
