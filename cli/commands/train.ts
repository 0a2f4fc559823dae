import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import { parseConfig } from '../../core/parse-config.ts';
import { readConfigFile } from '../config-file.ts';
import { RL_GAME_NAMES } from '../../games/registry.ts';
import { composePlugins } from '../composition/compose.ts';
import { TrainConfigSchema } from '../../engine/trainer/train-config.ts';
import { trainInWorker, type WorkerTraining } from '../../engine/trainer/train-in-worker.ts';
import type { TrainResult } from '../../engine/trainer/trainer.ts';
import { trainedTask } from '../../plugins/policies/default-model.ts';
import { forceThreadsOption, threadsOption } from '../options.ts';
import { watchOptions, watchRun, type WatchOptions } from '../watch.ts';

interface TrainOptions extends WatchOptions {
  config?: string;
  steps?: number;
  seed?: number;
  out: string;
  resume?: boolean;
  model?: string;
  threads: number;
}

export function register(program: Command): void {
  const command = program
    .command('train')
    .description(`RL on a game (${RL_GAME_NAMES.join(' | ')}) from a base model; defaults follow the tandem paper scaled to the shipped base; resumable`)
    .argument('<game>', RL_GAME_NAMES.join(' | '))
    .option('--config <file>', 'JSON overrides of the training config (see engine/trainer/train-config.ts)')
    .option('--steps <n>', 'optimizer steps', (v) => Number(v))
    .option('--seed <n>', 'run seed: the same seed replays the same matches', (v) => Number(v))
    .option('--out <dir>', 'run directory: metrics.jsonl, transcripts.jsonl, validation.jsonl, checkpoint/, best/', 'runs/train')
    .option('--resume', 'continue from <out>/checkpoint')
    .option('--model <dir>', "base model directory, or 'default' (the shipped base for the task)")
    .addOption(threadsOption(0))
    .addOption(forceThreadsOption());
  watchOptions(command, 'the matches and training curves')
    .action(async (game: string, opts: TrainOptions) => {
      const overrides = opts.config ? await readConfigFile(opts.config) : {};
      const model = opts.model ?? overrides.model;
      // The task defaults to the one the base model was pretrained on, where its directory says.
      const task = overrides.task === undefined && typeof model === 'string' ? trainedTask(model) : undefined;
      const config = parseConfig(
        TrainConfigSchema,
        {
          ...(task !== undefined ? { task } : {}),
          ...overrides,
          game,
          ...(opts.steps !== undefined ? { steps: opts.steps } : {}),
          ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
          ...(opts.model !== undefined ? { model: opts.model } : {}),
        },
        opts.config ?? 'training config',
      );
      const bar = new cliProgress.SingleBar(
        { format: `train ${game} |{bar}| {value}/{total} steps  reward {reward}  loss {loss}  eta {eta_formatted}`, stream: process.stderr },
        cliProgress.Presets.shades_classic,
      );
      let started = false;
      const plugins = await composePlugins();
      const rlGame = plugins.games.create(game, { ...config, grade: plugins.graders.create(config.grader) });
      const runId = basename(resolve(opts.out));
      // The run itself goes to a worker thread; this one keeps the viewer and the progress bar responsive.
      let training: WorkerTraining | undefined;
      const watched = opts.watch
        ? await watchRun(opts, { id: runId, game: rlGame.id, view: rlGame.view, control: { pause: () => void training?.pause(), resume: () => void training?.resume() } })
        : undefined;
      let result: TrainResult;
      try {
        training = await trainInWorker(
          { out: opts.out, config, resume: opts.resume, threads: opts.threads },
          {
            events: watched?.events,
            onStep: (line, total) => {
              if (!started) bar.start(total, line.step - 1, { reward: '-', loss: '-' });
              started = true;
              bar.update(line.step, { reward: line.reward_mean.toFixed(3), loss: line.loss === null ? 'skipped' : line.loss.toFixed(4) });
            },
          },
        );
        result = await training.done;
      } finally {
        if (started) bar.stop();
        await watched?.server.close();
      }
      process.stdout.write(`${JSON.stringify({ out: opts.out, steps: result.steps, best: result.best })}\n`);
    });
}
