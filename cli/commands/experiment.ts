import type { Command } from 'commander';
import { LudusError, present } from '../../core/errors.ts';
import { parseConfig } from '../../core/parse-config.ts';
import { CALC_TOOL, CalcToolExperimentConfigSchema, type CalcToolResult } from '../../lab/experiments/calc-tool.ts';
import { AgonExperimentConfigSchema } from '../../lab/experiments/agon-experiment-config.ts';
import { AGON_VS_GRPO, type AgonExperimentResult } from '../../lab/experiments/agon-vs-grpo.ts';
import { ExperimentConfigSchema } from '../../lab/experiments/experiment-config.ts';
import { runExperiment, type SharedExperimentConfig } from '../../lab/experiments/experiment-runner.ts';
import { runSeeds, type SeededDefinition } from '../../lab/experiments/seeds-summary.ts';
import { TANDEM_VS_GRPO, type ExperimentResult } from '../../lab/experiments/tandem-vs-grpo.ts';
import { TangoExperimentConfigSchema } from '../../lab/experiments/tango-experiment-config.ts';
import { TANGO_VS_GRPO, type TangoExperimentResult } from '../../lab/experiments/tango-vs-grpo.ts';
import type { ZodType } from 'zod';
import { composePlugins } from '../../composition/compose.ts';
import type { Catalog } from '../../core/catalog.ts';
import { gameShippedBase } from '../../plugins/policies/default-model.ts';
import { readConfigFile } from '../config-file.ts';
import { progressReporter } from '../progress.ts';
import { deviceOption, forceThreadsOption, parseDevice, threadsOption } from '../options.ts';

const EXPERIMENTS = ['tandem-vs-grpo', 'tango-vs-grpo', 'agon-vs-grpo', 'calc-tool'] as const;
type ExperimentName = (typeof EXPERIMENTS)[number];

interface ExperimentOptions {
  config?: string;
  steps?: number;
  seed?: number;
  seeds?: number[];
  out?: string;
  threads: number;
  device: string;
  progress: boolean;
}

/** Each experiment: its definition, its config schema, the config field `--steps` sets, and what it prints when done. */
interface Entry<Config extends SharedExperimentConfig & { seeds?: number[] }, Result> {
  readonly definition: SeededDefinition<Config, string, Result>;
  readonly schema: ZodType<Config>;
  readonly stepsField: string;
  readonly summary: (result: Result) => Record<string, unknown>;
  /** The game whose shipped base `"model": "default"` means, as `ludus train GAME` takes it (where the task is that base's). */
  readonly game?: string;
}

const entry = <Config extends SharedExperimentConfig & { seeds?: number[] }, Result>(e: Entry<Config, Result>) => e as unknown as Entry<SharedExperimentConfig & { seeds?: number[] }, unknown>;

const ENTRIES: Record<ExperimentName, Entry<SharedExperimentConfig & { seeds?: number[] }, unknown>> = {
  'tandem-vs-grpo': entry({
    definition: TANDEM_VS_GRPO,
    schema: ExperimentConfigSchema,
    stepsField: 'steps',
    summary: (result: ExperimentResult) => ({ out: result.out, report: result.report, phases: result.phases, seniors: result.seniors.map(({ game, dir, step, selected }) => ({ game, dir, step, selected })) }),
  }),
  'tango-vs-grpo': entry({
    definition: TANGO_VS_GRPO,
    schema: TangoExperimentConfigSchema,
    game: 'tango',
    stepsField: 'generatorSteps',
    summary: (result: TangoExperimentResult) => ({ out: result.out, report: result.report, runs: result.arms.map(({ arm, steps, generatorUpdates, verifierUpdates }) => ({ arm, steps, generatorUpdates, verifierUpdates })) }),
  }),
  'agon-vs-grpo': entry({
    definition: AGON_VS_GRPO,
    schema: AgonExperimentConfigSchema,
    game: 'agon',
    stepsField: 'steps',
    summary: (result: AgonExperimentResult) => ({
      out: result.out,
      report: result.report,
      pass1: Object.fromEntries(Object.entries(result.rows).map(([row, r]) => [row, (r.kind === 'cascade' ? r.result.pass_at_k : Object.values(present(r.report.capability, 'the capability axis of a single-pass report').per_benchmark)[0].pass_at_k)['1']])),
    }),
  }),
  'calc-tool': entry({
    definition: CALC_TOOL,
    schema: CalcToolExperimentConfigSchema,
    stepsField: 'steps',
    summary: (result: CalcToolResult) => ({ out: result.out, report: result.report, accuracy: Object.fromEntries(result.models.map((m) => [m.model, m.accuracy])) }),
  }),
};

const seedList = (value: string): number[] => value.split(',').map((part) => Number(part.trim()));

export function register(program: Command): void {
  program
    .command('experiment')
    .description(
      "paper experiments end to end, resumable; tandem-vs-grpo: GRPO, KL-Reg and TRL seniors from one base with matched settings and seeds, every evaluation axis, one report; tango-vs-grpo: RL Tango's Figure 4 (Tango, vanilla GRPO, fixed generator, fixed verifier) at matched generator steps, curves, final greedy pass@1 and verifier F1 with paired tests, one report; agon-vs-grpo: Agon's §5 (Agon, fixed roles, cooperative exchange, self-refinement, vanilla GRPO trained as adapters on one base; cascades and an untrained Mixture-of-Agents at the same per-generation cap), pass@k with paired tests, ablations, trace lengths, one report; calc-tool: the calc game trained with its calculator and without it (every call answered TOOL_UNKNOWN), then held-out accuracy, call rate and malformed calls of the base and both runs. With several --seeds, one run per seed and a report across seeds",
    )
    .argument('<name>', EXPERIMENTS.join(' | '))
    .option('--config <file>', 'JSON: tandem-vs-grpo {"steps", "seed", "seeds", "model", "task", "checkpoint", "train", "eval"}; tango-vs-grpo {"generatorSteps", "seed", "seeds", "model", "task", "knobs", "train", "eval"}; agon-vs-grpo {"steps", "seed", "seeds", "arms", "model", "task", "knobs", "train", "moaProposals", "eval"}')
    .option('--steps <n>', 'optimizer steps of each training (tango-vs-grpo: generator steps of each run)', (v) => Number(v))
    .option('--seed <n>', 'one seed for all trainings and evaluations', (v) => Number(v))
    .option('--seeds <list>', 'training seeds, comma-separated (e.g. 0,1,2): one whole run per seed in <out>/seed-<s>/, then a report across seeds (mean ± SE) in <out>/report.md', seedList)
    .option('--out <dir>', 'experiment directory: one directory per run, eval/*.json, report.md with figures; rerun to resume (default runs/<name>)')
    .addOption(threadsOption(0))
    .addOption(forceThreadsOption())
    .addOption(deviceOption('device of the evaluations (cpu, webgpu, or cuda where onnxruntime-node has its CUDA binaries); training runs on the CPU'))
    .option('--no-progress', 'no progress bar on stderr')
    .action(async (name: string, opts: ExperimentOptions) => {
      if (!(EXPERIMENTS as readonly string[]).includes(name)) throw new LudusError('INPUT_INVALID', `unknown experiment "${name}"; known: ${EXPERIMENTS.join(', ')}`, { name });
      const { definition, schema, stepsField, summary, game } = ENTRIES[name as ExperimentName];
      const overrides = opts.config ? await readConfigFile(opts.config) : {};
      const config = parseConfig(
        schema,
        {
          ...overrides,
          ...(opts.steps !== undefined ? { [stepsField]: opts.steps } : {}),
          ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
          ...(opts.seeds !== undefined ? { seeds: opts.seeds } : {}),
        },
        opts.config ?? 'experiment config',
      );
      const out = opts.out ?? `runs/${name}`;
      const progress = opts.progress ? progressReporter(name) : undefined;
      const catalog = await composePlugins();
      const base = game === undefined ? undefined : gameBase(catalog, game, config);
      const run = { out, config: base ? { ...config, model: base } : config, catalog, threads: opts.threads, device: parseDevice(opts.device), onProgress: progress?.update };
      const seeds = config.seeds ?? [config.seed];
      if (seeds.length === 1) {
        const result = await runExperiment(definition, { ...run, config: { ...run.config, seed: seeds[0] } });
        progress?.stop();
        process.stdout.write(`${JSON.stringify(summary(result))}\n`);
        return;
      }
      const result = await runSeeds(definition, run, seeds);
      progress?.stop();
      process.stdout.write(`${JSON.stringify({ out: result.out, report: result.report, seeds: result.seeds, runs: result.results.map(summary) })}\n`);
    });
}

/**
 * The shipped base a game starts from (Tango, Agon: arithmetic-judge) where the experiment says `"model": "default"`
 * and its task is that base's own, as `ludus train` resolves it; undefined where the plain default applies.
 */
export function gameBase(catalog: Catalog, game: string, config: SharedExperimentConfig): string | undefined {
  if (config.model !== 'default') return undefined;
  return gameShippedBase(catalog.games.create(game, { grader: catalog.graders.create('exact'), knobs: {} }).defaultModel, config.task);
}
