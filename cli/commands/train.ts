import { readFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { pathExists } from '../../native/io/files.ts';
import { CHECKPOINT_DIR, METRICS_FILE, TRANSCRIPTS_FILE, VALIDATION_FILE } from '../../engine/trainer/trainer.ts';
import { TRAINER_STATE_FILE } from '../../engine/trainer/training-checkpoint.ts';
import { SUMMARY_FILE } from '../../engine/trainer/run-summary-file.ts';
import type { Command } from 'commander';
import { builtInGames } from '../../games/index.ts';
import { idlePolicies } from '../../engine/trainer/metrics-line.ts';
import { StallWatch, stallWarning } from '../../engine/trainer/stall-watch.ts';
import { collapseWarning } from '../../engine/trainer/fixed-opponents.ts';
import { planPolicies } from '../../engine/trainer/policy-plan.ts';
import type { TrainResult } from '../../engine/trainer/trainer.ts';
import { deviceOption, forceThreadsOption, parseDevice, restartOption, resumeMode, threadsOption } from '../options.ts';
import { pluginOption, recordedConfig, resolveRun, type RunOptions } from '../run-config.ts';
import { pairDivergence } from '../pair-divergence.ts';
import { commandLine, idleWarning, runSummary } from '../run-summary.ts';
import { stepReporter } from '../progress.ts';
import { trainInWorker, type WorkerTraining } from '../training/train-in-worker.ts';
import { closeViewer, watchOptions, watchRun, type WatchOptions } from '../watch.ts';

interface TrainOptions extends WatchOptions, RunOptions {
  out?: string;
  resume?: boolean;
  restart?: boolean;
  threads: number;
  device: string;
}

/** Named in --help from the registry itself, so a new game can't be left out of it. */
const BUILT_IN_GAME_NAMES = (builtInGames.games ?? []).map((game) => game.name);

const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;

export function register(program: Command): void {
  const command = program
    .command('train')
    .description(`RL on any game in the catalog (${BUILT_IN_GAME_NAMES.join(', ')}, or a --plugin module's) from base models; every policy the game's rotation trains learns with its own optimizer; resumable, and Ctrl-C stops at the next step with a checkpoint`)
    .argument('<game>', 'a game id (see `ludus games`)')
    .option(...pluginOption)
    .option('--config <file>', "JSON training config (every field in docs/config-reference.md; `policies` binds the game's policies to checkpoints and learner settings)")
    .option('--steps <n>', 'optimizer steps', (v) => Number(v))
    .option('--seed <n>', 'run seed: the same seed replays the same matches', (v) => Number(v))
    .option('--out <dir>', 'run directory: run.json, metrics.jsonl, transcripts.jsonl, validation.jsonl, summary.json, checkpoint/, best/ (default: runs/<game>)')
    .option('--resume', "continue from <out>/checkpoint; without --config and --plugin, the run's own (recorded in <out>/run.json)")
    .addOption(restartOption())
    .option('--model <dir>', "base model directory every policy starts from, or 'default' (the shipped base for the task)")
    .addOption(threadsOption(0))
    .addOption(forceThreadsOption())
    .addOption(deviceOption('where the matches are decoded, references scored and policies trained: cpu, webgpu or cuda (docs/gpu.md); weights, gradients and AdamW stay in host memory'));
  watchOptions(command, 'the matches and training curves').action(async (gameName: string, options: TrainOptions) => {
    const opts = { ...options, out: options.out ?? `runs/${gameName}` };
    const mode = resumeMode(opts);
    const recorded = mode !== false && opts.config === undefined && opts.plugin.length === 0 ? await recordedConfig(opts.out) : undefined;
    const { config, game, catalog } = await resolveRun(gameName, opts, {}, recorded);
    const began = performance.now();
    const planned = planPolicies(game, config);
    const trained = planned.flatMap((p) => (p.learner ? [{ name: p.spec.name, init: p.spec.init }] : []));
    const steps = stepReporter(gameName, game.trainable, config.finalComparison);
    const idle = new Map<string, number[]>(trained.map((p) => [p.name, []]));
    const stalls = new StallWatch();
    let stepsRun = 0;
    let reached: { step: number; checkpointed: number | null } = { step: 0, checkpointed: null };
    const runId = basename(resolve(opts.out));
    // The run itself goes to a worker thread; this one keeps the viewer, the progress and the signals responsive.
    let training: WorkerTraining | undefined;
    let signalled: keyof typeof SIGNAL_EXIT | undefined;
    const how = { resume: commandLine(['npx', 'ludus', 'train', gameName, '--out', opts.out, '--resume']), restart: restartCommand() };
    const onSignal = (signal: keyof typeof SIGNAL_EXIT) => {
      if (signalled) {
        const saved = reached.checkpointed;
        process.stderr.write(`\n${signal} again: quitting now, during step ${reached.step + 1}. ${saved === null ? `Nothing was checkpointed; start over with: ${how.restart}` : `The checkpoint holds step ${saved}; continue with: ${how.resume}`}\n`);
        quitBySignal(signal);
      }
      signalled = signal;
      process.stderr.write(`\n${signal}: stopping after step ${reached.step + 1} with a checkpoint there (${signal === 'SIGINT' ? 'Ctrl-C' : signal} again quits at once)\n`);
      void training?.stop();
    };
    const signals = ['SIGINT', 'SIGTERM'] as const;
    for (const signal of signals) process.on(signal, onSignal);
    const resumedFrom = mode === false ? null : await checkpointedStep(opts.out);
    process.stderr.write(
      resumedFrom === null
        ? `train ${gameName}: ${config.steps} step${config.steps === 1 ? '' : 's'} into ${opts.out} (Ctrl-C stops after the step under way, with a checkpoint)\n`
        : `train ${gameName}: resuming from step ${resumedFrom} of ${config.steps} in ${opts.out} (Ctrl-C stops after the step under way, with a checkpoint)\n`,
    );
    const watched = opts.watch
      ? await watchRun(opts, { id: runId, game: game.id, view: game.view, headline: game.headline, control: { pause: () => void training?.pause(), resume: () => void training?.resume() } })
      : undefined;
    let result: TrainResult;
    let finished = false;
    try {
      steps.begin(config.steps, resumedFrom ?? 0);
      training = await trainInWorker(
        { out: opts.out, config, resume: mode, threads: opts.threads, device: parseDevice(opts.device) },
        {
          events: watched?.events,
          onStep: (line, total, checkpointed) => {
            stepsRun++;
            reached = { step: line.step, checkpointed: checkpointed ? line.step : reached.checkpointed };
            steps.step(line, total, checkpointed);
            for (const policy of idlePolicies(line)) {
              idle.get(policy.policy)?.push(line.step);
              steps.warn(idleWarning(line.step, policy));
            }
            for (const stall of stalls.observe(line)) steps.warn(stallWarning(stall));
            for (const alarm of line.alarms ?? []) steps.warn(collapseWarning(line.step, alarm));
          },
        },
      );
      if (signalled) void training.stop();
      result = await training.done;
      finished = !signalled && !result.stopped;
    } finally {
      steps.stop();
      for (const signal of signals) process.off(signal, onSignal);
      if (watched) await closeViewer(watched.server, [runId], finished ? 'finished' : 'stopped');
    }
    const files = await runFiles(opts.out);
    const facts = { game, out: opts.out, task: config.task, trained, idle, stepsRun, files, maxNewTokens: config.maxNewTokens, plugins: config.plugins, stalls: stalls.stalls };
    if (result.stopped || signalled) {
      process.stderr.write(
        result.checkpointed === null
          ? `\nstopped (${signalled}) before the first step ended; nothing was checkpointed. Start the run over in place with:\n  ${how.restart}\n`
          : `\nstopped (${signalled}) after step ${result.steps} of ${config.steps}; the checkpoint holds step ${result.checkpointed}. Continue with:\n  ${how.resume}\n`,
      );
      process.stdout.write(`${JSON.stringify({ out: opts.out, steps: result.steps, stopped: true, checkpointed: result.checkpointed })}\n`);
      process.exitCode = SIGNAL_EXIT[signalled ?? 'SIGINT'];
      return;
    }
    const divergence = result.steps === config.steps ? await pairDivergence(game, catalog, config, opts.out, trained.map((p) => p.name), opts.threads) : null;
    process.stderr.write(runSummary(result, { ...facts, ...(divergence ? { pair: divergence } : {}) }, (performance.now() - began) / 1000));
    process.stdout.write(`${JSON.stringify({ out: opts.out, steps: result.steps, best: result.best, ...(result.comparison ? { comparison: result.comparison } : {}), ...(divergence ? { divergence } : {}) })}\n`);
  });
}

/**
 * Ends the process at once, as the signal's default action does: the kernel ends it without unwinding, so a worker
 * thread in the middle of an onnxruntime call is neither waited for (process.exit joins it, which lasts until the call
 * returns) nor torn down under that call (which aborts with a native error). Files are written atomically, so what
 * the last checkpoint holds stays whole; the run's lock names a process that no longer runs and is taken over.
 */
function quitBySignal(signal: NodeJS.Signals): never {
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
  // The default action ends the process before this line runs; should the signal be ignored, exit as it would have.
  return process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
}

/** The step a run directory's checkpoint holds, or null where it has none. */
async function checkpointedStep(out: string): Promise<number | null> {
  const file = join(out, CHECKPOINT_DIR, TRAINER_STATE_FILE);
  if (!(await pathExists(file))) return null;
  const state = JSON.parse(await readFile(file, 'utf8')) as { step?: unknown };
  return typeof state.step === 'number' ? state.step : null;
}

/** The run's files a reader opens first, as far as this run wrote them. */
async function runFiles(out: string): Promise<string[]> {
  const names = [METRICS_FILE, TRANSCRIPTS_FILE, VALIDATION_FILE, SUMMARY_FILE];
  const present = await Promise.all(names.map((name) => pathExists(join(out, name))));
  return names.filter((_, i) => present[i]);
}

/** This command line as typed, with --restart in place of --resume (a run with no checkpoint starts over, same flags). */
function restartCommand(): string {
  const args = process.argv.slice(2).filter((arg) => arg !== '--resume' && arg !== '--restart');
  return commandLine(['npx', 'ludus', ...args, '--restart']);
}

