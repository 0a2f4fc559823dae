import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fail } from '../../core/errors.ts';
import { parseConfig } from '../../core/parse-config.ts';
import { writeFileAtomically } from '../../native/io/files.ts';
import type { Device } from '../../native/ort.ts';
import { evaluate, type EvalModel } from '../eval/evaluate.ts';
import type { EvalReport, SignificanceResult } from '../eval/report-types.ts';
import { compareReports } from '../eval/significance.ts';
import { resolveModelDir } from '../../plugins/policies/default-model.ts';
import { loadPolicy } from '../../plugins/policies/load-policy.ts';
import { slug } from '../reports/markdown.ts';
import { writeReport, REPORT_MARKDOWN } from '../reports/write-report.ts';
import { taskByName } from '../../plugins/tasks/registry.ts';
import { TrainConfigSchema, type TrainConfig } from '../../engine/trainer/train-config.ts';
import type { Catalog } from '../../core/catalog.ts';
import { advantageFor, gameFor } from '../../engine/trainer/run-pieces.ts';
import { bestPolicyDir, checkpointPolicyDir, train } from '../../engine/trainer/trainer.ts';
import { readCached, writeCached } from './cached-json.ts';
import { EXPERIMENT_GAMES, GAME_LABELS, type ExperimentConfig, type ExperimentEval, type ExperimentGame } from './experiment-config.ts';
import { ProgressTracker, type ExperimentProgress } from './experiment-progress.ts';
import { trainingRewardFigure, trainingSummary } from './training-summary.ts';

export interface ExperimentRun {
  /** Experiment directory: experiment.json, <game>/ training runs, eval/<model>.json, report.md with its figures. */
  out: string;
  config: ExperimentConfig;
  /** Where the games, graders and estimators the configs name come from. */
  catalog: Catalog;
  threads?: number;
  device?: Device;
  onProgress?: (progress: ExperimentProgress) => void;
}

/** What a phase did this time: `ran`, or `cached` when a previous run had finished it. */
export interface PhaseOutcome {
  phase: string;
  status: 'ran' | 'cached';
}

export interface TrainedSenior {
  game: ExperimentGame;
  /** The checkpoint evaluated. */
  dir: string;
  /** Its optimizer step, and whether it is the best by the game's own validation or the final one. */
  step: number;
  selected: 'best' | 'final';
}

export interface ExperimentResult {
  out: string;
  phases: PhaseOutcome[];
  seniors: TrainedSenior[];
  reports: Record<ExperimentGame | 'base', EvalReport>;
  comparisons: Array<{ model: string; significance: SignificanceResult }>;
  /** Path of report.md. */
  report: string;
}

export const EXPERIMENT_FILE = 'experiment.json';
export const TRAINED_MARKER = 'trained.json';
export const EVAL_DIR = 'eval';

interface TrainedMarker {
  config: TrainConfig;
  steps: number;
  best: { step: number; accuracy: number } | null;
}

/**
 * The tandem paper's main comparison and its KL-Reg ablation, end to end: GRPO, KL-Reg and TRL (tandem) seniors
 * trained from one base with the same settings and seeds, then the base and the three seniors evaluated on every
 * axis with the same problems and sampling seeds, TRL tested against each baseline by paired one-sided t-tests,
 * and one report written. Resumable: a training continues from its checkpoint, a finished training or evaluation
 * (marked by an atomically written JSON keyed by everything it depends on) is not redone.
 */
/** The experiment's `train.knobs` are keyed by game (`{ "tandem": { "p": 0.5 } }`): each game gets its own. */
function gameKnobs(knobs: unknown, game: ExperimentGame): unknown {
  return typeof knobs === 'object' && knobs !== null ? ((knobs as Record<string, unknown>)[game] ?? {}) : {};
}

export async function runTandemVsGrpo(run: ExperimentRun): Promise<ExperimentResult> {
  const out = resolve(run.out);
  const { config } = run;
  const baseDir = resolveModelDir(config.model, config.task);
  const trainConfigs = Object.fromEntries(
    EXPERIMENT_GAMES.map((game) => [
      game,
      parseConfig(TrainConfigSchema, { ...config.train, knobs: gameKnobs(config.train.knobs, game), game, steps: config.steps, seed: config.seed, model: config.model, task: config.task }, `experiment training config (${game})`),
    ]),
  ) as Record<ExperimentGame, TrainConfig>;
  const task = await taskByName(config.task);
  // One grader for the games' rewards and every evaluation, the one the training config names (an unknown name
  // fails here, before anything trains, as `ludus train` fails on it).
  const grade = run.catalog.graders.create(trainConfigs.grpo.grader);
  await mkdir(out, { recursive: true });
  await writeFileAtomically(join(out, EXPERIMENT_FILE), `${JSON.stringify(config, null, 2)}\n`);

  const evalLabels = ['base', ...EXPERIMENT_GAMES] as const;
  const progress = new ProgressTracker(
    [
      ...EXPERIMENT_GAMES.map((game) => [`train ${game}`, trainingRollouts(trainConfigs[game])] as const),
      ...evalLabels.map((label) => [`eval ${label}`, evalRollouts(config.eval, label !== 'base')] as const),
    ],
    run.onProgress,
  );
  const phases: PhaseOutcome[] = [];

  const seniors: TrainedSenior[] = [];
  for (const game of EXPERIMENT_GAMES) {
    const phase = `train ${game}`;
    const dir = join(out, game);
    const markerPath = join(dir, TRAINED_MARKER);
    let marker = await readCached<TrainedMarker>(markerPath, trainConfigs[game]);
    if (marker) {
      phases.push({ phase, status: 'cached' });
    } else {
      const trainConfig = trainConfigs[game];
      const result = await train({
        out: dir,
        config: trainConfig,
        game: gameFor(run.catalog, trainConfig),
        advantage: advantageFor(run.catalog, trainConfig),
        resume: 'if-checkpoint',
        threads: run.threads,
        onStep: (line, total) => progress.update(phase, line.step / total),
      });
      marker = { config: trainConfig, steps: result.steps, best: result.best };
      await writeCached(markerPath, trainConfig, marker);
      phases.push({ phase, status: 'ran' });
    }
    progress.update(phase, 1);
    const useBest = config.checkpoint === 'best' && marker.best !== null;
    seniors.push({ game, dir: useBest ? bestPolicyDir(dir, 'senior') : checkpointPolicyDir(dir, 'senior'), step: useBest ? marker.best!.step : marker.steps, selected: useBest ? 'best' : 'final' });
  }

  const base = await loadPolicy(baseDir, 'base');
  const tokenizer = base.tokenizer ?? fail('CHECKPOINT_MISSING_FILE', `${baseDir}: the experiment needs a tokenizer.json in the base model directory`);
  const junior: EvalModel = { id: baseDir, policy: base.policy };
  const seniorOf = (game: ExperimentGame) => seniors.find((s) => s.game === game)!;
  const models = [
    { label: 'base' as const, dir: baseDir, step: 0 },
    ...seniors.map((s) => ({ label: s.game, dir: s.dir, step: s.step })),
  ];
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
      grader: trainConfigs.grpo.grader,
      seed: config.seed,
      eval: config.eval,
    };
    const cachePath = join(out, EVAL_DIR, `${slug(model.label)}.json`);
    let report = await readCached<EvalReport>(cachePath, key);
    if (report) {
      phases.push({ phase, status: 'cached' });
    } else {
      report = await evaluateModel(model.label === 'base' ? junior : { id: model.dir, policy: (await loadPolicy(model.dir, model.label)).policy });
      await writeCached(cachePath, key, report);
      phases.push({ phase, status: 'ran' });
    }
    progress.update(phase, 1);
    reports[model.label] = report;

    async function evaluateModel(evaluated: EvalModel): Promise<EvalReport> {
      const stages = new Map<string, number>();
      const expected = evalRollouts(config.eval, reference !== undefined);
      const referenceModel = reference ? { id: reference.dir, policy: (await loadPolicy(reference.dir, 'grpo')).policy } : undefined;
      return evaluate({
        model: evaluated,
        junior,
        ...(referenceModel ? { reference: referenceModel } : {}),
        tokenizer,
        benchmarks: [{ name: config.task, task, split: 'test' }],
        ...evalOptions(config.eval),
        stopTokens: base.policy.config.eosTokenIds,
        grade,
        seed: config.seed,
        threads: run.threads,
        device: run.device,
        onProgress: (label, done) => {
          stages.set(label, done);
          progress.update(phase, [...stages.values()].reduce((a, v) => a + v, 0) / expected);
        },
      });
    }
  }

  const comparisons = (['grpo', 'kl-reg'] as const).map((baseline) => ({ model: reports.tandem.model, significance: compareReports(reports.tandem, reports[baseline]) }));
  const written = await writeReport(
    evalLabels.map((label) => reports[label]),
    out,
    {
      labels: evalLabels.map((label) => GAME_LABELS[label]),
      title: 'Tandem RL against GRPO and KL-Reg',
      comparisons,
      notes: [await experimentNotes(out, config, trainConfigs, seniors)],
      figures: [await trainingRewardFigure(out, seniors)].filter((figure) => figure !== undefined),
    },
  );
  return { out, phases, seniors, reports, comparisons, report: written.files.find((f) => f.endsWith(REPORT_MARKDOWN))! };
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
    chatTemplate: settings.chatTemplate,
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

async function experimentNotes(out: string, config: ExperimentConfig, trainConfigs: Record<ExperimentGame, TrainConfig>, seniors: readonly TrainedSenior[]): Promise<string> {
  const shared = trainConfigs.grpo;
  const intro =
    `Three seniors trained from the same base (\`${config.model}\`, task \`${config.task}\`) with matched settings and seeds: ` +
    `${config.steps} steps × ${shared.problemsPerStep} problems × groups of ${shared.groupSize}, learning rate ${shared.schedule.lr}, temperature ${shared.temperature}, seed ${config.seed}; ` +
    `GRPO on solo rollouts, KL-Reg adding a KL penalty toward the junior, TRL (tandem) co-writing every rollout with the frozen junior. ` +
    `The junior of every evaluation is the base itself, so the base's own rows are noise floors: its drift KL is what two independent samples of one model differ by, ` +
    `and GRPO's displaced-token row (GRPO against an independent sample of itself) is the shift-back share and ρ that regression to the mean produces with no training difference at all. ` +
    `Numbers are what this run measured, with ± one bootstrap standard error; read the significance table before reading a gap.`;
  return `${intro}\n\n${await trainingSummary(out, seniors)}`;
}
