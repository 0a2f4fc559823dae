import type { Command } from 'commander';
import { LudusError } from '../../core/errors.ts';
import { parseConfig } from '../../core/parse-config.ts';
import { AgonExperimentConfigSchema } from '../../lab/experiments/agon-experiment-config.ts';
import { runAgonVsGrpo } from '../../lab/experiments/agon-vs-grpo.ts';
import { ExperimentConfigSchema } from '../../lab/experiments/experiment-config.ts';
import { runTandemVsGrpo } from '../../lab/experiments/tandem-vs-grpo.ts';
import { TangoExperimentConfigSchema } from '../../lab/experiments/tango-experiment-config.ts';
import { runTangoVsGrpo } from '../../lab/experiments/tango-vs-grpo.ts';
import { composePlugins } from '../../composition/compose.ts';
import { readConfigFile } from '../config-file.ts';
import { progressReporter } from '../progress.ts';
import { deviceOption, forceThreadsOption, parseDevice, threadsOption } from '../options.ts';

const EXPERIMENTS = ['tandem-vs-grpo', 'tango-vs-grpo', 'agon-vs-grpo'] as const;

interface ExperimentOptions {
  config?: string;
  steps?: number;
  seed?: number;
  out?: string;
  threads: number;
  device: string;
  progress: boolean;
}

export function register(program: Command): void {
  program
    .command('experiment')
    .description(
      "paper experiments end to end, resumable; tandem-vs-grpo: GRPO, KL-Reg and TRL seniors from one base with matched settings and seeds, every evaluation axis, one report; tango-vs-grpo: RL Tango's Figure 4 (Tango, vanilla GRPO, fixed generator, fixed verifier) at matched generator steps, curves, final pass@1 and verifier F1 with paired tests, one report; agon-vs-grpo: Agon's §5 (Agon, fixed roles, cooperative exchange, self-refinement, vanilla GRPO trained as adapters on one base; cascades and an untrained Mixture-of-Agents at the same per-generation cap), pass@k with paired tests, ablations, trace lengths, one report",
    )
    .argument('<name>', EXPERIMENTS.join(' | '))
    .option('--config <file>', 'JSON: tandem-vs-grpo {"steps", "seed", "model", "task", "checkpoint", "train", "eval"}; tango-vs-grpo {"generatorSteps", "seed", "model", "task", "knobs", "train", "eval"}; agon-vs-grpo {"steps", "seed", "model", "task", "knobs", "train", "moaProposals", "eval"}')
    .option('--steps <n>', 'optimizer steps of each training (tango-vs-grpo: generator steps of each run)', (v) => Number(v))
    .option('--seed <n>', 'one seed for all trainings and evaluations', (v) => Number(v))
    .option('--out <dir>', 'experiment directory: one directory per run, eval/*.json, report.md with figures; rerun to resume (default runs/<name>)')
    .addOption(threadsOption(0))
    .addOption(forceThreadsOption())
    .addOption(deviceOption('device of the evaluations (cpu, webgpu, or cuda where onnxruntime-node has its CUDA binaries); training runs on the CPU'))
    .option('--no-progress', 'no progress bar on stderr')
    .action(async (name: string, opts: ExperimentOptions) => {
      if (!(EXPERIMENTS as readonly string[]).includes(name)) throw new LudusError('INPUT_INVALID', `unknown experiment "${name}"; known: ${EXPERIMENTS.join(', ')}`, { name });
      const overrides = opts.config ? await readConfigFile(opts.config) : {};
      const out = opts.out ?? `runs/${name}`;
      if (name === 'tango-vs-grpo') {
        await tangoExperiment({ ...opts, out }, overrides);
        return;
      }
      if (name === 'agon-vs-grpo') {
        await agonExperiment({ ...opts, out }, overrides);
        return;
      }
      const config = parseConfig(
        ExperimentConfigSchema,
        { ...overrides, ...(opts.steps !== undefined ? { steps: opts.steps } : {}), ...(opts.seed !== undefined ? { seed: opts.seed } : {}) },
        opts.config ?? 'experiment config',
      );
      const progress = opts.progress ? progressReporter(name) : undefined;
      const result = await runTandemVsGrpo({ out, config, catalog: await composePlugins(), threads: opts.threads, device: parseDevice(opts.device), onProgress: progress?.update });
      progress?.stop();
      process.stdout.write(
        `${JSON.stringify({ out: result.out, report: result.report, phases: result.phases, seniors: result.seniors.map(({ game, dir, step, selected }) => ({ game, dir, step, selected })) })}\n`,
      );
    });
}

async function tangoExperiment(opts: ExperimentOptions & { out: string }, overrides: Record<string, unknown>): Promise<void> {
  const config = parseConfig(
    TangoExperimentConfigSchema,
    { ...overrides, ...(opts.steps !== undefined ? { generatorSteps: opts.steps } : {}), ...(opts.seed !== undefined ? { seed: opts.seed } : {}) },
    opts.config ?? 'experiment config',
  );
  const progress = opts.progress ? progressReporter('tango-vs-grpo') : undefined;
  const result = await runTangoVsGrpo({ out: opts.out, config, catalog: await composePlugins(), threads: opts.threads, onProgress: progress?.update });
  progress?.stop();
  process.stdout.write(`${JSON.stringify({ out: result.out, report: result.report, runs: result.arms.map(({ arm, steps, generatorUpdates, verifierUpdates }) => ({ arm, steps, generatorUpdates, verifierUpdates })) })}\n`);
}

async function agonExperiment(opts: ExperimentOptions & { out: string }, overrides: Record<string, unknown>): Promise<void> {
  const config = parseConfig(
    AgonExperimentConfigSchema,
    { ...overrides, ...(opts.steps !== undefined ? { steps: opts.steps } : {}), ...(opts.seed !== undefined ? { seed: opts.seed } : {}) },
    opts.config ?? 'experiment config',
  );
  const progress = opts.progress ? progressReporter('agon-vs-grpo') : undefined;
  const result = await runAgonVsGrpo({ out: opts.out, config, catalog: await composePlugins(), threads: opts.threads, onProgress: progress?.update });
  progress?.stop();
  const pass1 = Object.fromEntries(Object.entries(result.rows).map(([row, r]) => [row, (r.kind === 'cascade' ? r.result.pass_at_k : Object.values(r.report.capability!.per_benchmark)[0].pass_at_k)['1']]));
  process.stdout.write(`${JSON.stringify({ out: result.out, report: result.report, pass1 })}\n`);
}
