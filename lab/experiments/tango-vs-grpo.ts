import { mkdir } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import type { Catalog } from '../../core/catalog.ts';
import { fail } from '../../core/errors.ts';
import { updatesOf } from '../../core/game/rotations.ts';
import { pairedTTest } from '../../core/metrics/t-test.ts';
import { parseConfig } from '../../core/parse-config.ts';
import { arenaFor } from '../../engine/match/arena.ts';
import { DecoderPool } from '../../engine/match/decoder-pool.ts';
import { validationSeeds } from '../../engine/match/match-seeds.ts';
import { PolicyPool } from '../../engine/policies/policy-pool.ts';
import { advantageFor, gameFor } from '../../engine/trainer/run-pieces.ts';
import { TrainConfigSchema, type TrainConfig } from '../../engine/trainer/train-config.ts';
import { appendJsonl, readJsonl } from '../../engine/trainer/jsonl-log.ts';
import { checkpointPolicyDir, train, VALIDATION_FILE } from '../../engine/trainer/trainer.ts';
import { selectionSplit, validate } from '../../engine/trainer/validate.ts';
import { pathExists, writeFileAtomically } from '../../native/io/files.ts';
import { gradeExact } from '../../plugins/graders/exact/grade-exact.ts';
import { gradeMath } from '../../plugins/graders/math/grade-math.ts';
import { resolveModelDir } from '../../plugins/policies/default-model.ts';
import { loadPolicy } from '../../plugins/policies/load-policy.ts';
import { graderForTask, taskByName } from '../../plugins/tasks/registry.ts';
import { evaluate } from '../eval/evaluate.ts';
import type { EvalReport, SignificanceResult } from '../eval/report-types.ts';
import { compareReports } from '../eval/significance.ts';
import { evaluateVerifier, type VerifierEvalResult } from '../eval/verifier-eval.ts';
import { readCached, writeCached } from './cached-json.ts';
import { ProgressTracker, type ExperimentProgress } from './experiment-progress.ts';
import { ARM_ABLATION, TANGO_ARMS, type TangoArm, type TangoExperimentConfig } from './tango-experiment-config.ts';
import { writeTangoReport } from './tango-report.ts';

export interface TangoExperimentRun {
  /** Experiment directory: experiment.json, <arm>/ training runs, eval/*.json, report.md with figures. */
  out: string;
  config: TangoExperimentConfig;
  catalog: Catalog;
  threads?: number;
  onProgress?: (progress: ExperimentProgress) => void;
}

/** What a phase cost: wall seconds, CPU seconds of this process (every thread), load averages before and after. */
export interface PhaseCost {
  readonly phase: string;
  readonly status: 'ran' | 'cached';
  readonly wall_s: number;
  readonly cpu_s: number;
  readonly load_before: readonly number[];
  readonly load_after: readonly number[];
}

/** One point of a Figure 4 curve: a validation of an arm after `step` steps, on the game's validation problems. */
export interface CurvePoint {
  readonly step: number;
  readonly generatorUpdates: number;
  readonly verifierUpdates: number;
  readonly accuracy: number;
  readonly outcome_f1: number | null;
  readonly step_f1: number | null;
}

export interface TangoArmResult {
  readonly arm: TangoArm;
  readonly config: TrainConfig;
  readonly steps: number;
  readonly generatorUpdates: number;
  readonly verifierUpdates: number;
  /** The models the arm ends with (the base where it never trained that policy). */
  readonly generator: string;
  readonly verifier: string;
  readonly curve: readonly CurvePoint[];
}

export interface TangoExperimentResult {
  readonly out: string;
  readonly base: string;
  readonly arms: readonly TangoArmResult[];
  /** The curves' common start: the base as both policies, validated like the arms. */
  readonly baseCurvePoint: CurvePoint;
  readonly generators: Readonly<Record<'base' | TangoArm, EvalReport | undefined>>;
  readonly generatorTests: readonly { readonly model: string; readonly other: string; readonly significance: SignificanceResult }[];
  readonly verifiers: Readonly<Record<string, VerifierEvalResult>>;
  readonly verifierTests: readonly VerifierTest[];
  readonly costs: readonly PhaseCost[];
  readonly report: string;
}

export interface VerifierTest {
  readonly model: string;
  readonly other: string;
  readonly metric: 'outcome accuracy' | 'step accuracy';
  readonly n: number;
  readonly mean_diff: number;
  readonly statistic: number | null;
  readonly p: number;
}

const TRAINED_MARKER = 'trained.json';
const EVAL_DIR = 'eval';
/** Every phase run, as it ran: a resumed phase adds a line per process that worked on it. */
export const COSTS_FILE = 'costs.jsonl';

/**
 * RL Tango's Figure 4 (§4.3) end to end on the shipped last-letter base: Tango, vanilla GRPO, Tango with the generator
 * fixed and Tango with the verifier fixed, trained from one base with the same settings and seeds at matched
 * generator steps (the fixed-generator arm at Tango's number of verifier steps). Curves come from each run's own
 * validation (generator accuracy; verifier outcome and step F1 against gold labels, on test problems); then every
 * final generator is evaluated for pass@1 on the same test problems and seeds, every final verifier judges the same
 * solutions of the base generator, and paired one-sided t-tests compare Tango with each baseline. Resumable like
 * tandem-vs-grpo: finished trainings and evaluations are cached under keys of everything they depend on.
 */
export async function runTangoVsGrpo(run: TangoExperimentRun): Promise<TangoExperimentResult> {
  const out = resolve(run.out);
  const { config } = run;
  const base = resolveModelDir(config.model, config.task);
  const grader = (config.train.grader as string | undefined) ?? graderForTask(config.task) ?? 'math';
  const configs = Object.fromEntries(TANGO_ARMS.map((arm) => [arm, armConfig(run, arm, grader)])) as Record<TangoArm, TrainConfig>;
  await mkdir(out, { recursive: true });
  await writeFileAtomically(join(out, 'experiment.json'), `${JSON.stringify(config, null, 2)}\n`);
  const costs = new PhaseCosts(join(out, COSTS_FILE));
  const progress = new ProgressTracker(
    [...TANGO_ARMS.map((arm) => [`train ${arm}`, configs[arm].steps] as const), ['validate base', 1], ['eval generators', 4], ['eval verifiers', 3]],
    run.onProgress,
  );

  const arms: TangoArmResult[] = [];
  for (const arm of TANGO_ARMS) {
    const trainConfig = configs[arm];
    const dir = join(out, arm);
    const game = gameFor(run.catalog, trainConfig);
    await measured(costs, `train ${arm}`, async () => {
      if (await readCached(join(dir, TRAINED_MARKER), trainConfig)) return 'cached';
      await train({ out: dir, config: trainConfig, game, advantage: advantageFor(run.catalog, trainConfig), resume: 'if-checkpoint', threads: run.threads, onStep: (line, total) => progress.update(`train ${arm}`, line.step / total) });
      await writeCached(join(dir, TRAINED_MARKER), trainConfig, { steps: trainConfig.steps });
      return 'ran';
    });
    progress.update(`train ${arm}`, 1);
    const trains = (policy: string) => updatesOf(game.rotation, policy, trainConfig.steps) > 0;
    arms.push({
      arm,
      config: trainConfig,
      steps: trainConfig.steps,
      generatorUpdates: updatesOf(game.rotation, 'generator', trainConfig.steps),
      verifierUpdates: updatesOf(game.rotation, 'verifier', trainConfig.steps),
      generator: trains('generator') ? checkpointPolicyDir(dir, 'generator') : base,
      verifier: trains('verifier') ? checkpointPolicyDir(dir, 'verifier') : base,
      curve: await curveOf(dir, game.rotation),
    });
  }

  const task = await taskByName(config.task);
  const grade = grader === 'exact' ? gradeExact : gradeMath;
  const baseCurvePoint = await cachedPhase(costs, out, 'validate base', { base, config: configs.tango }, async () => {
    const game = gameFor(run.catalog, configs.tango);
    const pool = await PolicyPool.load(game.policies.map((name) => ({ name, init: base, trainable: false })), { task: config.task });
    const decoders = new DecoderPool(pool, { rows: configs.tango.problemsPerStep * configs.tango.groupSize, maxLen: pool.policy('generator').config.maxPositionEmbeddings, threads: run.threads });
    try {
      const arena = arenaFor(game, decoders, pool.tokenizer, pool.policy('generator').config.eosTokenIds, { temperature: configs.tango.temperature, topP: configs.tango.topP, maxNewTokens: configs.tango.maxNewTokens });
      const result = await validate(arena, task, selectionSplit(task), configs.tango.validationProblems, validationSeeds(config.seed, 0), game.rotation.at(0).seats, 'generator');
      const judge = result.judges.verifier ?? {};
      return { step: 0, generatorUpdates: 0, verifierUpdates: 0, accuracy: result.accuracy, outcome_f1: judge.outcome_f1 ?? null, step_f1: judge.step_f1 ?? null };
    } finally {
      await decoders.release();
    }
  });
  progress.update('validate base', 1);

  const basePolicy = await loadPolicy(base, 'base');
  const tokenizer = basePolicy.tokenizer ?? fail('CHECKPOINT_MISSING_FILE', `${base}: the experiment needs a tokenizer.json in the base model directory`);
  const generatorModels: Record<'base' | TangoArm, string | undefined> = {
    base,
    tango: arms.find((a) => a.arm === 'tango')!.generator,
    grpo: arms.find((a) => a.arm === 'grpo')!.generator,
    'fixed-verifier': arms.find((a) => a.arm === 'fixed-verifier')!.generator,
    'fixed-generator': undefined,
  };
  const generators = {} as Record<'base' | TangoArm, EvalReport | undefined>;
  for (const [label, dir] of Object.entries(generatorModels) as ['base' | TangoArm, string | undefined][]) {
    if (dir === undefined) continue;
    generators[label] = await cachedPhase(costs, out, `eval generator ${label}`, { dir, task: config.task, seed: config.seed, eval: config.eval, grader, trained: label === 'base' ? null : configs[label] }, async () =>
      evaluate({
        model: { id: dir, policy: (await loadPolicy(dir, label)).policy },
        tokenizer,
        benchmarks: [{ name: config.task, task, split: 'test', grade }],
        axes: ['capability'],
        problems: config.eval.problems,
        samples: config.eval.samples,
        grade,
        temperature: config.eval.temperature,
        topP: 1,
        maxNewTokens: generatorTurnTokens(gameFor(run.catalog, configs.tango)),
        stopTokens: basePolicy.policy.config.eosTokenIds,
        batch: config.eval.batch,
        seed: config.seed,
        bootstrap: config.eval.bootstrap,
        threads: run.threads,
      }),
    );
  }
  progress.update('eval generators', 1);
  const generatorTests = (['grpo', 'fixed-verifier', 'base'] as const).map((other) => ({ model: 'tango', other, significance: compareReports(generators.tango!, generators[other]!) }));

  const verifierModels: Record<string, string> = { base, tango: arms.find((a) => a.arm === 'tango')!.verifier, 'fixed-generator': arms.find((a) => a.arm === 'fixed-generator')!.verifier };
  const verifiers: Record<string, VerifierEvalResult> = {};
  for (const [label, dir] of Object.entries(verifierModels)) {
    verifiers[label] = await cachedPhase(costs, out, `eval verifier ${label}`, { dir, base, task: config.task, seed: config.seed, eval: config.eval, grader, trained: label === 'base' ? null : configs[label as TangoArm] }, async () =>
      evaluateVerifier({
        game: gameFor(run.catalog, { game: 'tango', grader, knobs: configs.tango.knobs }),
        judge: 'verifier',
        policies: { generator: base, verifier: dir },
        task,
        taskName: config.task,
        split: 'test',
        problems: config.eval.problems,
        samples: config.eval.verifierSamples,
        temperature: config.eval.temperature,
        topP: 1,
        seed: config.seed,
        batch: Math.max(1, Math.floor(config.eval.batch / config.eval.verifierSamples)),
        bootstrap: config.eval.bootstrap,
        threads: run.threads,
      }),
    );
  }
  progress.update('eval verifiers', 1);
  const verifierTests = [
    ...verifierTest(verifiers, 'tango', 'base'),
    ...verifierTest(verifiers, 'tango', 'fixed-generator'),
    ...verifierTest(verifiers, 'fixed-generator', 'base'),
  ];

  const result = { out, base, arms, baseCurvePoint, generators, generatorTests, verifiers, verifierTests, costs: await costs.all() };
  const report = await writeTangoReport(result, config, { machine: `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'})` });
  return { ...result, report };
}

/** The arm's training config: the shared overrides, the paper's rollout temperature 1.0 unless overridden, its ablation and its step count. */
function armConfig(run: TangoExperimentRun, arm: TangoArm, grader: string): TrainConfig {
  const { config } = run;
  const knobs = { ...config.knobs, ablation: ARM_ABLATION[arm] };
  const shared = { temperature: 1, ...config.train, grader, game: 'tango', seed: config.seed, model: config.model, task: config.task };
  const tango = gameFor(run.catalog, { game: 'tango', grader, knobs: { ...config.knobs, ablation: 'none' } });
  const tangoSteps = stepsForUpdates(tango.rotation, 'generator', config.generatorSteps);
  const steps = arm === 'tango' ? tangoSteps : arm === 'fixed-generator' ? updatesOf(tango.rotation, 'verifier', tangoSteps) : config.generatorSteps;
  return parseConfig(TrainConfigSchema, { ...shared, knobs, steps }, `experiment training config (${arm})`);
}

/** The fewest steps in which the rotation trains `policy` `updates` times. */
export function stepsForUpdates(rotation: Parameters<typeof updatesOf>[0], policy: string, updates: number): number {
  let steps = 0;
  for (let done = 0; done < updates; steps++) if (rotation.at(steps).trains.includes(policy)) done++;
  return steps;
}

/** An arm's validations as curve points, each placed at the updates its policies had made by then. */
async function curveOf(dir: string, rotation: Parameters<typeof updatesOf>[0]): Promise<CurvePoint[]> {
  const path = join(dir, VALIDATION_FILE);
  if (!(await pathExists(path))) return [];
  const lines = await readJsonl<{ step: number; accuracy: number; judges?: Record<string, Record<string, number | null>> }>(path);
  return lines.map(({ step, accuracy, judges }) => ({
    step,
    generatorUpdates: updatesOf(rotation, 'generator', step),
    verifierUpdates: updatesOf(rotation, 'verifier', step),
    accuracy,
    outcome_f1: judges?.verifier?.outcome_f1 ?? null,
    step_f1: judges?.verifier?.step_f1 ?? null,
  }));
}

function verifierTest(results: Record<string, VerifierEvalResult>, model: string, other: string): VerifierTest[] {
  const a = results[model].per_problem;
  const b = results[other].per_problem;
  const tests: VerifierTest[] = [];
  for (const metric of ['outcome accuracy', 'step accuracy'] as const) {
    const pick = (p: (typeof a)[number]) => (metric === 'outcome accuracy' ? p.outcome_accuracy : p.step_accuracy);
    const pairs = a.flatMap((p, i) => (pick(p) !== null && pick(b[i]) !== null ? [[pick(p)!, pick(b[i])!] as const] : []));
    if (pairs.length < 2) continue;
    const t = pairedTTest(pairs.map(([x]) => x), pairs.map(([, y]) => y), 'greater');
    tests.push({ model, other, metric, n: t.n, mean_diff: t.mean_diff, statistic: t.statistic, p: t.p });
  }
  return tests;
}

/** Runs a phase unless a previous run cached its result under the same key. */
export async function cachedPhase<T>(costs: PhaseCosts, out: string, phase: string, key: unknown, compute: () => Promise<T>): Promise<T> {
  const path = join(out, EVAL_DIR, `${phase.replace(/[^a-z0-9]+/gi, '-')}.json`);
  let value: T | undefined;
  await measured(costs, phase, async () => {
    value = await readCached<T>(path, key);
    if (value !== undefined) return 'cached';
    value = await compute();
    await writeCached(path, key, value);
    return 'ran';
  });
  return value!;
}

/** Runs a phase and appends what it cost (wall and CPU seconds of this process, every thread, and the load) to the costs file. */
export async function measured(costs: PhaseCosts, phase: string, body: () => Promise<'ran' | 'cached'>): Promise<void> {
  const load_before = loadavg().map((x) => Number(x.toFixed(2)));
  const wall = performance.now();
  const cpu = process.cpuUsage();
  const status = await body();
  const used = process.cpuUsage(cpu);
  await costs.add({ phase, status, wall_s: (performance.now() - wall) / 1000, cpu_s: (used.user + used.system) / 1e6, load_before, load_after: loadavg().map((x) => Number(x.toFixed(2))) });
}

export class PhaseCosts {
  constructor(private readonly path: string) {}

  async add(cost: PhaseCost): Promise<void> {
    await appendJsonl(this.path, [cost]);
  }

  async all(): Promise<PhaseCost[]> {
    return (await pathExists(this.path)) ? readJsonl<PhaseCost>(this.path) : [];
  }
}

/** The generator's token budget in the game (its solving turn's `maxTokens`, the knob `generatorTokens`). */
function generatorTurnTokens(game: ReturnType<typeof gameFor>): number {
  const turn = game.protocol.family === 'sequential' ? game.protocol.turns.find((t) => t.role === 'generator') : undefined;
  return turn?.maxTokens ?? fail('CONFIG_INVALID', 'tango-vs-grpo: the game has no generator turn with a token budget');
}
