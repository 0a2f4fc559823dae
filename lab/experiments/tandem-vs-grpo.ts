import { parseConfig } from '../../core/parse-config.ts';
import { TrainConfigSchema, type TrainConfig } from '../../engine/trainer/train-config.ts';
import { bestPolicyDir, checkpointPolicyDir } from '../../engine/trainer/trainer.ts';
import { resolveModelDir } from '../../plugins/policies/default-model.ts';
import type { EvalModel } from '../eval/evaluate.ts';
import type { EvalReport, SignificanceResult } from '../eval/report-types.ts';
import { compareReports } from '../eval/significance.ts';
import { slug } from '../reports/markdown.ts';
import { REPORT_MARKDOWN, writeReport } from '../reports/write-report.ts';
import { EXPERIMENT_GAMES, GAME_LABELS, type ExperimentConfig, type ExperimentEval, type ExperimentGame } from './experiment-config.ts';
import { capabilityPass1, comparisonOf, perProblemPass1, type Headline, type SeededDefinition } from './seeds-summary.ts';
import { baseOf, runExperiment, type ExperimentContext, type ExperimentRun, type ExperimentServices, type PhaseOutcome, type TrainedArm } from './experiment-runner.ts';
import { trainingRewardFigure, trainingSummary } from './training-summary.ts';
import type { TrainedSenior } from './experiment-config.ts';
import { present } from '../../core/errors.ts';

export { EVAL_DIR, EXPERIMENT_FILE, TRAINED_MARKER, type PhaseOutcome } from './experiment-runner.ts';

export type { ExperimentRun };
export type { TrainedSenior };

export interface ExperimentResult {
  out: string;
  seed: number;
  phases: PhaseOutcome[];
  seniors: TrainedSenior[];
  reports: Record<ExperimentGame | 'base', EvalReport>;
  comparisons: Array<{ model: string; significance: SignificanceResult }>;
  /** The grader every reward and evaluation used. */
  grader: string;
  /** Path of report.md. */
  report: string;
}

/** The experiment's `train.knobs` are keyed by game (`{ "tandem": { "p": 0.5 } }`): each game gets its own. */
function gameKnobs(knobs: unknown, game: ExperimentGame): unknown {
  return typeof knobs === 'object' && knobs !== null ? ((knobs as Record<string, unknown>)[game] ?? {}) : {};
}

/**
 * The tandem paper's main comparison and its KL-Reg ablation: GRPO, KL-Reg and TRL (tandem) seniors trained from one
 * base with the same settings and seed, then the base and the three seniors evaluated on every axis with the same
 * problems and sampling seeds, TRL tested against each baseline by paired one-sided tests (Holm-corrected in the report),
 * and one report written.
 */
export const TANDEM_VS_GRPO: SeededDefinition<ExperimentConfig, ExperimentGame, ExperimentResult> = {
  name: 'tandem-vs-grpo',
  title: 'Tandem RL against GRPO and KL-Reg',
  headline: tandemHeadline,
  plan: (config, setup) =>
    EXPERIMENT_GAMES.map((game) => {
      const trainConfig = parseConfig(
        TrainConfigSchema,
        { ...config.train, grader: setup.grader, knobs: gameKnobs(config.train.knobs, game), game, steps: config.steps, seed: config.seed, model: config.model, task: config.task },
        `experiment training config (${game})`,
      );
      return { arm: game, config: trainConfig, weight: trainingRollouts(trainConfig) };
    }),
  evaluationPhases: (config) => (['base', ...EXPERIMENT_GAMES] as const).map((label) => [`eval ${label}`, evalRollouts(config.eval, label !== 'base')] as const),
  evaluate: evaluateTandem,
};

export function runTandemVsGrpo(run: ExperimentRun<ExperimentConfig>, services?: ExperimentServices): Promise<ExperimentResult> {
  return runExperiment(TANDEM_VS_GRPO, run, services);
}

async function evaluateTandem(context: ExperimentContext, trained: readonly TrainedArm<ExperimentGame>[], config: ExperimentConfig): Promise<ExperimentResult> {
  const baseDir = resolveModelDir(config.model, config.task);
  const trainConfigs = Object.fromEntries(trained.map((t) => [t.arm, t.config])) as Record<ExperimentGame, TrainConfig>;
  const seniors: TrainedSenior[] = trained.map(({ arm, dir, steps, best }) => {
    const useBest = config.checkpoint === 'best' && best !== null;
    return { game: arm, dir: useBest ? bestPolicyDir(dir, 'senior') : checkpointPolicyDir(dir, 'senior'), step: useBest ? best.step : steps, selected: useBest ? 'best' : 'final' };
  });
  const evalLabels = ['base', ...EXPERIMENT_GAMES] as const;
  const base = await baseOf(context, baseDir);
  const junior: EvalModel = { id: baseDir, policy: base.policy };
  const seniorOf = (game: ExperimentGame) => seniors.find((s) => s.game === game);
  const models = [{ label: 'base' as const, dir: baseDir, step: 0 }, ...seniors.map((s) => ({ label: s.game, dir: s.dir, step: s.step }))];
  const reports = {} as Record<ExperimentGame | 'base', EvalReport>;
  for (const model of models) {
    const phase = `eval ${model.label}`;
    // GRPO is its own reference: an independent sample of the same model is the noise floor of shift-back share
    // and ρ (tokens picked as most displaced in one sample regress toward the junior in another by chance alone).
    const reference = model.label === 'base' ? undefined : seniorOf('grpo');
    const key = {
      model: model.dir,
      step: model.step,
      training: model.label === 'base' ? null : trainConfigs[model.label],
      junior: baseDir,
      reference: reference ? { dir: reference.dir, step: reference.step } : null,
      task: config.task,
      grader: context.grader,
      seed: config.seed,
      eval: config.eval,
    };
    reports[model.label] = await context.cached(
      phase,
      key,
      async () => {
        const stages = new Map<string, number>();
        const expected = evalRollouts(config.eval, reference !== undefined);
        const evaluated = model.label === 'base' ? junior : { id: model.dir, policy: (await context.services.loadPolicy(model.dir, model.label)).policy };
        const referenceModel = reference ? { id: reference.dir, policy: (await context.services.loadPolicy(reference.dir, 'grpo')).policy } : undefined;
        return context.evaluateModel({
          model: evaluated,
          junior,
          ...(referenceModel ? { reference: referenceModel } : {}),
          tokenizer: base.tokenizer,
          taskName: config.task,
          ...evalOptions(config.eval),
          stopTokens: base.policy.config.eosTokenIds,
          onProgress: (label, done) => {
            stages.set(label, done);
            context.progress.update(phase, [...stages.values()].reduce((a, v) => a + v, 0) / expected);
          },
        });
      },
      slug(model.label),
    );
    context.progress.update(phase, 1);
  }

  const comparisons = (['grpo', 'kl-reg'] as const).map((baseline) => ({ model: reports.tandem.model, significance: compareReports(reports.tandem, reports[baseline]) }));
  const written = await writeReport(
    evalLabels.map((label) => reports[label]),
    context.out,
    {
      labels: evalLabels.map((label) => GAME_LABELS[label]),
      title: 'Tandem RL against GRPO and KL-Reg',
      comparisons,
      notes: [await experimentNotes(context.out, config, trainConfigs, seniors, context.grader, context.game(trainConfigs['kl-reg']).losses?.senior?.kl)],
      figures: [await trainingRewardFigure(context.out, seniors)].filter((figure) => figure !== undefined),
    },
  );
  return { out: context.out, seed: config.seed, phases: context.phases, seniors, reports, comparisons, grader: context.grader, report: present(written.files.find((f) => f.endsWith(REPORT_MARKDOWN)), 'the written report.md') };
}

function evalOptions(settings: ExperimentEval) {
  return {
    axes: settings.axes,
    problems: settings.problems,
    samples: settings.samples,
    temperature: settings.temperature,
    topP: settings.topP,
    maxNewTokens: settings.maxNewTokens,
    batch: settings.batch,
    bootstrap: settings.bootstrap,
    handoffVariants: settings.handoffVariants,
    handoffP: settings.handoffP,
    legibilitySamples: settings.legibilitySamples,
    scoreBatch: settings.scoreBatch,
    ...(settings.displacedTop !== undefined ? { displacedTop: settings.displacedTop } : {}),
    ...(settings.displacedRanking !== undefined ? { displacedRanking: settings.displacedRanking } : {}),
    ...(settings.overEmittedTop !== undefined ? { overEmittedTop: settings.overEmittedTop } : {}),
    ...(settings.overEmittedMinCount !== undefined ? { overEmittedMinCount: settings.overEmittedMinCount } : {}),
    ...(settings.driftSmoothing !== undefined ? { driftSmoothing: settings.driftSmoothing } : {}),
    ...(settings.driftMinJuniorCount !== undefined ? { driftMinJuniorCount: settings.driftMinJuniorCount } : {}),
  };
}

/**
 * A training rollout also pays its share of the learning step: on the 2-core development machine a 30-step run
 * (B = 4, G = 8) spent 0.17 s per rollout against 0.11 s per rollout of the evaluation that followed.
 */
const TRAINING_ROLLOUT_COST = 1.5;

/** Evaluation-rollout equivalents of a training: B × G per step, plus one per validation problem at each validation. */
function trainingRollouts(config: TrainConfig): number {
  const validations = config.validateEvery > 0 ? Math.floor(config.steps / config.validateEvery) : 0;
  return Math.round(TRAINING_ROLLOUT_COST * (config.steps * config.problemsPerStep * config.groupSize + validations * config.validationProblems));
}

/** Responses an evaluation samples or scores, stage by stage as evaluate() reports them. */
function evalRollouts(settings: ExperimentEval, withReference: boolean): number {
  const perStage = settings.problems * settings.samples;
  const axes = new Set(settings.axes);
  const solo = axes.has('capability') || axes.has('drift') || axes.has('legibility') ? perStage : 0;
  const handoff = axes.has('handoff') ? settings.handoffVariants.length * perStage : 0;
  const drift = axes.has('drift') ? perStage * (withReference ? 2 : 1) : 0;
  const legibility = axes.has('legibility') ? settings.problems * Math.min(settings.legibilitySamples, settings.samples) : 0;
  return solo + handoff + drift + legibility;
}

async function experimentNotes(
  out: string,
  config: ExperimentConfig,
  trainConfigs: Record<ExperimentGame, TrainConfig>,
  seniors: readonly TrainedSenior[],
  grader: string,
  kl: { readonly beta: number; readonly estimator?: string } | undefined,
): Promise<string> {
  const shared = trainConfigs.grpo;
  const estimator = kl?.estimator ?? 'k3';
  const intro =
    `Three seniors trained from the same base (\`${config.model}\`, task \`${config.task}\`) with matched settings and seed: ` +
    `${config.steps} steps × ${shared.problemsPerStep} problems × groups of ${shared.groupSize}, learning rate ${shared.schedule.lr}, temperature ${shared.temperature}, seed ${config.seed}, grader \`${grader}\`, ` +
    `prompts by the ${shared.chatTemplate === 'on' ? "chat template where the tokenizer has one (the same rule in training and evaluation)" : 'plain prompt, in training and evaluation'}; ` +
    `GRPO on solo rollouts, KL-Reg adding a KL penalty toward the junior (β ${kl?.beta}, estimator \`${estimator}\`: ${estimator === 'k3' ? 'the per-token k3 estimate from the sampled tokens' : 'the exact per-position KL over the vocabulary'}), TRL (tandem) co-writing every rollout with the frozen junior. ` +
    `The junior of every evaluation is the base itself, so the base's own rows are noise floors: its drift KL is what two independent samples of one model differ by, ` +
    `and GRPO's displaced-token row (GRPO against an independent sample of itself) is the shift-back share and ρ that regression to the mean produces with no training difference at all. ` +
    `Numbers are what this run measured, with ± one bootstrap standard error over problems (one training seed: not the spread over seeds); read the significance table before reading a gap.`;
  return `${intro}\n\n${await trainingSummary(out, seniors)}`;
}

/** Each model's solo pass@1 and, where evaluated, its pass@1 at word handoff (tandem accuracy); TRL against each baseline on both. */
function tandemHeadline(result: ExperimentResult): Headline {
  const labels = ['base', ...EXPERIMENT_GAMES] as const;
  const word = (label: (typeof labels)[number]) => result.reports[label].handoff?.find((h) => h.variant === 'word');
  const wordPerProblem = (label: (typeof labels)[number]) => {
    const samples = word(label)?.samples ?? 1;
    return new Map(result.reports[label].per_problem.flatMap((p) => (p.handoff?.word ? [[`${p.benchmark}/${p.id}`, p.handoff.word.correct / samples] as const] : [])));
  };
  const metrics = labels.flatMap((label) => {
    const handoff = word(label);
    return [
      ...capabilityPass1(GAME_LABELS[label], result.reports[label]),
      ...(handoff ? [{ model: GAME_LABELS[label], metric: 'tandem accuracy pass@1 (word handoff)', value: handoff.macro.pass_at_k['1'].value, se: handoff.macro.pass_at_k['1'].se }] : []),
    ];
  });
  const comparisons = (['grpo', 'kl-reg'] as const).flatMap((other) => [
    comparisonOf('TRL', GAME_LABELS[other], 'pass@1', perProblemPass1(result.reports.tandem), perProblemPass1(result.reports[other])),
    ...(word('tandem') && word(other) ? [comparisonOf('TRL', GAME_LABELS[other], 'tandem accuracy pass@1 (word handoff)', wordPerProblem('tandem'), wordPerProblem(other))] : []),
  ]);
  return { metrics, comparisons };
}
