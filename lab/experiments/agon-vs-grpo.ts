import { join } from 'node:path';
import type { SequentialProtocol } from '../../core/protocols/sequential.ts';
import { parseConfig } from '../../core/parse-config.ts';
import { TrainConfigSchema, type TrainConfig } from '../../engine/trainer/train-config.ts';
import { checkpointPolicyDir } from '../../engine/trainer/trainer.ts';
import { resolveModelDir } from '../../plugins/policies/default-model.ts';
import { pairedPassTest } from '../eval/cascade-eval.ts';
import { AGON_ARMS, AGON_ROWS, ARM_KNOBS, type AgonArm, type AgonExperimentConfig, type AgonRow } from './agon-experiment-config.ts';
import { perProblemOf, writeAgonReport } from './agon-report.ts';
import { comparisonOf, type Headline, type SeededDefinition } from './seeds-summary.ts';
import { ROW_LABELS } from './agon-experiment-config.ts';
import { baseOf, runExperiment, type ExperimentContext, type ExperimentRun, type ExperimentServices, type TrainedArm } from './experiment-runner.ts';
import type { AgonArmRun, AgonExperimentResult, AgonRowResult, AgonTest } from './agon-result.ts';
import { present } from '../../core/errors.ts';

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
    const turnTokens = turnTokensOf(setup.catalog.games.create('agon', { grader: setup.catalog.graders.create(setup.grader), knobs: config.knobs }));
    return AGON_ARMS.map((arm) => ({ arm, config: armConfig(config, arm, setup.grader, turnTokens) }));
  },
  evaluationPhases: () => [['evaluate', AGON_ROWS.length]],
  evaluate: evaluateAgon,
};

export function runAgonVsGrpo(run: AgonExperimentRun, services?: ExperimentServices): Promise<AgonExperimentResult> {
  return runExperiment(AGON_VS_GRPO, run, services);
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
  for (const row of AGON_ROWS) {
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
          onProgress: (done, total) => context.progress.update('evaluate', (AGON_ROWS.indexOf(row) + done / total) / AGON_ROWS.length),
        }),
      );
      rows[row] = { kind: 'cascade', result };
    }
    context.progress.update('evaluate', (AGON_ROWS.indexOf(row) + 1) / AGON_ROWS.length);
  }
  const tests = TESTS.flatMap(([model, other, k]) => {
    const a = rows[model];
    const b = rows[other];
    return a && b ? [{ model, other, other_k: k, ...pairedPassTest(perProblemOf(a), perProblemOf(b), 1, k) }] : [];
  });
  const result = { out: context.out, base, arms, rows, tests, turnTokens, grader: context.grader, costs: await context.costs() };
  const report = await writeAgonReport(result, config, { machine: context.machine });
  return { ...result, report };
}

/**
 * An arm's training config: the shared overrides, the arm's game and knobs, one value of steps, seed, model and task.
 * GRPO trains one rank-16 adapter (as each Agon policy is) with the agon turn cap as its response budget, dropping
 * zero-variance groups as the paper's GRPO baseline does (Agon's summary: "Zero-variance groups are dropped").
 */
function armConfig(config: AgonExperimentConfig, arm: AgonArm, grader: string, turnTokens: number): TrainConfig {
  const shared = { finalComparison: 0, validateEvery: 0, ...config.train, grader, seed: config.seed, model: config.model, task: config.task, steps: config.steps };
  const input =
    arm === 'grpo'
      ? { ...shared, game: 'grpo', knobs: { zeroVariance: 'drop' }, maxNewTokens: turnTokens, policies: { senior: { adapter: { r: 16 } } } }
      : { ...shared, game: 'agon', knobs: { ...config.knobs, ...ARM_KNOBS[arm] } };
  return parseConfig(TrainConfigSchema, input, `experiment training config (${arm})`);
}

/** Every model's pass@1 per seed, and the report's pass@1-against-pass@1 comparisons. */
function agonHeadline(result: AgonExperimentResult): Headline {
  const pass1 = (row: AgonRowResult) => (row.kind === 'cascade' ? row.result.pass_at_k['1'] : Object.values(present(row.report.capability, 'the capability axis of a single-pass report').per_benchmark)[0].pass_at_k['1']);
  const perProblem = (row: AgonRowResult) => {
    const { n, perProblem: problems } = perProblemOf(row);
    return new Map(problems.map((p) => [p.id, p.correct / n]));
  };
  const rows = Object.entries(result.rows) as [AgonRow, AgonRowResult][];
  return {
    metrics: rows.map(([row, r]) => ({ model: ROW_LABELS[row], metric: 'pass@1', value: pass1(r).value, se: pass1(r).se })),
    comparisons: TESTS.flatMap(([model, other, k]) => {
      const [mine, theirs] = [result.rows[model], result.rows[other]];
      return k === 1 && mine && theirs ? [comparisonOf(ROW_LABELS[model], ROW_LABELS[other], 'pass@1', perProblem(mine), perProblem(theirs))] : [];
    }),
  };
}
