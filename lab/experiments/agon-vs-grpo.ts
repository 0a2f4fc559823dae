import { mkdir } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import type { Catalog } from '../../core/catalog.ts';
import { fail } from '../../core/errors.ts';
import { parseConfig } from '../../core/parse-config.ts';
import type { SequentialProtocol } from '../../core/protocols/sequential.ts';
import { advantageFor, gameFor } from '../../engine/trainer/run-pieces.ts';
import { TrainConfigSchema, type TrainConfig } from '../../engine/trainer/train-config.ts';
import { checkpointPolicyDir, train } from '../../engine/trainer/trainer.ts';
import { writeFileAtomically } from '../../native/io/files.ts';
import { gradeExact } from '../../plugins/graders/exact/grade-exact.ts';
import { gradeMath } from '../../plugins/graders/math/grade-math.ts';
import { resolveModelDir } from '../../plugins/policies/default-model.ts';
import { loadPolicy } from '../../plugins/policies/load-policy.ts';
import { graderForTask, taskByName } from '../../plugins/tasks/registry.ts';
import { evaluateCascade, pairedPassTest, type CascadeEvalResult } from '../eval/cascade-eval.ts';
import { evaluate } from '../eval/evaluate.ts';
import type { EvalReport, PairedTest } from '../eval/report-types.ts';
import { readCached, writeCached } from './cached-json.ts';
import { AGON_ARMS, AGON_ROWS, ARM_KNOBS, type AgonArm, type AgonExperimentConfig, type AgonRow } from './agon-experiment-config.ts';
import { perProblemOf, writeAgonReport } from './agon-report.ts';
import { ProgressTracker, type ExperimentProgress } from './experiment-progress.ts';
import { cachedPhase, measured, PhaseCosts, type PhaseCost, COSTS_FILE } from './tango-vs-grpo.ts';

export interface AgonExperimentRun {
  /** Experiment directory: experiment.json, <arm>/ training runs, eval/*.json, report.md with figures. */
  out: string;
  config: AgonExperimentConfig;
  catalog: Catalog;
  threads?: number;
  onProgress?: (progress: ExperimentProgress) => void;
}

export interface AgonArmRun {
  readonly arm: AgonArm;
  readonly config: TrainConfig;
  readonly dir: string;
}

/** One evaluated model: a single pass (the solo capability report) or a cascade. */
export type AgonRowResult = { readonly kind: 'single'; readonly report: EvalReport } | { readonly kind: 'cascade'; readonly result: CascadeEvalResult };

export interface AgonTest extends PairedTest {
  readonly model: AgonRow;
  readonly other: AgonRow;
  /** pass@k of the other side (the model's is pass@1): 2 pairs a one-pass baseline's two generations with the cascade's two. */
  readonly other_k: number;
}

export interface AgonExperimentResult {
  readonly out: string;
  readonly base: string;
  readonly arms: readonly AgonArmRun[];
  readonly rows: Readonly<Partial<Record<AgonRow, AgonRowResult>>>;
  readonly tests: readonly AgonTest[];
  /** The per-generation cap of every model: the agon turn cap, and GRPO's response budget. */
  readonly turnTokens: number;
  readonly costs: readonly PhaseCost[];
  readonly report: string;
}

const TRAINED_MARKER = 'trained.json';

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
 * Agon's main comparison and ablations (§5) end to end on a shipped base: Agon, fixed roles, cooperative exchange,
 * self-refinement (each two rank-16 adapters, or one, over the frozen base) and vanilla GRPO (one rank-16 adapter) are
 * trained with the same settings, seeds and steps; then, on the same test problems and seeds, the base and GRPO answer
 * in one pass, and every cascade (the trained pairs, GRPO reading its own draft, the base reading its own, the untrained
 * Mixture-of-Agents) drafts and challenges at the same per-generation cap. pass@k with bootstrap SEs, paired one-sided
 * t-tests, per-stage trace lengths. Resumable: finished trainings and evaluations are cached under keys of what they depend on.
 */
export async function runAgonVsGrpo(run: AgonExperimentRun): Promise<AgonExperimentResult> {
  const out = resolve(run.out);
  const { config } = run;
  const base = resolveModelDir(config.model, config.task);
  const grader = (config.train.grader as string | undefined) ?? graderForTask(config.task) ?? 'math';
  // The agon turn cap (the game's, after its defaults): every generation of every model is capped there.
  const turnTokens = Math.max(...(gameFor(run.catalog, { game: 'agon', grader, knobs: config.knobs }).protocol as SequentialProtocol<string, unknown>).turns.map((turn) => turn.maxTokens));
  const configs = Object.fromEntries(AGON_ARMS.map((arm) => [arm, armConfig(config, arm, grader, turnTokens)])) as Record<AgonArm, TrainConfig>;
  await mkdir(out, { recursive: true });
  await writeFileAtomically(join(out, 'experiment.json'), `${JSON.stringify(config, null, 2)}\n`);
  const costs = new PhaseCosts(join(out, COSTS_FILE));
  const progress = new ProgressTracker([...AGON_ARMS.map((arm) => [`train ${arm}`, configs[arm].steps] as const), ['evaluate', AGON_ROWS.length]], run.onProgress);

  const arms: AgonArmRun[] = [];
  for (const arm of AGON_ARMS) {
    const trainConfig = configs[arm];
    const dir = join(out, arm);
    await measured(costs, `train ${arm}`, async () => {
      if (await readCached(join(dir, TRAINED_MARKER), trainConfig)) return 'cached';
      await train({ out: dir, config: trainConfig, game: gameFor(run.catalog, trainConfig), advantage: advantageFor(run.catalog, trainConfig), resume: 'if-checkpoint', threads: run.threads, onStep: (line, total) => progress.update(`train ${arm}`, line.step / total) });
      await writeCached(join(dir, TRAINED_MARKER), trainConfig, { steps: trainConfig.steps });
      return 'ran';
    });
    progress.update(`train ${arm}`, 1);
    arms.push({ arm, config: trainConfig, dir });
  }

  const task = await taskByName(config.task);
  const grade = grader === 'exact' ? gradeExact : gradeMath;
  const policyOf = (arm: AgonArm, policy: string) => checkpointPolicyDir(join(out, arm), policy);
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
  const basePolicy = await loadPolicy(base, 'base');
  const tokenizer = basePolicy.tokenizer ?? fail('CHECKPOINT_MISSING_FILE', `${base}: the experiment needs a tokenizer.json in the base model directory`);
  const trainedBy = (dir: string) => arms.find((arm) => dir.startsWith(`${arm.dir}/`))?.config ?? null;
  const rows: Partial<Record<AgonRow, AgonRowResult>> = {};
  for (const row of AGON_ROWS) {
    const key = { row, task: config.task, seed: config.seed, eval: config.eval, grader, knobs: config.knobs, turnTokens };
    const single = singles[row];
    if (single !== undefined) {
      const report = await cachedPhase(costs, out, `eval ${row}`, { ...key, dir: single, trained: trainedBy(single) }, async () =>
        evaluate({
          model: { id: single, policy: (await loadPolicy(single, row)).policy },
          tokenizer,
          benchmarks: [{ name: config.task, task, split: 'test', grade }],
          axes: ['capability'],
          problems: config.eval.problems,
          samples: config.eval.samples,
          grade,
          temperature: config.eval.temperature,
          topP: 1,
          maxNewTokens: turnTokens,
          stopTokens: basePolicy.policy.config.eosTokenIds,
          batch: config.eval.batch * config.eval.samples,
          seed: config.seed,
          bootstrap: config.eval.bootstrap,
          threads: run.threads,
        }),
      );
      rows[row] = { kind: 'single', report };
    } else {
      const [drafter, challenger, proposals] = cascades[row]!;
      const result = await cachedPhase(costs, out, `eval ${row}`, { ...key, drafter, challenger, proposals, trained: [trainedBy(drafter), trainedBy(challenger)] }, async () =>
        evaluateCascade({
          game: gameFor(run.catalog, { game: 'agon', grader, knobs: { ...config.knobs, proposals } }),
          drafter,
          challenger,
          grade,
          task,
          taskName: config.task,
          split: 'test',
          problems: config.eval.problems,
          samples: config.eval.samples,
          temperature: config.eval.temperature,
          topP: 1,
          seed: config.seed,
          batch: config.eval.batch,
          bootstrap: config.eval.bootstrap,
          threads: run.threads,
          onProgress: (done, total) => progress.update('evaluate', (AGON_ROWS.indexOf(row) + done / total) / AGON_ROWS.length),
        }),
      );
      rows[row] = { kind: 'cascade', result };
    }
    progress.update('evaluate', (AGON_ROWS.indexOf(row) + 1) / AGON_ROWS.length);
  }
  const tests = TESTS.flatMap(([model, other, k]) => {
    const a = rows[model];
    const b = rows[other];
    return a && b ? [{ model, other, other_k: k, ...pairedPassTest(perProblemOf(a), perProblemOf(b), 1, k) }] : [];
  });
  const result = { out, base, arms, rows, tests, turnTokens, costs: await costs.all() };
  const report = await writeAgonReport(result, config, { machine: `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'})` });
  return { ...result, report };
}

/**
 * An arm's training config: the shared overrides, the arm's game and knobs, one value of steps, seed, model and task.
 * GRPO trains one rank-16 adapter (as each Agon policy is) with the agon turn cap as its response budget.
 */
function armConfig(config: AgonExperimentConfig, arm: AgonArm, grader: string, turnTokens: number): TrainConfig {
  const shared = { finalComparison: 0, validateEvery: 0, ...config.train, grader, seed: config.seed, model: config.model, task: config.task, steps: config.steps };
  const input =
    arm === 'grpo'
      ? { ...shared, game: 'grpo', maxNewTokens: turnTokens, policies: { senior: { adapter: { r: 16 } } } }
      : { ...shared, game: 'agon', knobs: { ...config.knobs, ...ARM_KNOBS[arm] } };
  return parseConfig(TrainConfigSchema, input, `experiment training config (${arm})`);
}
