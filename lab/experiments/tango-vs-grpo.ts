import { join } from 'node:path';
import { fail, present } from '../../core/errors.ts';
import { updatesOf } from '../../core/game/rotations.ts';
import { parseConfig } from '../../core/parse-config.ts';
import { readJsonl } from '../../engine/trainer/jsonl-log.ts';
import { TrainConfigSchema } from '../../engine/trainer/train-config.ts';
import { checkpointPolicyDir, tasksOfRun, VALIDATION_FILE } from '../../engine/trainer/trainer.ts';
import { pathExists } from '../../native/io/files.ts';
import { resolveModelDir } from '../../plugins/policies/default-model.ts';
import type { EvalReport } from '../eval/report-types.ts';
import { compareReports, pairedTest } from '../eval/significance.ts';
import type { VerifierEvalResult } from '../eval/verifier-eval.ts';
import { capabilityPass1, comparisonOf, perProblemPass1, type Headline, type SeededDefinition } from './seeds-summary.ts';
import { ARM_LABELS, TANGO_CLAIMS } from './tango-experiment-config.ts';
import { baseOf, runExperiment, type ExperimentContext, type ExperimentRun, type ExperimentServices, type TrainedArm } from './experiment-runner.ts';
import { ARM_ABLATION, TANGO_ARMS, type TangoArm, type TangoExperimentConfig } from './tango-experiment-config.ts';
import { writeTangoReport } from './tango-report.ts';
import type { CurvePoint, TangoArmResult, TangoExperimentResult, VerifierTest } from './tango-result.ts';

export type TangoExperimentRun = ExperimentRun<TangoExperimentConfig>;
export type { CurvePoint, TangoArmResult, TangoExperimentResult, VerifierTest };

/** The verifiers compared: the base (= the fixed verifier), Tango's and the fixed-generator arm's. */
const VERIFIERS = ['base', 'tango', 'fixed-generator'] as const;

/**
 * RL Tango's Figure 4 (§4.3): Tango, vanilla GRPO, Tango with the generator fixed and Tango with the verifier fixed,
 * trained from one base with the same settings and seed at matched generator steps (the fixed-generator arm at Tango's
 * number of verifier steps). Curves come from each run's own validation (generator accuracy; verifier outcome and step
 * F1 against gold labels, on validation problems); then every final generator is evaluated for pass@1 on the same test
 * problems (greedy, as the paper evaluates), every final verifier judges the same solutions of the base generator and of
 * Tango's final generator, and paired one-sided tests (Holm-corrected in the report) compare Tango with each baseline.
 */
export const TANGO_VS_GRPO: SeededDefinition<TangoExperimentConfig, TangoArm, TangoExperimentResult> = {
  name: 'tango-vs-grpo',
  title: 'RL Tango against vanilla GRPO, with the generator or the verifier fixed (Figure 4)',
  headline: tangoHeadline,
  plan: (config, setup) => {
    const tango = setup.catalog.games.create('tango', { grader: setup.catalog.graders.create(setup.grader), knobs: { ...config.knobs, ablation: 'none' } });
    const tangoSteps = stepsForUpdates(tango.rotation, 'generator', config.generatorSteps);
    return TANGO_ARMS.map((arm) => {
      const steps = arm === 'tango' ? tangoSteps : arm === 'fixed-generator' ? updatesOf(tango.rotation, 'verifier', tangoSteps) : config.generatorSteps;
      // The paper's rollout temperature 1.0 and its loss (Eq. 1: each sequence's token mean) unless overridden.
      const shared = { temperature: 1, normalization: 'sequence-mean', ...config.train, grader: setup.grader, game: 'tango', seed: config.seed, model: config.model, task: config.task };
      return { arm, config: parseConfig(TrainConfigSchema, { ...shared, knobs: { ...config.knobs, ablation: ARM_ABLATION[arm] }, steps }, `experiment training config (${arm})`) };
    });
  },
  evaluationPhases: () => [
    ['validate base', 1],
    ['eval generators', 4],
    ['eval verifiers', 6],
  ],
  evaluate: evaluateTango,
};

export function runTangoVsGrpo(run: TangoExperimentRun, services?: ExperimentServices): Promise<TangoExperimentResult> {
  return runExperiment(TANGO_VS_GRPO, run, services);
}

async function evaluateTango(context: ExperimentContext, trained: readonly TrainedArm<TangoArm>[], config: TangoExperimentConfig): Promise<TangoExperimentResult> {
  const base = resolveModelDir(config.model, config.task);
  const tangoConfig = present(trained.find((t) => t.arm === 'tango'), 'the trained tango arm').config;
  const tangoGame = context.game(tangoConfig);
  const arms: TangoArmResult[] = trained.map(({ arm, config: armConfig, dir }) => {
    const game = context.game(armConfig);
    const trains = (policy: string) => updatesOf(game.rotation, policy, armConfig.steps) > 0;
    return {
      arm,
      config: armConfig,
      steps: armConfig.steps,
      generatorUpdates: updatesOf(game.rotation, 'generator', armConfig.steps),
      verifierUpdates: updatesOf(game.rotation, 'verifier', armConfig.steps),
      generator: trains('generator') ? checkpointPolicyDir(dir, 'generator') : base,
      verifier: trains('verifier') ? checkpointPolicyDir(dir, 'verifier') : base,
      curve: [],
    };
  });
  for (const [i, arm] of arms.entries()) arms[i] = { ...arm, curve: await curveOf(trained[i].dir, context.game(arm.config).rotation) };

  const { task: validationTask, source: validation } = tasksOfRun(context.task, tangoConfig);
  const baseCurvePoint = await context.cached('validate base', { base, config: tangoConfig, grader: context.grader }, async () => {
    const result = await context.services.validateGame({
      game: tangoGame,
      policies: { generator: base, verifier: base },
      task: validationTask,
      taskName: config.task,
      problems: tangoConfig.validationProblems,
      seed: config.seed,
      temperature: tangoConfig.temperature,
      topP: tangoConfig.topP,
      rows: tangoConfig.problemsPerStep * tangoConfig.groupSize,
      chatTemplate: tangoConfig.chatTemplate,
      ...(context.options.threads !== undefined ? { threads: context.options.threads } : {}),
    });
    const judge = result.judges.verifier ?? {};
    return { step: 0, generatorUpdates: 0, verifierUpdates: 0, accuracy: result.accuracy, outcome_f1: judge.outcome_f1 ?? null, step_f1: judge.step_f1 ?? null };
  });
  context.progress.update('validate base', 1);

  const { tokenizer, policy: basePolicy } = await baseOf(context, base);
  const armOf = (arm: TangoArm) => present(arms.find((a) => a.arm === arm), `the ${arm} arm`);
  const generatorModels: Record<'base' | TangoArm, string | undefined> = {
    base,
    tango: armOf('tango').generator,
    grpo: armOf('grpo').generator,
    'fixed-verifier': armOf('fixed-verifier').generator,
    'fixed-generator': undefined,
  };
  const generators = {} as Record<'base' | TangoArm, EvalReport | undefined>;
  const maxNewTokens = generatorTurnTokens(tangoGame);
  for (const [label, dir] of Object.entries(generatorModels) as ['base' | TangoArm, string | undefined][]) {
    if (dir === undefined) continue;
    const key = { dir, task: config.task, seed: config.seed, eval: config.eval, grader: context.grader, trained: label === 'base' ? null : armOf(label).config };
    generators[label] = await context.cached(`eval generator ${label}`, key, async () =>
      context.evaluateModel({
        model: { id: dir, policy: (await context.services.loadPolicy(dir, label)).policy },
        tokenizer,
        taskName: config.task,
        axes: ['capability'],
        problems: config.eval.problems,
        samples: config.eval.samples,
        temperature: config.eval.temperature,
        topP: 1,
        maxNewTokens,
        stopTokens: basePolicy.config.eosTokenIds,
        batch: config.eval.batch,
        bootstrap: config.eval.bootstrap,
      }),
    );
  }
  context.progress.update('eval generators', 1);
  // Tango against each baseline, and the fixed verifier against GRPO: the claim "step rewards help" rests on that one.
  const pairs = [['tango', 'grpo'], ['tango', 'fixed-verifier'], ['tango', 'base'], ['fixed-verifier', 'grpo']] as const;
  const generatorTests = pairs.map(([model, other]) => ({ model, other, significance: compareReports(present(generators[model], `the ${model} generator's report`), present(generators[other], `the ${other} generator's report`)) }));

  const verifierModels: Record<(typeof VERIFIERS)[number], string> = { base, tango: armOf('tango').verifier, 'fixed-generator': armOf('fixed-generator').verifier };
  const judgeAll = async (solutions: 'base' | 'tango') => {
    const generator = solutions === 'base' ? base : armOf('tango').generator;
    const results: Record<string, VerifierEvalResult> = {};
    for (const label of VERIFIERS) {
      const dir = verifierModels[label];
      const key = { dir, generator, base, task: config.task, seed: config.seed, eval: config.eval, grader: context.grader, trained: label === 'base' ? null : armOf(label).config };
      const phase = solutions === 'base' ? `eval verifier ${label}` : `eval verifier ${label} on tango solutions`;
      results[label] = await context.cached(phase, key, () =>
        context.services.evaluateVerifier({
          ...context.gameEvalSettings(config.task),
          game: tangoGame,
          judge: 'verifier',
          policies: { generator, verifier: dir },
          problems: config.eval.problems,
          samples: config.eval.verifierSamples,
          temperature: config.eval.solutionTemperature,
          judgeTemperature: config.eval.verifierTemperature,
          topP: 1,
          batch: Math.max(1, Math.floor(config.eval.batch / config.eval.verifierSamples)),
          bootstrap: config.eval.bootstrap,
        }),
      );
    }
    return results;
  };
  const verifiers = await judgeAll('base');
  const verifiersOnTango = await judgeAll('tango');
  context.progress.update('eval verifiers', 1);
  const verifierTests = [
    ...verifierTest(verifiers, 'tango', 'base', 'base'),
    ...verifierTest(verifiers, 'tango', 'fixed-generator', 'base'),
    ...verifierTest(verifiers, 'fixed-generator', 'base', 'base'),
    ...verifierTest(verifiersOnTango, 'tango', 'base', 'tango'),
    ...verifierTest(verifiersOnTango, 'tango', 'fixed-generator', 'tango'),
  ];

  const result = { out: context.out, base, seed: config.seed, arms, validation, baseCurvePoint, generators, generatorTests, verifiers, verifiersOnTango, verifierTests, grader: context.grader, costs: await context.costs() };
  const report = await writeTangoReport(result, config, { machine: context.machine });
  return { ...result, report };
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

function verifierTest(results: Record<string, VerifierEvalResult>, model: string, other: string, solutions: 'base' | 'tango'): VerifierTest[] {
  const a = results[model].per_problem;
  const b = results[other].per_problem;
  const tests: VerifierTest[] = [];
  for (const metric of ['outcome accuracy', 'step accuracy'] as const) {
    const pick = (p: (typeof a)[number]) => (metric === 'outcome accuracy' ? p.outcome_accuracy : p.step_accuracy);
    const pairs = a.flatMap((p, i) => {
      const [x, y] = [pick(p), pick(b[i])];
      return x !== null && y !== null ? [[x, y] as const] : [];
    });
    if (pairs.length < 2) continue;
    const test = pairedTest(`${metric} (${solutions === 'base' ? "base's solutions" : "Tango's solutions"})`, 'greater', pairs.map(([x]) => x), pairs.map(([, y]) => y));
    tests.push({ ...test, model, other, solutions });
  }
  return tests;
}

/** The generator's token budget in the game (its solving turn's `maxTokens`, the knob `generatorTokens`). */
function generatorTurnTokens(game: ReturnType<ExperimentContext['game']>): number {
  const turn = game.protocol.family === 'sequential' ? game.protocol.turns.find((t) => t.role === 'generator') : undefined;
  return turn?.maxTokens ?? fail('CONFIG_INVALID', 'tango-vs-grpo: the game has no generator turn with a token budget');
}

/**
 * The numbers a claim of the paper rests on, per seed: each generator's pass@1 and each verifier's F1s; and the
 * comparisons that test them: Tango against vanilla GRPO (its headline), the fixed verifier against GRPO (do step rewards
 * help?), Tango against the fixed verifier (does training the verifier help the generator?), each trained verifier
 * against the base and Tango's against the fixed generator's: the experiment's six claims (TANGO_CLAIMS).
 */
function tangoHeadline(result: TangoExperimentResult): Headline {
  const label = (name: string) => ARM_LABELS[name as TangoArm | 'base'];
  const metrics = (Object.entries(result.generators) as [TangoArm | 'base', EvalReport | undefined][]).flatMap(([name, report]) => (report ? capabilityPass1(`${label(name)} generator`, report) : []));
  for (const [solutions, verifiers] of [['base', result.verifiers], ['tango', result.verifiersOnTango]] as const) {
    for (const [name, r] of Object.entries(verifiers)) {
      for (const [metric, e] of [['outcome F1', r.outcome_f1], ['step F1', r.step_f1], ['ProcessBench F1', r.processbench_f1]] as const) {
        if (e) metrics.push({ model: `${label(name)} verifier`, metric: `${metric} (${solutions === 'base' ? "base's solutions" : "Tango's solutions"})`, value: e.value, se: e.se });
      }
    }
  }
  const pass = (arm: TangoArm | 'base') => perProblemPass1(present(result.generators[arm], `the ${arm} generator's report`));
  const judged = (name: string) => new Map(result.verifiers[name].per_problem.map((p) => [p.id, p.outcome_accuracy]));
  const metricOf: Record<string, string> = {
    'tango grpo': 'pass@1',
    'fixed-verifier grpo': 'pass@1 (do step rewards help?)',
    'tango fixed-verifier': 'pass@1 (does training the verifier help?)',
  };
  // The experiment's claims (TANGO_CLAIMS), its fixed Holm family across seeds as in every seed's report.
  return {
    metrics,
    comparisons: TANGO_CLAIMS.map((c) =>
      c.on === 'generator'
        ? comparisonOf(`${label(c.model)} generator`, `${label(c.other)} generator`, metricOf[`${c.model} ${c.other}`] ?? 'pass@1', pass(c.model), pass(c.other))
        : comparisonOf(`${label(c.model)} verifier`, `${label(c.other)} verifier`, "outcome accuracy (base's solutions)", judged(c.model), judged(c.other)),
    ),
  };
}
