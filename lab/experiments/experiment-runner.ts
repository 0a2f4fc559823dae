import { withDirectoryLock } from '../../native/io/dir-lock.ts';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import type { AnyGame, Catalog } from '../../core/catalog.ts';
import { fail, present } from '../../core/errors.ts';
import type { Grader } from '../../core/grading/verdict.ts';
import type { Task } from '../../core/tasks/task.ts';
import { appendJsonl, readJsonl } from '../../engine/trainer/jsonl-log.ts';
import { advantageFor } from '../../engine/trainer/run-pieces.ts';
import type { TrainConfig } from '../../engine/trainer/train-config.ts';
import { train } from '../../engine/trainer/trainer.ts';
import { pathExists, writeFileAtomically } from '../../native/io/files.ts';
import type { Device } from '../../native/ort.ts';
import { loadPolicy } from '../../plugins/policies/load-policy.ts';
import { graderForTask, taskByName } from '../../plugins/tasks/registry.ts';
import type { TextTokenizer } from '../../plugins/tokenizers/hf-tokenizer.ts';
import { policyDivergence } from '../eval/answer-divergence.ts';
import { evaluateCascade } from '../eval/cascade-eval.ts';
import { evaluate, type EvalOptions } from '../eval/evaluate.ts';
import type { EvalReport } from '../eval/report-types.ts';
import { validateGame } from '../eval/game-validation.ts';
import { evaluateVerifier } from '../eval/verifier-eval.ts';
import { readCached, writeCached } from './cached-json.ts';
import { ProgressTracker, type ExperimentProgress } from './experiment-progress.ts';

/**
 * What an experiment does that touches models: training, and the evaluations. The runner calls them only through
 * this record, with the experiment's grader, so one fix reaches every experiment; a test passes stand-ins to check that.
 */
export interface ExperimentServices {
  readonly train: typeof train;
  readonly evaluate: typeof evaluate;
  readonly evaluateCascade: typeof evaluateCascade;
  readonly evaluateVerifier: typeof evaluateVerifier;
  readonly validateGame: typeof validateGame;
  /** Two policies answering the same problems alone on the same seeds: how often their final answers differ. */
  readonly policyDivergence: typeof policyDivergence;
  /** Loads a model an evaluation reads (a trained policy, or the base with its tokenizer). */
  readonly loadPolicy: typeof loadPolicy;
}

export const MODEL_SERVICES: ExperimentServices = { train, evaluate, evaluateCascade, evaluateVerifier, validateGame, policyDivergence, loadPolicy };

/** What a phase did this time: `ran`, or `cached` when a previous run had finished it. */
export interface PhaseOutcome {
  readonly phase: string;
  readonly status: 'ran' | 'cached';
}

/** What a phase cost: wall seconds, CPU seconds of this process (every thread), load averages before and after. */
export interface PhaseCost extends PhaseOutcome {
  readonly wall_s: number;
  readonly cpu_s: number;
  readonly load_before: readonly number[];
  readonly load_after: readonly number[];
}

/** Every phase run, as it ran: a resumed phase adds a line per process that worked on it. */
export const COSTS_FILE = 'costs.jsonl';
export const EXPERIMENT_FILE = 'experiment.json';
export const TRAINED_MARKER = 'trained.json';
export const EVAL_DIR = 'eval';

/** One training of the experiment: its name (the run's directory under the experiment's) and its config. */
export interface ArmPlan<Arm extends string = string> {
  readonly arm: Arm;
  readonly config: TrainConfig;
  /** Its weight in the progress bar, in the unit the definition's evaluation phases use (default: its steps). */
  readonly weight?: number;
}

/** A finished training. */
export interface TrainedArm<Arm extends string = string> {
  readonly arm: Arm;
  readonly config: TrainConfig;
  readonly dir: string;
  readonly steps: number;
  /** The best validation, where the run validated (best/ holds its policies). */
  readonly best: { readonly step: number; readonly accuracy: number } | null;
}

/** The fields every experiment config shares. */
export interface SharedExperimentConfig {
  readonly seed: number;
  readonly model: string;
  readonly task: string;
  readonly train: Readonly<Record<string, unknown>>;
}

/** What the definition's plan sees: the catalog and the one grader of the experiment. */
export interface ExperimentSetup {
  readonly catalog: Catalog;
  /** The grader's name: the training config's `grader`, else the task's (last-letter: exact), else math. */
  readonly grader: string;
}

/**
 * One paper's experiment: which runs it trains, what it evaluates once they are trained, and its report. The runner
 * owns the rest: the grader, the training loop with its cache, the evaluation calls, the costs and the progress.
 */
export interface ExperimentDefinition<Config extends SharedExperimentConfig, Arm extends string, Result> {
  readonly name: string;
  plan(config: Config, setup: ExperimentSetup): readonly ArmPlan<Arm>[];
  /** The evaluation phases with their progress weights, in the unit of the arms' weights. */
  evaluationPhases(config: Config): readonly (readonly [phase: string, weight: number])[];
  /** Everything after training: evaluations through the context, tests, the report; returns the result. */
  evaluate(context: ExperimentContext, trained: readonly TrainedArm<Arm>[], config: Config): Promise<Result>;
}

export interface ExperimentRun<Config> {
  /** Experiment directory: experiment.json, one directory per run, eval/*.json, costs.jsonl, report.md with its figures. */
  readonly out: string;
  readonly config: Config;
  /** Where the games, graders and estimators the configs name come from. */
  readonly catalog: Catalog;
  readonly threads?: number;
  /** Device of the evaluations; training runs on the CPU. */
  readonly device?: Device;
  readonly onProgress?: (progress: ExperimentProgress) => void;
}

/** The grader an experiment trains and evaluates by: the training config's, else the task's own, else math. */
export function experimentGrader(catalog: Catalog, config: Pick<SharedExperimentConfig, 'train' | 'task'>): { name: string; grade: Grader } {
  const name = (config.train.grader as string | undefined) ?? graderForTask(config.task) ?? 'math';
  // An unknown name fails here, before anything trains, as `ludus train` fails on it.
  return { name, grade: catalog.graders.create(name) };
}

/**
 * What an experiment's evaluation phase works with: the one grader, games built with it, cached phases that record
 * their cost, and the evaluation calls with the grader, the seed, the threads, the device and the prompt rule of the
 * trainings filled in.
 */
export class ExperimentContext {
  readonly phases: PhaseOutcome[] = [];

  constructor(
    readonly out: string,
    readonly catalog: Catalog,
    readonly grader: string,
    readonly grade: Grader,
    readonly task: Task,
    readonly services: ExperimentServices,
    readonly progress: ProgressTracker,
    private readonly costsPath: string,
    readonly options: { readonly threads?: number; readonly device?: Device; readonly seed: number; readonly chatTemplate: TrainConfig['chatTemplate'] },
  ) {}

  /** A game of the catalog built with the experiment's grader. */
  game(config: { readonly game: string; readonly knobs?: Readonly<Record<string, unknown>> }): AnyGame {
    return this.catalog.games.create(config.game, { grader: this.grade, knobs: config.knobs ?? {} });
  }

  /** Runs a phase unless a previous run cached its result under the same key (in eval/<file>.json, by default the phase's name). */
  async cached<T>(phase: string, key: unknown, compute: () => Promise<T>, file = phase.replace(/[^a-z0-9]+/gi, '-')): Promise<T> {
    const path = join(this.out, EVAL_DIR, `${file}.json`);
    let value: T | undefined;
    await this.measured(phase, async () => {
      value = await readCached<T>(path, key);
      if (value !== undefined) return 'cached';
      value = await compute();
      await writeCached(path, key, value);
      return 'ran';
    });
    return present(value, `the value of phase ${phase}`);
  }

  /** Runs a phase and appends what it cost (wall and CPU seconds of this process, every thread, and the load) to costs.jsonl. */
  async measured(phase: string, body: () => Promise<'ran' | 'cached'>): Promise<void> {
    const load_before = loadavg().map((x) => Number(x.toFixed(2)));
    const wall = performance.now();
    const cpu = process.cpuUsage();
    const status = await body();
    const used = process.cpuUsage(cpu);
    this.phases.push({ phase, status });
    const cost: PhaseCost = { phase, status, wall_s: (performance.now() - wall) / 1000, cpu_s: (used.user + used.system) / 1e6, load_before, load_after: loadavg().map((x) => Number(x.toFixed(2))) };
    await appendJsonl(this.costsPath, [cost]);
  }

  async costs(): Promise<PhaseCost[]> {
    return (await pathExists(this.costsPath)) ? readJsonl<PhaseCost>(this.costsPath) : [];
  }

  /** The machine, for reports. */
  get machine(): string {
    return `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'})`;
  }

  /**
   * One model alone on the test split of the experiment's task (`evaluate`), graded by the experiment's grader, prompted
   * by the trainings' rule, on the experiment's seed; the caller gives the axes, sizes and sampling.
   */
  evaluateModel(options: Omit<EvalOptions, 'benchmarks' | 'grade' | 'seed' | 'threads' | 'device' | 'chatTemplate'> & { readonly taskName: string }): Promise<EvalReport> {
    const { taskName, ...rest } = options;
    return this.services.evaluate({
      ...rest,
      benchmarks: [{ name: taskName, task: this.task, split: 'test', grade: this.grade }],
      grade: this.grade,
      seed: this.options.seed,
      chatTemplate: this.options.chatTemplate,
      ...(this.options.threads !== undefined ? { threads: this.options.threads } : {}),
      ...(this.options.device !== undefined ? { device: this.options.device } : {}),
    });
  }

  /** The settings every game-playing evaluation (cascade, verifier) shares: test split, seed, threads, device, prompt rule. */
  gameEvalSettings(taskName: string) {
    return {
      task: this.task,
      taskName,
      split: 'test' as const,
      seed: this.options.seed,
      chatTemplate: this.options.chatTemplate,
      ...(this.options.threads !== undefined ? { threads: this.options.threads } : {}),
      ...(this.options.device !== undefined ? { device: this.options.device } : {}),
    };
  }
}

/**
 * Runs one experiment at the config's seed: the grader resolved once, experiment.json written, every arm trained
 * (resumable: a finished training, marked by trained.json keyed by its config, is not redone; an unfinished one continues
 * from its checkpoint), then the definition's evaluations and report.
 */
export function runExperiment<Config extends SharedExperimentConfig, Arm extends string, Result>(
  definition: ExperimentDefinition<Config, Arm, Result>,
  run: ExperimentRun<Config>,
  services: ExperimentServices = MODEL_SERVICES,
): Promise<Result> {
  return withDirectoryLock(resolve(run.out), 'experiment', () => runExperimentUnlocked(definition, run, services));
}

async function runExperimentUnlocked<Config extends SharedExperimentConfig, Arm extends string, Result>(
  definition: ExperimentDefinition<Config, Arm, Result>,
  run: ExperimentRun<Config>,
  services: ExperimentServices,
): Promise<Result> {
  const out = resolve(run.out);
  const { config, catalog } = run;
  const grader = experimentGrader(catalog, config);
  const plans = definition.plan(config, { catalog, grader: grader.name });
  if (plans.length === 0) fail('CONFIG_INVALID', `${definition.name}: the experiment trains nothing`);
  const chatTemplates = new Set(plans.map((plan) => plan.config.chatTemplate));
  if (chatTemplates.size > 1) fail('CONFIG_INVALID', `${definition.name}: every run must put prompts to the models by one rule (chatTemplate ${[...chatTemplates].join(' and ')})`);
  const task = await taskByName(config.task);
  await writeFileAtomically(join(out, EXPERIMENT_FILE), `${JSON.stringify(config, null, 2)}\n`);
  const progress = new ProgressTracker([...plans.map((plan) => [`train ${plan.arm}`, plan.weight ?? plan.config.steps] as const), ...definition.evaluationPhases(config)], run.onProgress);
  const context = new ExperimentContext(out, catalog, grader.name, grader.grade, task, services, progress, join(out, COSTS_FILE), {
    threads: run.threads,
    device: run.device,
    seed: config.seed,
    chatTemplate: plans[0].config.chatTemplate,
  });

  const trained: TrainedArm<Arm>[] = [];
  for (const plan of plans) {
    const phase = `train ${plan.arm}`;
    const dir = join(out, plan.arm);
    let marker: { steps: number; best: TrainedArm['best'] } | undefined;
    await context.measured(phase, async () => {
      marker = await readCached(join(dir, TRAINED_MARKER), plan.config);
      if (marker) return 'cached';
      const result = await services.train({
        out: dir,
        config: plan.config,
        game: context.game(plan.config),
        advantage: advantageFor(catalog, plan.config),
        resume: 'if-checkpoint',
        threads: run.threads,
        onStep: (line, total) => progress.update(phase, line.step / total),
      });
      marker = { steps: result.steps, best: result.best };
      await writeCached(join(dir, TRAINED_MARKER), plan.config, marker);
      return 'ran';
    });
    progress.update(phase, 1);
    trained.push({ arm: plan.arm, config: plan.config, dir, ...present(marker, `the trained marker of ${dir}`) });
  }
  return definition.evaluate(context, trained, config);
}

/** The base's tokenizer and policy, which every evaluation of an experiment reads with. */
export async function baseOf(context: ExperimentContext, base: string): Promise<{ tokenizer: TextTokenizer; policy: Awaited<ReturnType<typeof loadPolicy>>['policy'] }> {
  const loaded = await context.services.loadPolicy(base, 'base');
  const tokenizer = loaded.tokenizer ?? fail('CHECKPOINT_MISSING_FILE', `${base}: the experiment needs a tokenizer.json in the base model directory`);
  return { tokenizer, policy: loaded.policy };
}
