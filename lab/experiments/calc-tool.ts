import { join } from 'node:path';
import { z } from 'zod';
import { bootstrapMean } from '../../core/metrics/bootstrap.ts';
import { parseConfig } from '../../core/parse-config.ts';
import { TrainConfigSchema } from '../../engine/trainer/train-config.ts';
import { checkpointPolicyDir } from '../../engine/trainer/trainer.ts';
import type { Validation } from '../../engine/trainer/validate.ts';
import { writeFileAtomically } from '../../native/io/files.ts';
import { resolveModelDir } from '../../plugins/policies/default-model.ts';
import { markdownTable } from '../reports/markdown.ts';
import type { ExperimentContext, TrainedArm } from './experiment-runner.ts';
import type { Headline, SeededDefinition } from './seeds-summary.ts';

/** The two runs: RL with the calculator, and the same RL whose calls all come back TOOL_UNKNOWN (the no-tool control). */
export const CALC_ARMS = ['tool', 'no-tool'] as const;
export type CalcArm = (typeof CALC_ARMS)[number];

const OWN_FIELDS = ['game', 'steps', 'seed', 'model', 'task', 'knobs'] as const;

export const CalcToolExperimentConfigSchema = z
  .object({
    /** Optimizer steps of each run (ours: 40). */
    steps: z.number().int().positive().default(40),
    seed: z.number().int().min(0).max(2 ** 32 - 1).default(0),
    /** Training seeds, each a whole experiment in seed-<s>/, summarized across seeds in the top report; overrides `seed`. */
    seeds: z.array(z.number().int().min(0).max(2 ** 32 - 1)).min(1).optional(),
    /** The base both runs start from: 'default' is the calc game's shipped base (models/multiplication). */
    model: z.string().default('default'),
    task: z.string().default('multiplication'),
    /** Overrides of the training config shared by both runs. */
    train: z
      .record(z.string(), z.unknown())
      .default({})
      .refine((train) => OWN_FIELDS.every((field) => !(field in train)), { message: `may not set ${OWN_FIELDS.join(', ')}: those are the experiment's own fields` }),
    /** calc knobs shared by both runs (the arms set `tool`). */
    knobs: z.record(z.string(), z.unknown()).default({}),
    eval: z
      .strictObject({
        /** Held-out test problems, one match each at the training temperature, the same seeds for every model. */
        problems: z.number().int().positive().default(200),
      })
      .prefault({}),
  })
  .strict();

export type CalcToolExperimentConfig = z.output<typeof CalcToolExperimentConfigSchema>;

/** One model on the held-out problems, in one setting of the game. */
export interface CalcEvaluation {
  readonly model: string;
  readonly dir: string;
  readonly tool: boolean;
  readonly accuracy: number;
  readonly accuracySe: number;
  readonly correct: readonly boolean[];
  readonly tools: Readonly<Record<string, number>>;
}

export interface CalcToolResult {
  readonly out: string;
  readonly seed: number;
  readonly report: string;
  readonly models: readonly CalcEvaluation[];
}

/** The models evaluated: the base with and without the calculator, and each run in its own setting. */
const MODELS = [
  { model: 'base', arm: null, tool: true },
  { model: 'base (no tool)', arm: null, tool: false },
  { model: 'RL with the tool', arm: 'tool', tool: true },
  { model: 'RL without the tool', arm: 'no-tool', tool: false },
] as const;

/**
 * The calc game's learning result (ours): RL with the calculator against the same RL without it, from one base at one
 * seed; then the base and both trained solvers on the same held-out problems, each in its run's setting: accuracy with
 * its bootstrap SE, the call rate and malformed calls a match.
 */
export const CALC_TOOL: SeededDefinition<CalcToolExperimentConfig, CalcArm, CalcToolResult> = {
  name: 'calc-tool',
  title: 'The calc game: RL with a calculator tool, and the same RL without it',
  headline: calcHeadline,
  plan: (config, setup) =>
    CALC_ARMS.map((arm) => ({
      arm,
      config: parseConfig(
        TrainConfigSchema,
        { validateEvery: 0, finalComparison: 0, ...config.train, grader: setup.grader, game: 'calc', seed: config.seed, model: config.model, task: config.task, steps: config.steps, knobs: { ...config.knobs, tool: arm === 'tool' } },
        `experiment training config (${arm})`,
      ),
    })),
  evaluationPhases: () => MODELS.map(({ model }) => [`eval ${model}`, 1] as const),
  evaluate: evaluateCalc,
};

async function evaluateCalc(context: ExperimentContext, trained: readonly TrainedArm<CalcArm>[], config: CalcToolExperimentConfig): Promise<CalcToolResult> {
  const base = resolveModelDir(config.model, config.task);
  const models: CalcEvaluation[] = [];
  for (const { model, arm, tool } of MODELS) {
    const run = arm === null ? undefined : trained.find((t) => t.arm === arm);
    if (arm !== null && !run) continue;
    const dir = run ? checkpointPolicyDir(run.dir, 'solver') : base;
    const settings = (run ?? trained[0]).config;
    const game = context.game({ game: 'calc', knobs: { ...config.knobs, tool } });
    const validation: Validation = await context.cached(`eval ${model}`, { dir, tool, problems: config.eval.problems, seed: config.seed, knobs: config.knobs, trained: run?.config ?? null }, () =>
      context.services.validateGame({
        game,
        policies: { solver: dir },
        task: context.task,
        taskName: config.task,
        problems: config.eval.problems,
        split: 'test',
        seed: config.seed,
        temperature: settings.temperature,
        topP: settings.topP,
        rows: settings.problemsPerStep * settings.groupSize,
        chatTemplate: settings.chatTemplate,
        ...(context.options.threads !== undefined ? { threads: context.options.threads } : {}),
      }),
    );
    context.progress.update(`eval ${model}`, 1);
    const accuracy = bootstrapMean([validation.correct.map(Number)], { resamples: 2000, seed: config.seed });
    models.push({ model, dir, tool, accuracy: accuracy.value, accuracySe: accuracy.se, correct: validation.correct, tools: validation.tools ?? {} });
  }
  const report = join(context.out, 'report.md');
  await writeFileAtomically(report, calcMarkdown(config, models));
  return { out: context.out, seed: config.seed, report, models };
}

/** The headline: every model's accuracy, call rate and malformed calls; each trained solver against the base in its setting, and against the other. */
function calcHeadline(result: CalcToolResult): Headline {
  const of = (model: string) => result.models.find((m) => m.model === model);
  const metrics = result.models.flatMap((m) => [
    { model: m.model, metric: 'accuracy', value: m.accuracy, se: m.accuracySe },
    { model: m.model, metric: 'tool call rate', value: m.tools.tool_call_rate ?? 0, se: null },
    { model: m.model, metric: 'malformed calls a match', value: m.tools.tool_malformed ?? 0, se: null },
  ]);
  const perProblem = (a: CalcEvaluation, b: CalcEvaluation) => a.correct.map((correct, i) => ({ id: String(i), model: Number(correct), other: Number(b.correct[i]) }));
  const pairs: [string, string][] = [
    ['RL with the tool', 'base'],
    ['RL without the tool', 'base (no tool)'],
    ['RL with the tool', 'RL without the tool'],
  ];
  const comparisons = pairs.flatMap(([model, other]) => {
    const a = of(model);
    const b = of(other);
    return a && b ? [{ model, other, metric: 'accuracy', perProblem: perProblem(a, b) }] : [];
  });
  return { metrics, comparisons };
}

function calcMarkdown(config: CalcToolExperimentConfig, models: readonly CalcEvaluation[]): string {
  const pct = (value: number) => `${(100 * value).toFixed(1)}%`;
  return `${[
    `# The calc game, seed ${config.seed}`,
    `RL with the calculator and the same RL without it (every call answered TOOL_UNKNOWN), ${config.steps} steps each from ${config.model}; every model on the same ${config.eval.problems} held-out test problems, one match each on the same seeds, in its own setting.`,
    markdownTable(
      ['model', 'calculator', 'accuracy (± bootstrap SE)', 'call rate', 'calls a match', 'malformed calls a match', 'env tokens a match'],
      models.map((m) => [m.model, m.tool ? 'answers' : 'TOOL_UNKNOWN', `${pct(m.accuracy)} ± ${(100 * m.accuracySe).toFixed(1)}`, pct(m.tools.tool_call_rate ?? 0), (m.tools.tool_calls ?? 0).toFixed(2), (m.tools.tool_malformed ?? 0).toFixed(2), (m.tools.env_tokens ?? 0).toFixed(1)]),
    ),
  ].join('\n\n')}\n`;
}
