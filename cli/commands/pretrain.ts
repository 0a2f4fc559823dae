import type { Command } from 'commander';
import { LudusError } from '../../core/errors.ts';
import { parseConfig } from '../../core/parse-config.ts';
import { readConfigFile } from '../config-file.ts';
import { forceThreadsOption, threadsOption } from '../options.ts';
import { progressReporter } from '../progress.ts';
import { PRETRAIN_PRESETS, PretrainConfigSchema } from '../../lab/pretrain/pretrain-config.ts';
import { pretrain } from '../../lab/pretrain/pretrain.ts';
import { catalogWorlds } from '../../composition/catalog-worlds.ts';

export function register(program: Command): void {
  program
    .command('pretrain')
    .description('train a tokenizer and a tiny Qwen3-style base model on a synthetic task (supervised); resumable')
    .requiredOption('--task <name>', 'arithmetic | last-letter | world (the world games: tictactoe, kuhn-poker, negotiation)')
    .requiredOption('--out <dir>', 'run directory: model/ (the result), checkpoint/, metrics.jsonl')
    .option('--config <file>', `JSON overrides of the task preset; fields: ${Object.keys(PretrainConfigSchema.shape).join(', ')}`)
    .option('--steps <n>', 'optimizer steps', (v) => Number(v))
    .option('--seed <n>', 'seed', (v) => Number(v))
    .option('--resume', 'continue from <out>/checkpoint')
    .addOption(threadsOption(0))
    .addOption(forceThreadsOption())
    .action(async (opts: { task: string; out: string; config?: string; steps?: number; seed?: number; resume?: boolean; threads: number }) => {
      const preset = PRETRAIN_PRESETS[opts.task as keyof typeof PRETRAIN_PRESETS];
      if (!preset) throw new LudusError('CONFIG_INVALID', `--task: no pretrain preset for "${opts.task}" (known: ${Object.keys(PRETRAIN_PRESETS).join(', ')})`);
      const overrides = opts.config ? await readConfigFile(opts.config) : {};
      const config = parseConfig(
        PretrainConfigSchema,
        { ...preset, ...overrides, ...(opts.steps ? { steps: opts.steps } : {}), ...(opts.seed !== undefined ? { seed: opts.seed } : {}) },
        opts.config ?? 'pretrain config',
      );
      const progress = progressReporter(`pretrain ${opts.task}`);
      let done = 0;
      const result = await pretrain({
        out: opts.out,
        config,
        resume: opts.resume,
        threads: opts.threads,
        worlds: await catalogWorlds(),
        onPhase: (phase) => progress.update({ phase, done, total: config.steps }),
        onStep: (stats, total) => {
          done = stats.step;
          progress.update({ phase: 'supervised training', done, total, detail: `step ${stats.step}/${total}, loss ${stats.loss.toFixed(4)}, lr ${stats.lr.toExponential(2)}` });
        },
      });
      progress.stop();
      process.stdout.write(`${JSON.stringify({ model: result.modelDir, steps: result.steps })}\n`);
    });
}
