import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import { planPolicies } from '../../engine/trainer/policy-plan.ts';
import type { TrainResult } from '../../engine/trainer/trainer.ts';
import { deviceOption, forceThreadsOption, parseDevice, threadsOption } from '../options.ts';
import { pluginOption, resolveRun, type RunOptions } from '../run-config.ts';
import { trainInWorker, type WorkerTraining } from '../training/train-in-worker.ts';
import { watchOptions, watchRun, type WatchOptions } from '../watch.ts';

interface TrainOptions extends WatchOptions, RunOptions {
  out: string;
  resume?: boolean;
  threads: number;
  device: string;
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
    .addOption(threadsOption(0))
    .addOption(forceThreadsOption())
    .addOption(deviceOption('where the matches are decoded, references scored and policies trained: cpu, webgpu or cuda (docs/gpu.md); weights, gradients and AdamW stay in host memory'));
  watchOptions(command, 'the matches and training curves').action(async (gameName: string, opts: TrainOptions) => {
    const { config, game } = await resolveRun(gameName, opts);
    const began = performance.now();
    const trainedPolicies = planPolicies(game, config).flatMap((p) => (p.learner ? [p.spec.name] : []));
    const bar = new cliProgress.SingleBar(
      { format: `train ${gameName} |{bar}| {value}/{total} steps  {status}  eta {eta_formatted}`, stream: process.stderr },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    const runId = basename(resolve(opts.out));
    // The run itself goes to a worker thread; this one keeps the viewer and the progress bar responsive.
    let training: WorkerTraining | undefined;
    const watched = opts.watch
      ? await watchRun(opts, { id: runId, game: game.id, view: game.view, headline: game.headline, control: { pause: () => void training?.pause(), resume: () => void training?.resume() } })
      : undefined;
    let result: TrainResult;
    try {
      training = await trainInWorker(
        { out: opts.out, config, resume: opts.resume, threads: opts.threads, device: parseDevice(opts.device) },
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
    process.stderr.write(summary(gameName, opts.out, result, (performance.now() - began) / 1000, trainedPolicies));
    process.stdout.write(`${JSON.stringify({ out: opts.out, steps: result.steps, best: result.best, ...(result.comparison ? { comparison: result.comparison } : {}) })}\n`);
  });
}

/** What a newcomer needs at the end of a run: did training help, where are the files, how to watch it again. */
function summary(game: string, out: string, result: TrainResult, seconds: number, policies: readonly string[]): string {
  const lines = [`\ntrained ${game} for ${result.steps} steps in ${formatDuration(seconds)}`];
  const c = result.comparison;
  if (c) {
    const pct = (e: { value: number; se: number }) => `${(100 * e.value).toFixed(1)}% ± ${(100 * e.se).toFixed(1)}`;
    lines.push(
      `  ${c.role}, ${c.problems} held-out problems, one match each on the same seeds:`,
      `    trained ${pct(c.trained)}   at the start ${pct(c.start)}   difference ${c.difference.value >= 0 ? '+' : ''}${(100 * c.difference.value).toFixed(1)} ± ${(100 * c.difference.se).toFixed(1)} points (paired, bootstrap SE)`,
    );
  }
  if (result.best) lines.push(`  best validation ${(100 * result.best.accuracy).toFixed(1)}% at step ${result.best.step}: ${out}/best/<policy>/`);
  lines.push(
    `  files: ${out}/metrics.jsonl, transcripts.jsonl, validation.jsonl; the policies in ${out}/checkpoint/policies/{${policies.join(',')}}`,
    `  watch it again: npx ludus serve --runs ${out}`,
    '',
  );
  return lines.join('\n');
}

function formatDuration(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  return minutes > 0 ? `${minutes} min ${Math.round(seconds - 60 * minutes)} s` : `${seconds.toFixed(1)} s`;
}
