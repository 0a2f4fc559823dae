import type { Command } from 'commander';
import { LudusError } from '../../core/errors.ts';
import { parseConfig } from '../../core/parse-config.ts';
import { readConfigFile } from '../config-file.ts';
import { forceThreadsOption, threadsOption } from '../options.ts';
import { progressReporter } from '../progress.ts';
import { resolve } from 'node:path';
import { PRESET_NAMES, PRETRAIN_PRESETS, PretrainConfigSchema, worldGamePreset } from '../../lab/pretrain/pretrain-config.ts';
import { pretrain } from '../../lab/pretrain/pretrain.ts';
import { catalogWorlds } from '../../composition/catalog-worlds.ts';
import { composePlugins } from '../../composition/compose.ts';
import { loadPluginFiles } from '../../composition/plugin-files.ts';
import { pluginOption } from '../run-config.ts';

export function register(program: Command): void {
  program
    .command('pretrain')
    .description('train a tokenizer and a tiny Qwen3-style base model on a synthetic task (supervised); resumable')
    .option('--task <name>', 'arithmetic | last-letter | world (the general world base: the shipped world games and made-up games\' move formats): the preset of that name (see --preset)')
    .option('--game <name>', "a base of one world game's own, a --plugin's included: the general world base trained further on the game's positions (docs/world-games.md)")
    .option(...pluginOption)
    .option('--preset <name>', `the preset to start from (${PRESET_NAMES.join(' | ')}; default: --task's own)`)
    .requiredOption('--out <dir>', 'run directory: model/ (the result), checkpoint/, metrics.jsonl')
    .option('--config <file>', `JSON overrides of the task preset; fields: ${Object.keys(PretrainConfigSchema.shape).join(', ')}`)
    .option('--steps <n>', 'optimizer steps', (v) => Number(v))
    .option('--seed <n>', 'seed', (v) => Number(v))
    .option('--resume', 'continue from <out>/checkpoint')
    .addOption(threadsOption(0))
    .addOption(forceThreadsOption())
    .action(async (opts: { task?: string; preset?: string; game?: string; plugin: string[]; out: string; config?: string; steps?: number; seed?: number; resume?: boolean; threads: number }) => {
      if (opts.game !== undefined && (opts.task !== undefined || opts.preset !== undefined)) throw new LudusError('CONFIG_INVALID', '--game names its own preset: give it without --task or --preset');
      const name = opts.game ?? opts.preset ?? opts.task;
      if (name === undefined) throw new LudusError('CONFIG_INVALID', '--task, --preset or --game: give one');
      const worlds = await catalogWorlds(await composePlugins(await loadPluginFiles(opts.plugin.map((file) => resolve(file)))));
      if (opts.game !== undefined && !Object.hasOwn(worlds, opts.game)) throw new LudusError('CONFIG_INVALID', `--game: no world game "${opts.game}" (known: ${Object.keys(worlds).join(', ')}; a game of your own needs its --plugin file)`);
      const preset = opts.game !== undefined ? worldGamePreset(opts.game) : Object.hasOwn(PRETRAIN_PRESETS, name) ? PRETRAIN_PRESETS[name as keyof typeof PRETRAIN_PRESETS] : undefined;
      if (!preset) throw new LudusError('CONFIG_INVALID', `--${opts.preset ? 'preset' : 'task'}: no pretrain preset "${name}" (known: ${PRESET_NAMES.join(', ')})`);
      if (opts.preset && opts.task && preset.task !== opts.task) throw new LudusError('CONFIG_INVALID', `--preset ${name} is over task "${preset.task}", not --task ${opts.task}`);
      const overrides = opts.config ? await readConfigFile(opts.config) : {};
      const config = parseConfig(
        PretrainConfigSchema,
        { ...preset, ...overrides, ...(opts.steps ? { steps: opts.steps } : {}), ...(opts.seed !== undefined ? { seed: opts.seed } : {}) },
        opts.config ?? 'pretrain config',
      );
      const progress = progressReporter(`pretrain ${name}`);
      let done = 0;
      const result = await pretrain({
        out: opts.out,
        config,
        resume: opts.resume,
        threads: opts.threads,
        worlds,
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
