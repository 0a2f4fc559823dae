import { join } from 'node:path';
import type { SequentialProtocol } from '../../core/protocols/sequential.ts';
import { parseConfig } from '../../core/parse-config.ts';
import { TrainConfigSchema, type TrainConfig } from '../../engine/trainer/train-config.ts';
import { checkpointPolicyDir } from '../../engine/trainer/trainer.ts';
import { resolveModelDir } from '../../plugins/policies/default-model.ts';
import type { AnswerDivergence } from '../eval/answer-divergence.ts';
import { pairedPassTest } from '../eval/cascade-eval.ts';
import { pairedTest } from '../eval/significance.ts';
import { AGON_ROWS, ARM_KNOBS, PAIRED_ARMS, ROW_ARM, type AgonArm, type AgonExperimentConfig, type AgonRow } from './agon-experiment-config.ts';
import { perProblemOf, trainingConversions, writeAgonReport, type TrainingConversions } from './agon-report.ts';
import { comparisonOf, type Headline, type SeededDefinition } from './seeds-summary.ts';
import { AGON_CLAIMS, ROW_LABELS } from './agon-experiment-config.ts';
import { passAtK } from '../../core/metrics/pass-at-k.ts';
import { baseOf, runExperiment, type ExperimentContext, type ExperimentRun, type ExperimentServices, type TrainedArm } from './experiment-runner.ts';
import type { AgonArmRun, AgonExperimentResult, AgonRowResult, AgonTest } from './agon-result.ts';
import { fail, present } from '../../core/errors.ts';

export type AgonExperimentRun = ExperimentRun<AgonExperimentConfig>;
export type { AgonArmRun, AgonExperimentResult, AgonRowResult, AgonTest };

/** The paired tests of the report: Agon against every baseline and ablation, and exchange across policies against self-refinement. */
const TESTS: readonly (readonly [AgonRow, AgonRow, number])[] = [
  ['agon', 'grpo', 1],
  ['agon', 'grpo', 2],
  ['agon', 'base', 1],
  ['agon', 'moa', 1],
  ['agon', 'base-cascade', 1],
  ['agon', 'grpo-cascade', 1],
  ['agon', 'fixed-roles', 1],
  ['agon', 'cooperative', 1],
  ['agon', 'self-refinement', 1],
  ['cooperative', 'self-refinement', 1],
  ['moa', 'base', 1],
];

/** The conversion tests (per problem, the share of answers converting a wrong draft): the bonus against its ablation. */
const CONVERSION_TESTS: readonly (readonly [AgonRow, AgonRow])[] = [['agon', 'cooperative']];

/** The rows an experiment evaluates: those of the untrained base, and those whose run it trained. */
export function rowsOf(config: Pick<AgonExperimentConfig, 'arms'>): AgonRow[] {
  return AGON_ROWS.filter((row) => ROW_ARM[row] === null || config.arms.includes(ROW_ARM[row]));
}

/** The two-adapter runs an experiment trains, whose A and B are compared answer by answer. */
export function pairedArmsOf(config: Pick<AgonExperimentConfig, 'arms'>): AgonArm[] {
  return PAIRED_ARMS.filter((arm) => config.arms.includes(arm));
}

/**
 * Agon's main comparison and ablations (§5) on a shipped base: Agon, fixed roles, cooperative exchange, self-refinement
 * (each two rank-16 adapters, or one, over the frozen base) and vanilla GRPO (one rank-16 adapter, zero-variance groups
 * dropped as the paper's GRPO does) are trained with the same settings, seed and steps; then, on the same test problems
 * and seeds, the base and GRPO answer in one pass, and every cascade (the trained pairs, GRPO reading its own draft, the
 * base reading its own, the untrained Mixture-of-Agents) drafts and challenges at the same per-generation cap. pass@k
 * with bootstrap SEs, paired one-sided tests (Holm-corrected in the report), per-stage trace lengths.
 */
export const AGON_VS_GRPO: SeededDefinition<AgonExperimentConfig, AgonArm, AgonExperimentResult> = {
  name: 'agon-vs-grpo',
  title: 'Agon against vanilla GRPO, with its ablations (§5)',
  headline: agonHeadline,
  plan: (config, setup) => {
    const agon = setup.catalog.games.create('agon', { grader: setup.catalog.graders.create(setup.grader), knobs: config.knobs });
    return config.arms.map((arm) => ({ arm, config: armConfig(config, arm, setup.grader, turnTokensOf(agon), agonRewardOf(agon)) }));
  },
  evaluationPhases: (config) => [['evaluate', rowsOf(config).length + pairedArmsOf(config).length]],
  evaluate: evaluateAgon,
};

export function runAgonVsGrpo(run: AgonExperimentRun, services?: ExperimentServices): Promise<AgonExperimentResult> {
  return runExperiment(AGON_VS_GRPO, run, services);
}

/** What the agon game pays a right answer and a boxed one (its knobs, after their defaults): GRPO's reward when matched. */
interface AgonReward {
  readonly correctWeight: number;
  readonly formatWeight: number;
}

function agonRewardOf(game: ReturnType<ExperimentContext['game']>): AgonReward {
  const { knobs } = game as typeof game & { readonly knobs?: Partial<AgonReward> };
  const { correctWeight, formatWeight } = knobs ?? {};
  if (correctWeight === undefined || formatWeight === undefined) return fail('CONFIG_INVALID', `agon-vs-grpo: game "${game.id}" does not say what it pays (knobs correctWeight, formatWeight)`);
  return { correctWeight, formatWeight };
}

/** The agon turn cap (the game's, after its defaults): every generation of every model is capped there. */
function turnTokensOf(game: ReturnType<ExperimentContext['game']>): number {
  return Math.max(...(game.protocol as SequentialProtocol<string, unknown>).turns.map((turn) => turn.maxTokens));
}

async function evaluateAgon(context: ExperimentContext, trained: readonly TrainedArm<AgonArm>[], config: AgonExperimentConfig): Promise<AgonExperimentResult> {
  const base = resolveModelDir(config.model, config.task);
  const turnTokens = turnTokensOf(context.game({ game: 'agon', knobs: config.knobs }));
  const arms: AgonArmRun[] = trained.map(({ arm, config: armConfig, dir }) => ({ arm, config: armConfig, dir }));
  const policyOf = (arm: AgonArm, policy: string) => checkpointPolicyDir(join(context.out, arm), policy);
  const grpo = policyOf('grpo', 'senior');
  const cascades: Partial<Record<AgonRow, readonly [string, string, number]>> = {
    'base-cascade': [base, base, 1],
    moa: [base, base, config.moaProposals],
    'grpo-cascade': [grpo, grpo, 1],
    agon: [policyOf('agon', 'A'), policyOf('agon', 'B'), 1],
    'agon-reversed': [policyOf('agon', 'B'), policyOf('agon', 'A'), 1],
    'fixed-roles': [policyOf('fixed-roles', 'A'), policyOf('fixed-roles', 'B'), 1],
    cooperative: [policyOf('cooperative', 'A'), policyOf('cooperative', 'B'), 1],
    'self-refinement': [policyOf('self-refinement', 'A'), policyOf('self-refinement', 'A'), 1],
  };
  const singles: Partial<Record<AgonRow, string>> = { base, grpo };
  const { tokenizer, policy: basePolicy } = await baseOf(context, base);
  const trainedBy = (dir: string) => arms.find((arm) => dir.startsWith(`${arm.dir}/`))?.config ?? null;
  const rows: Partial<Record<AgonRow, AgonRowResult>> = {};
  const evaluated = rowsOf(config);
  const phases = evaluated.length + pairedArmsOf(config).length;
  for (const [index, row] of evaluated.entries()) {
    const key = { row, task: config.task, seed: config.seed, eval: config.eval, grader: context.grader, knobs: config.knobs, turnTokens };
    const single = singles[row];
    if (single !== undefined) {
      const report = await context.cached(`eval ${row}`, { ...key, dir: single, trained: trainedBy(single) }, async () =>
        context.evaluateModel({
          model: { id: single, policy: (await context.services.loadPolicy(single, row)).policy },
          tokenizer,
          taskName: config.task,
          axes: ['capability'],
          problems: config.eval.problems,
          samples: config.eval.samples,
          temperature: config.eval.temperature,
          topP: 1,
          maxNewTokens: turnTokens,
          stopTokens: basePolicy.config.eosTokenIds,
          batch: config.eval.batch * config.eval.samples,
          bootstrap: config.eval.bootstrap,
        }),
      );
      rows[row] = { kind: 'single', report };
    } else {
      const [drafter, challenger, proposals] = present(cascades[row], `the cascade of row ${row}`);
      const result = await context.cached(`eval ${row}`, { ...key, drafter, challenger, proposals, trained: [trainedBy(drafter), trainedBy(challenger)] }, () =>
        context.services.evaluateCascade({
          ...context.gameEvalSettings(config.task),
          game: context.game({ game: 'agon', knobs: { ...config.knobs, proposals } }),
          drafter,
          challenger,
          grade: context.grade,
          problems: config.eval.problems,
          samples: config.eval.samples,
          temperature: config.eval.temperature,
          topP: 1,
          batch: config.eval.batch,
          bootstrap: config.eval.bootstrap,
          onProgress: (done, total) => context.progress.update('evaluate', (index + done / total) / phases),
        }),
      );
      rows[row] = { kind: 'cascade', result };
    }
    context.progress.update('evaluate', (index + 1) / phases);
  }
  const divergence: Partial<Record<AgonArm, AnswerDivergence>> = {};
  const problems = context.task.problems('test', config.eval.problems);
  for (const [index, arm] of pairedArmsOf(config).entries()) {
    const [a, b] = [policyOf(arm, 'A'), policyOf(arm, 'B')];
    const key = { task: config.task, seed: config.seed, eval: config.eval, grader: context.grader, turnTokens, a, b, trained: trainedBy(a) };
    divergence[arm] = await context.cached(`divergence ${arm}`, key, async () =>
      context.services.policyDivergence((await context.services.loadPolicy(a, `${arm} A`)).policy, (await context.services.loadPolicy(b, `${arm} B`)).policy, {
        tokenizer,
        problems,
        samples: config.eval.samples,
        grade: context.grade,
        seed: config.seed,
        chatTemplate: context.options.chatTemplate,
        temperature: config.eval.temperature,
        topP: 1,
        maxNewTokens: turnTokens,
        stopTokens: basePolicy.config.eosTokenIds,
        batch: config.eval.batch * config.eval.samples,
        ...(context.options.threads !== undefined ? { threads: context.options.threads } : {}),
      }),
    );
    context.progress.update('evaluate', (evaluated.length + index + 1) / phases);
  }
  const training: Partial<Record<AgonArm, TrainingConversions>> = {};
  for (const arm of arms) if (arm.config.game === 'agon') training[arm.arm] = await trainingConversions(join(context.out, arm.arm));
  const passTests = TESTS.flatMap(([model, other, k]) => {
    const a = rows[model];
    const b = rows[other];
    return a && b ? [{ model, other, other_k: k, ...pairedPassTest(perProblemOf(a), perProblemOf(b), 1, k) }] : [];
  });
  const conversionTests = CONVERSION_TESTS.flatMap(([model, other]) => {
    const [a, b] = [conversionsOf(rows[model]), conversionsOf(rows[other])];
    if (!a || !b) return [];
    const ids = [...a.keys()].filter((id) => b.has(id));
    return [{ model, other, other_k: 1, ...pairedTest('converted', 'greater', ids.map((id) => a.get(id)!), ids.map((id) => b.get(id)!)) }];
  });
  const tests = [...passTests, ...conversionTests];
  const result = { out: context.out, base, arms, rows, tests, divergence, training, turnTokens, grader: context.grader, costs: await context.costs() };
  const report = await writeAgonReport(result, config, { machine: context.machine });
  return { ...result, report };
}

/**
 * An arm's training config: the shared overrides, the arm's game and knobs, one value of steps, seed, model and task.
 * GRPO trains one rank-16 adapter (as each Agon policy is) with the agon turn cap as its response budget, dropping
 * zero-variance groups as the paper's GRPO baseline does (Agon's summary: "Zero-variance groups are dropped"), paid as
 * the Agon arms are unless the config's `grpoReward` says 'correctness'.
 */
function armConfig(config: AgonExperimentConfig, arm: AgonArm, grader: string, turnTokens: number, agonReward: AgonReward): TrainConfig {
  const shared = { finalComparison: 0, validateEvery: 0, ...config.train, grader, seed: config.seed, model: config.model, task: config.task, steps: config.steps };
  const reward = config.grpoReward === 'matched' ? agonReward : {};
  const input =
    arm === 'grpo'
      ? { ...shared, game: 'grpo', knobs: { zeroVariance: 'drop', ...reward }, maxNewTokens: turnTokens, policies: { senior: { adapter: { r: 16 } } } }
      : { ...shared, game: 'agon', knobs: { ...config.knobs, ...ARM_KNOBS[arm] } };
  return parseConfig(TrainConfigSchema, input, `experiment training config (${arm})`);
}

/** A cascade's conversions per problem (share of its answers), keyed by problem id; undefined for a single pass or an old result. */
function conversionsOf(row: AgonRowResult | undefined): Map<string, number> | undefined {
  if (row?.kind !== 'cascade' || row.result.per_problem.some((p) => p.converted === undefined)) return undefined;
  return new Map(row.result.per_problem.map((p) => [p.id, p.converted! / row.result.samples]));
}

/**
 * Every model's pass@1 per seed, each cascade's conversions, each pair's answer divergence and each Agon run's training
 * conversions; the report's pass@1-against-pass@1 comparisons, and the conversion comparisons, at test time per problem
 * and in training per step.
 */
function agonHeadline(result: AgonExperimentResult): Headline {
  const pass1 = (row: AgonRowResult) => (row.kind === 'cascade' ? row.result.pass_at_k['1'] : Object.values(present(row.report.capability, 'the capability axis of a single-pass report').per_benchmark)[0].pass_at_k['1']);
  const perProblem = (row: AgonRowResult) => {
    const { n, perProblem: problems } = perProblemOf(row);
    return new Map(problems.map((p) => [p.id, p.correct / n]));
  };
  const rows = Object.entries(result.rows) as [AgonRow, AgonRowResult][];
  const training = Object.entries(result.training) as [AgonArm, TrainingConversions][];
  const passAt2 = (row: AgonRowResult) => {
    const { n, perProblem: problems } = perProblemOf(row);
    return new Map(problems.map((p) => [p.id, passAtK(n, p.correct, 2)]));
  };
  const perStep = (t: TrainingConversions) => new Map(t.steps.flatMap((s) => (s.per_wrong_draft === null ? [] : [[`step ${s.step}`, s.per_wrong_draft] as const])));
  return {
    metrics: [
      ...rows.map(([row, r]) => ({ model: ROW_LABELS[row], metric: 'pass@1', value: pass1(r).value, se: pass1(r).se })),
      ...rows.flatMap(([row, r]) => (r.kind === 'cascade' ? [{ model: ROW_LABELS[row], metric: 'converted (share of answers)', value: r.result.converted.value, se: r.result.converted.se }] : [])),
      ...rows.flatMap(([row, r]) => (r.kind === 'cascade' && r.result.summary_reveals ? [{ model: ROW_LABELS[row], metric: "withheld summary spells the draft's answer (share of answers)", value: r.result.summary_reveals.value, se: r.result.summary_reveals.se }] : [])),
      ...(Object.entries(result.divergence) as [AgonArm, AnswerDivergence][]).flatMap(([arm, d]) => [
        { model: `${arm}: A against B, each alone`, metric: 'answers differing (share of samples)', value: d.sample_share, se: null },
        { model: `${arm}: A against B, each alone`, metric: 'problems with a differing answer (share)', value: d.problem_share, se: null },
      ]),
      ...training.flatMap(([arm, t]) => (t.per_wrong_draft === null ? [] : [{ model: `${arm} (training matches)`, metric: 'conversions per wrong draft', value: t.per_wrong_draft, se: null }])),
    ],
    comparisons: [
      ...TESTS.filter(([model, other, k]) => k === 1 && result.rows[model] && result.rows[other]).map(([model, other]) => ({
        ...comparisonOf(ROW_LABELS[model], ROW_LABELS[other], 'pass@1', perProblem(present(result.rows[model], model)), perProblem(present(result.rows[other], other))),
        ...(AGON_CLAIMS.some((c) => c.metric === 'pass' && c.k === 1 && c.model === model && c.other === other) ? {} : { secondary: true }),
      })),
      ...(result.rows.agon && result.rows.grpo ? [comparisonOf(ROW_LABELS.agon, ROW_LABELS.grpo, 'pass@1 against pass@2 (the same generations)', perProblem(result.rows.agon), passAt2(result.rows.grpo))] : []),
      ...CONVERSION_TESTS.flatMap(([model, other]) => {
        const [a, b] = [conversionsOf(result.rows[model]), conversionsOf(result.rows[other])];
        return a && b ? [comparisonOf(ROW_LABELS[model], ROW_LABELS[other], 'converted', a, b)] : [];
      }),
      ...CONVERSION_TESTS.flatMap(([model, other]) => {
        const [armA, armB] = [ROW_ARM[model], ROW_ARM[other]];
        const [a, b] = [armA && result.training[armA], armB && result.training[armB]];
        return a && b ? [comparisonOf(`${model} (training matches)`, `${other} (training matches)`, 'conversions per wrong draft, per step', perStep(a), perStep(b))] : [];
      }),
    ],
    untested: AGON_CLAIMS.filter((c) => !result.rows[c.model] || !result.rows[c.other]).map((c) => c.claim),
  };
}
