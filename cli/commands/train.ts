import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import type { TrainResult } from '../../engine/trainer/trainer.ts';
import { pluginOption, resolveRun, type RunOptions } from '../run-config.ts';
import { trainInWorker, type WorkerTraining } from '../training/train-in-worker.ts';
import { watchOptions, watchRun, type WatchOptions } from '../watch.ts';

interface TrainOptions extends WatchOptions, RunOptions {
  out: string;
  resume?: boolean;
  threads: number;
}

export function register(program: Command): void {
  const command = program
    .command('train')
    .description('RL on any game in the catalog (tandem, grpo, kl-reg, agon, or a --plugin module\'s) from base models; every policy the game\'s rotation trains learns with its own optimizer; resumable')
    .argument('<game>', 'a game id (see `ludus games`)')
    .option(...pluginOption)
    .option('--config <file>', 'JSON training config (see engine/trainer/train-config.ts; `policies` binds the game\'s policies to checkpoints and learner settings)')
    .option('--steps <n>', 'optimizer steps', (v) => Number(v))
    .option('--seed <n>', 'run seed: the same seed replays the same matches', (v) => Number(v))
    .option('--out <dir>', 'run directory: run.json, metrics.jsonl, transcripts.jsonl, validation.jsonl, checkpoint/, best/', 'runs/train')
    .option('--resume', 'continue from <out>/checkpoint')
    .option('--model <dir>', "base model directory every policy starts from, or 'default' (the shipped base for the task)")
    .option('--threads <n>', 'intra-op threads', (v) => Number(v), 0);
  watchOptions(command, 'the matches and training curves').action(async (gameName: string, opts: TrainOptions) => {
    const { config, game } = await resolveRun(gameName, opts);
    const bar = new cliProgress.SingleBar(
      { format: `train ${gameName} |{bar}| {value}/{total} steps  {status}  eta {eta_formatted}`, stream: process.stderr },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    const runId = basename(resolve(opts.out));
    // The run itself goes to a worker thread; this one keeps the viewer and the progress bar responsive.
    let training: WorkerTraining | undefined;
    const watched = opts.watch
      ? await watchRun(opts, { id: runId, game: game.id, view: game.view, control: { pause: () => void training?.pause(), resume: () => void training?.resume() } })
      : undefined;
    let result: TrainResult;
    try {
      training = await trainInWorker(
        { out: opts.out, config, resume: opts.resume, threads: opts.threads },
        {
          events: watched?.events,
          onStep: (line, total) => {
            if (!started) bar.start(total, line.step - 1, { status: '' });
            started = true;
            const rewards = Object.entries(line.roles)
              .filter(([role]) => game.trainable.includes(role))
              .map(([role, metrics]) => `${role} ${metrics.reward_mean.toFixed(3)}`);
            const losses = Object.entries(line.policies).map(([policy, metrics]) => `${policy} loss ${metrics.loss === null ? 'skipped' : metrics.loss.toFixed(4)}`);
            bar.update(line.step, { status: [...rewards, ...losses].join('  ') });
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
