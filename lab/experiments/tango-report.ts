import { join } from 'node:path';
import { readJsonl } from '../../engine/trainer/jsonl-log.ts';
import type { MetricsLine } from '../../engine/trainer/metrics-line.ts';
import { METRICS_FILE } from '../../engine/trainer/trainer.ts';
import { pathExists, writeFileAtomically } from '../../native/io/files.ts';
import type { Estimate as VerifierEstimate, VerifierEvalResult } from '../eval/verifier-eval.ts';
import { correctClaims } from '../eval/significance.ts';
import { markdownTable } from '../reports/markdown.ts';
import { claimsPreamble, claimsTable, TEST_COLUMNS, testCells, type Claim } from '../reports/significance-columns.ts';
import { linePlot, type LineSeries } from '../reports/plots/line-plot.ts';
import { svgToPng } from '../reports/plots/rasterize.ts';
import type { Figure } from '../reports/report-plots.ts';
import { ARM_LABELS, TANGO_CLAIMS, type TangoArm, type TangoExperimentConfig } from './tango-experiment-config.ts';
import type { CurvePoint, TangoArmResult, TangoExperimentResult } from './tango-result.ts';
import { present } from '../../core/errors.ts';

export const TANGO_REPORT = 'report.md';

const pct = (e: { value: number; se: number } | null | undefined) => (e ? `${(e.value * 100).toFixed(1)} ± ${(e.se * 100).toFixed(1)}` : '–');
const num = (x: number | null | undefined, digits = 3) => (x === null || x === undefined || Number.isNaN(x) ? '–' : x.toFixed(digits));
const est = (e: VerifierEstimate) => (e ? `${e.value.toFixed(3)} ± ${e.se.toFixed(3)}` : 'undefined');

/**
 * The experiment's report: how it was run, the three panels of Figure 4 from the runs' validations, the final
 * generators' pass@1 and verifiers' F1 on shared test problems with paired tests, each run's training, and what every
 * phase cost on this machine. Writes report.md, report.json and each figure as SVG and PNG into the experiment directory.
 */
export async function writeTangoReport(result: Omit<TangoExperimentResult, 'report'>, config: TangoExperimentConfig, environment: { machine: string }): Promise<string> {
  const figures = curveFigures(result);
  const sections = [
    `# RL Tango against vanilla GRPO, with the generator or the verifier fixed (Figure 4)`,
    notes(result, config),
    `## Training curves (Figure 4)`,
    `Each point is a run's own validation on the first ${result.arms[0].config.validationProblems} validation problems of \`${config.task}\`${validationSourceText(result)} (the problems that select checkpoints, never the test problems of the final evaluation): one match per problem, the generator's solution graded, the verifier's verdicts scored against the grader and the gold-path step labels. Step 0 is the base as both policies. A fixed policy is the base's; its curve is drawn on Tango's timeline (the fixed verifier at the verifier steps Tango had taken by the same generator step, the fixed generator at Tango's generator steps by the same verifier step).`,
    ...figures.map((f) => `![${f.caption}](${f.name}.png)\n\n*${f.caption}*`),
    curveTable(result),
    `## Final generators: pass@1 on ${config.eval.problems} test problems × ${config.eval.samples} samples (${config.eval.temperature === 0 ? 'greedy decoding, as the paper evaluates' : `T = ${config.eval.temperature}`})`,
    generatorTable(result),
    `## Final verifiers: ${config.eval.problems} test problems, ${config.eval.verifierTemperature === 0 ? `${config.eval.verifierSamples} solution(s) each sampled at T = ${config.eval.solutionTemperature}, each judged once by greedy decoding, as the paper evaluates` : `one solution each sampled at T = ${config.eval.solutionTemperature}, × ${config.eval.verifierSamples} verifications (M) at T = ${config.eval.verifierTemperature}`}`,
    `On the base generator's solutions (fixed, the same for every verifier):`,
    verifierTable(result.verifiers),
    `On Tango's final generator's solutions (the evolving generator the co-trained verifier judged in training):`,
    verifierTable(result.verifiersOnTango),
    `## Paired tests`,
    testsSection(result),
    `## What this run says of the paper's claims`,
    claimsSection(result),
    `## Training`,
    await trainingTable(result),
    `## Cost on this machine`,
    costTable(result, environment),
  ];
  const markdown = `${sections.join('\n\n')}\n`;
  await writeFileAtomically(join(result.out, TANGO_REPORT), markdown);
  await writeFileAtomically(join(result.out, 'report.json'), `${JSON.stringify({ config, ...result }, null, 2)}\n`);
  for (const figure of figures) {
    await writeFileAtomically(join(result.out, `${figure.name}.svg`), figure.svg);
    await writeFileAtomically(join(result.out, `${figure.name}.png`), svgToPng(figure.svg, 1440));
  }
  return join(result.out, TANGO_REPORT);
}

function notes(result: Omit<TangoExperimentResult, 'report'>, config: TangoExperimentConfig): string {
  const tango = present(result.arms.find((a) => a.arm === 'tango'), 'the tango arm');
  const c = tango.config;
  const knobs = Object.entries(c.knobs).filter(([k]) => k !== 'ablation').map(([k, v]) => `${k} ${JSON.stringify(v)}`);
  return [
    `Four runs from one base (\`${result.base}\`, both policies), task \`${config.task}\`, training seed ${result.seed}, at matched generator steps: ` +
      `${config.generatorSteps} generator updates each for Tango, vanilla GRPO and the fixed verifier; the fixed generator takes Tango's ${tango.verifierUpdates} verifier updates. ` +
      `Tango ran ${tango.steps} steps (its verifier warm-up, then ${c.knobs.generatorSteps ?? 3} generator : ${c.knobs.verifierSteps ?? 1} verifier). ` +
      `Each step: ${c.problemsPerStep} problems × groups of ${c.groupSize}, advantage estimator \`${c.advantage}\`, loss normalization \`${c.normalization}\`${c.normalization === 'sequence-mean' ? " (the paper's Eq. 1)" : ''}, learning rate ${c.schedule.lr}, rollout temperature ${c.temperature}, prompts by the \`${c.chatTemplate === 'on' ? 'chat template where the tokenizer has one' : 'plain prompt'}\` rule, grader \`${c.grader}\`` +
      `${knobs.length > 0 ? `; tango knobs ${knobs.join(', ')}` : ''} (the tango knobs not set here at the paper's values: see games/tango.ts).`,
    `**Not the paper's** (docs/experiments/protocol.md): ${tangoDepartures({ task: config.task, base: result.base, lr: c.schedule.lr, groupSize: c.groupSize, generatorSteps: config.generatorSteps }).join(', ')}.${config.task === 'last-letter' ? ` The verifier's supervised start, \`${result.base}\`, is the paper's on this task: its last-letter ablation gives both policies several dozen SFT steps on the format first (§4.3, Appendix B).` : ''}`,
    `Numbers are what this run measured, ± one bootstrap standard error over problems: that is the spread over test problems of one training run, not over training seeds (the seeds summary, where the experiment ran several, gives that). The paired tests, Holm-corrected over the experiment's claims, say which gaps are more than the noise of these test problems for these trained models. At this scale (a few million parameters, tens of steps) read them as a test of the machinery and of the direction, not as a reproduction of the paper's magnitudes.`,
  ].join('\n\n');
}

/**
 * What a run does not take from the paper, each with the paper's value. The verifier's start departs only off
 * last-letter: the paper's verifier starts from the base without SFT (§4.1), while its last-letter ablation supervises
 * both policies on the format first (§4.3, Appendix B), as the shipped bases are.
 */
export function tangoDepartures(run: { task: string; base: string; lr: number; groupSize: number; generatorSteps: number }): string[] {
  return [
    `the learning rate ${run.lr} (the paper's is 1e-6, §4)`,
    `groups of ${run.groupSize} (the paper's 5)`,
    `${run.generatorSteps} generator updates (the paper's 200)`,
    ...(run.task === 'last-letter' ? [] : [`the verifier's start, \`${run.base}\` (the paper's verifier starts from the base without SFT, §4.1; the shipped bases were supervised on verification examples)`]),
  ];
}

/** Tango's count of `to` updates at the first validation where its `from` updates reached `value`: a fixed policy's timeline. */
function tangoTimeline(tango: TangoArmResult, from: 'generatorUpdates' | 'verifierUpdates', value: number, to: 'generatorUpdates' | 'verifierUpdates'): number {
  const points = [...tango.curve].sort((a, b) => a.step - b.step);
  const at = points.find((p) => p[from] >= value) ?? points[points.length - 1];
  return at ? at[to] : 0;
}

function curveFigures(result: Omit<TangoExperimentResult, 'report'>): Figure[] {
  const tango = present(result.arms.find((a) => a.arm === 'tango'), 'the tango arm');
  const start = result.baseCurvePoint;
  const series = (pick: (p: CurvePoint) => number | null, x: (arm: TangoArmResult, p: CurvePoint) => number, arms: readonly TangoArmResult[]): LineSeries[] =>
    arms.map((arm) => ({
      label: ARM_LABELS[arm.arm],
      points: [start, ...arm.curve].flatMap((p) => {
        const y = pick(p);
        return y === null ? [] : [{ x: p === start ? 0 : x(arm, p), y }];
      }),
    }));
  // A fixed policy's curve is drawn on Tango's timeline: at the updates Tango's policy had made by the same point.
  const verifierX = (arm: TangoArmResult, p: CurvePoint) => (arm.arm === 'fixed-verifier' ? tangoTimeline(tango, 'generatorUpdates', p.generatorUpdates, 'verifierUpdates') : p.verifierUpdates);
  const generatorX = (arm: TangoArmResult, p: CurvePoint) => (arm.arm === 'fixed-generator' ? tangoTimeline(tango, 'verifierUpdates', p.verifierUpdates, 'generatorUpdates') : p.generatorUpdates);
  const judged = result.arms.filter((a) => a.arm !== 'grpo');
  // A metric undefined at every point (an F1 with no positive call or truth on a few validation problems) has no figure.
  const figure = (name: string, title: string, xLabel: string, yLabel: string, s: LineSeries[]): Figure[] => {
    const drawn = s.filter((x) => x.points.length > 0);
    return drawn.length === 0 ? [] : [{ name, caption: title, svg: linePlot(drawn, { title, subtitle: 'validation problems (never the test problems); step 0 is the base', xLabel, yLabel, yDomain: [0, 1] }) }];
  };
  return [
    ...figure('generator-accuracy', 'Generator accuracy vs generator training steps', 'generator updates', 'accuracy (exact answer)', series((p) => p.accuracy, generatorX, result.arms)),
    ...figure('verifier-step-f1', 'Verifier step F1 vs verifier training steps', 'verifier updates', 'step F1 (gold-path labels)', series((p) => p.step_f1, verifierX, judged)),
    ...figure('verifier-outcome-f1', 'Verifier outcome F1 vs verifier training steps', 'verifier updates', 'outcome F1', series((p) => p.outcome_f1, verifierX, judged)),
  ];
}

function curveTable(result: Omit<TangoExperimentResult, 'report'>): string {
  const rows = result.arms.flatMap((arm) =>
    arm.curve.map((p) => [ARM_LABELS[arm.arm], String(p.step), String(p.generatorUpdates), String(p.verifierUpdates), num(p.accuracy), num(p.step_f1), num(p.outcome_f1)]),
  );
  const base = result.baseCurvePoint;
  return markdownTable(['run', 'step', 'generator updates', 'verifier updates', 'accuracy', 'verifier step F1', 'verifier outcome F1'], [['base', '0', '0', '0', num(base.accuracy), num(base.step_f1), num(base.outcome_f1)], ...rows]);
}

function generatorTable(result: Omit<TangoExperimentResult, 'report'>): string {
  const rows = (Object.entries(result.generators) as [TangoArm | 'base', (typeof result.generators)[TangoArm]][]).flatMap(([label, report]) => {
    if (!report?.capability) return [];
    const b = Object.values(report.capability.per_benchmark)[0];
    const pass = b.pass_at_k;
    const ks = Object.keys(pass);
    return [[label === 'base' ? 'base (= the fixed generator)' : ARM_LABELS[label], ...ks.map((k) => pct(pass[k])), pct({ value: b.answer_present_rate, se: b.answer_present_rate_se ?? 0 })]];
  });
  const capability = Object.values(result.generators).find((r) => r?.capability)?.capability;
  const ks = capability ? Object.keys(Object.values(capability.per_benchmark)[0].pass_at_k) : [];
  return markdownTable(['generator', ...ks.map((k) => `pass@${k} (%)`), 'answer present (%)'], rows);
}

const GENERATOR_CLAIM_METRIC = 'generator capability pass@1';
const VERIFIER_CLAIM_METRIC = "verifier outcome accuracy (base's solutions)";

/**
 * Every paired test of the report, the generators' (H1: the first is higher) then the verifiers', in two Holm families:
 * the experiment's claims (TANGO_CLAIMS, fixed in docs/experiments/protocol.md) and the other tests.
 */
function reportTests(result: Omit<TangoExperimentResult, 'report'>) {
  const label = (name: string) => (name === 'base' ? 'base' : ARM_LABELS[name as TangoArm]);
  const listed = [
    ...result.generatorTests.flatMap(({ model, other, significance }) => significance.tests.map((test) => ({ model, other, name: `${label(model)} > ${label(other)}`, metric: `generator ${test.metric}`, test }))),
    ...result.verifierTests.map((test) => ({ model: test.model, other: test.other, name: `${label(test.model)} > ${label(test.other)}`, metric: `verifier ${test.metric}`, test })),
  ];
  const claimOf = (entry: (typeof listed)[number]) => TANGO_CLAIMS.find((c) => c.model === entry.model && c.other === entry.other && entry.metric === (c.on === 'generator' ? GENERATOR_CLAIM_METRIC : VERIFIER_CLAIM_METRIC));
  const corrected = correctClaims(listed.map(({ test }) => test), (_, i) => claimOf(listed[i]) !== undefined, TANGO_CLAIMS.length);
  return listed.map((entry, i) => ({ ...entry, claim: claimOf(entry), test: corrected[i] }));
}

function claimsSection(result: Omit<TangoExperimentResult, 'report'>): string {
  const tests = reportTests(result);
  const label = (name: string) => (name === 'base' ? 'base' : ARM_LABELS[name as TangoArm]);
  const claims: Claim[] = TANGO_CLAIMS.map((c) => ({
    claim: c.claim,
    evidence: `${label(c.model)} > ${label(c.other)}, ${c.on === 'generator' ? 'generator pass@1' : "verifier outcome accuracy on the base's solutions"}`,
    test: tests.find((t) => t.claim === c)?.test,
  }));
  return `Each claim rests on the one comparison of the design that isolates it, read from the claims' Holm family above. This is one training run: a claim about the training procedure rests on the test across seeds, where the experiment ran several.\n\n${claimsTable(claims)}`;
}

function testsSection(result: Omit<TangoExperimentResult, 'report'>): string {
  const tests = reportTests(result);
  if (tests.length === 0) return 'No paired tests: too few shared problems.';
  const claims = tests.filter((t) => t.claim).length;
  return `${claimsPreamble(TANGO_CLAIMS.length, claims, tests.length - claims)} Generators: per-problem pass rates. Verifiers: each problem's share of right calls.\n\n${markdownTable(['comparison', 'metric', 'family', ...TEST_COLUMNS], tests.map(({ name, metric, claim, test }) => [name, metric, claim ? 'claim' : 'other', ...testCells(test)]))}`;
}

function verifierTable(verifiers: Readonly<Record<string, VerifierEvalResult>>): string {
  const label = (name: string) => (name === 'base' ? 'base (= the fixed verifier)' : ARM_LABELS[name as TangoArm]);
  const rows = Object.entries(verifiers).map(([name, r]) => [label(name), est(r.outcome_precision), est(r.outcome_recall), est(r.outcome_f1), est(r.step_f1), est(r.processbench_f1), est(r.readable)]);
  const first = Object.values(verifiers)[0];
  const balance = first ? ` The judged solutions were right on ${pct(first.solution_accuracy)}% of problems.` : '';
  return `${markdownTable(['verifier', 'outcome precision', 'outcome recall', 'outcome F1', 'step F1', 'ProcessBench F1', 'verdicts readable'], rows)}\n\n"Positive" is "correct"; an unreadable verdict counts as "incorrect", as the paper's authors count it. ProcessBench F1 is the harmonic mean of the accuracy on erroneous solutions (the first wrong step found) and on correct ones (no step flagged), the paper's Table 3 metric.${balance}`;
}

/** Where the validation problems came from, for the curves' caption. */
function validationSourceText(result: Omit<TangoExperimentResult, 'report'>): string {
  const held = result.validation?.heldOutOfTrain ?? 0;
  return held > 0 ? ` (held out of its train split, which has no validation file: the last ${held} train problems, which training never drew)` : '';
}

async function trainingTable(result: Omit<TangoExperimentResult, 'report'>): Promise<string> {
  const rows: string[][] = [];
  for (const arm of result.arms) {
    const path = join(result.out, arm.arm, METRICS_FILE);
    const lines = (await pathExists(path)) ? await readJsonl<MetricsLine>(path) : [];
    const mean = (slice: readonly MetricsLine[], pick: (l: MetricsLine) => number | null | undefined) => {
      const values = slice.map(pick).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
      return values.length === 0 ? '–' : (values.reduce((a, v) => a + v, 0) / values.length).toFixed(3);
    };
    const generatorSteps = lines.filter((l) => l.trains.includes('generator'));
    const verifierSteps = lines.filter((l) => l.trains.includes('verifier'));
    rows.push([
      ARM_LABELS[arm.arm],
      `${arm.steps} (${arm.generatorUpdates} G, ${arm.verifierUpdates} V)`,
      `${mean(generatorSteps.slice(0, 5), (l) => l.roles.generator.reward_mean)} → ${mean(generatorSteps.slice(-5), (l) => l.roles.generator.reward_mean)}`,
      `${mean(verifierSteps.slice(0, 5), (l) => l.roles.verifier.reward_mean)} → ${mean(verifierSteps.slice(-5), (l) => l.roles.verifier.reward_mean)}`,
      `${mean(lines.slice(0, 5), (l) => l.roles.verifier.outcome_f1)} → ${mean(lines.slice(-5), (l) => l.roles.verifier.outcome_f1)}`,
      mean(generatorSteps, (l) => l.roles.generator.step_rewarded),
      lines.reduce((a, l) => a + l.seconds, 0).toFixed(0),
    ]);
  }
  return `${markdownTable(['run', 'steps', 'generator reward, first → last 5 of its steps', 'verifier reward, first → last 5', 'verifier outcome F1 on training matches, first → last 5 steps', 'share of generator rollouts with step rewards', 'training wall (s)'], rows)}\n\n(Each run's metrics.jsonl, transcripts.jsonl and validation.jsonl are in its directory.)`;
}

export function costTable(result: Pick<TangoExperimentResult, 'costs'>, environment: { machine: string }): string {
  const ran = result.costs.filter((c) => c.status === 'ran');
  const rows = ran.map((c) => [c.phase, (c.wall_s / 60).toFixed(1), (c.cpu_s / 60).toFixed(1), (c.cpu_s / c.wall_s).toFixed(2), `${c.load_before[0]} → ${c.load_after[0]}`]);
  const wall = ran.reduce((a, c) => a + c.wall_s, 0);
  const cpu = ran.reduce((a, c) => a + c.cpu_s, 0);
  rows.push(['total', (wall / 60).toFixed(1), (cpu / 60).toFixed(1), (cpu / Math.max(wall, 1e-9)).toFixed(2), '']);
  return `${environment.machine}, shared with other jobs: the load average (1 min) at each phase's start and end says how much of the machine this run had. CPU time counts every thread of this process.\n\n${markdownTable(['phase', 'wall (min)', 'CPU (min)', 'cores used', 'load avg'], rows)}`;
}
