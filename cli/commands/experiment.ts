import { Option, type Command } from 'commander';
import { LudusError } from '../../core/errors.ts';
import { parseConfig } from '../../core/parse-config.ts';
import { ExperimentConfigSchema } from '../../lab/experiments/experiment-config.ts';
import { runTandemVsGrpo } from '../../lab/experiments/tandem-vs-grpo.ts';
import { composePlugins } from '../composition/compose.ts';
import { readConfigFile } from '../config-file.ts';
import { progressReporter } from '../progress.ts';
import { forceThreadsOption, parseDevice, threadsOption } from '../options.ts';

const EXPERIMENTS = ['tandem-vs-grpo'] as const;

interface ExperimentOptions {
  config?: string;
  steps?: number;
  seed?: number;
  out: string;
  threads: number;
  device: string;
  progress: boolean;
}

export function register(program: Command): void {
  program
    .command('experiment')
    .description('paper experiments end to end; tandem-vs-grpo: train GRPO, KL-Reg and TRL seniors from one base with matched settings and seeds, evaluate every axis, write one report; resumable')
    .argument('<name>', EXPERIMENTS.join(' | '))
    .option('--config <file>', 'JSON: {"steps", "seed", "model", "task", "checkpoint": "best"|"final", "train": {...training overrides}, "eval": {...evaluation settings}}')
    .option('--steps <n>', 'optimizer steps of each training', (v) => Number(v))
    .option('--seed <n>', 'one seed for all trainings and evaluations', (v) => Number(v))
    .option('--out <dir>', 'experiment directory: <game>/ runs, eval/*.json, report.md with figures; rerun to resume', 'runs/tandem-vs-grpo')
    .addOption(threadsOption(0))
    .addOption(forceThreadsOption())
    .addOption(new Option('--device <device>', 'device of the evaluations (cuda where onnxruntime-node has its CUDA binaries); training runs on the CPU').choices(['cpu', 'cuda']).default('cpu'))
    .option('--no-progress', 'no progress bar on stderr')
    .action(async (name: string, opts: ExperimentOptions) => {
      if (!(EXPERIMENTS as readonly string[]).includes(name)) throw new LudusError('INPUT_INVALID', `unknown experiment "${name}"; known: ${EXPERIMENTS.join(', ')}`, { name });
      const overrides = opts.config ? await readConfigFile(opts.config) : {};
      const config = parseConfig(
        ExperimentConfigSchema,
        { ...overrides, ...(opts.steps !== undefined ? { steps: opts.steps } : {}), ...(opts.seed !== undefined ? { seed: opts.seed } : {}) },
        opts.config ?? 'experiment config',
      );
      const progress = opts.progress ? progressReporter(name) : undefined;
      const result = await runTandemVsGrpo({ out: opts.out, config, catalog: await composePlugins(), threads: opts.threads, device: parseDevice(opts.device), onProgress: progress?.update });
      progress?.stop();
      process.stdout.write(
        `${JSON.stringify({ out: result.out, report: result.report, phases: result.phases, seniors: result.seniors.map(({ game, dir, step, selected }) => ({ game, dir, step, selected })) })}\n`,
      );
    });
}
