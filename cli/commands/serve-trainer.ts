import type { Command } from 'commander';
import { startTrainerServer, TRAINER_SERVER_LIMITS } from '../../server/trainer-server/trainer-server.ts';
import { forceThreadsOption, parsePort, threadsOption, wholeNumberArg } from '../options.ts';
import { accessOptions, accessSettings, announce, type AccessFlags } from '../server-access.ts';

interface ServeTrainerOptions extends AccessFlags {
  host: string;
  port: number;
  threads: number;
  task?: string;
  samplerDir?: string;
  maxModels?: number;
  maxBatchTokens?: number;
}

export function register(program: Command): void {
  const command = program
    .command('serve-trainer')
    .description(
      "ludus's own learner behind a Tinker-style trainer API (POST /api/v1/create_model, forward_backward, optim_step, save_weights_for_sampler, retrieve_future, ...), so `ludus train` with `trainerServer` learns on another machine. Every request needs the token; base models load only from the shipped bases and --allow-dir directories",
    )
    .option('--host <host>', 'interface to listen on (anything but loopback prints a warning)', '127.0.0.1')
    .option('--port <n>', 'port (0 picks a free one)', parsePort, 8100)
    .option('--task <name>', "the task whose shipped base create_model's base_model 'default' names when the call gives none")
    .option('--sampler-dir <dir>', 'where save_weights_for_sampler writes model directories, each inside a folder of its model (a temporary directory, removed on exit, when absent)')
    .option('--max-models <n>', `models trained at once (default ${TRAINER_SERVER_LIMITS.maxModels})`, wholeNumberArg('max-models'))
    .option('--max-batch-tokens <n>', `rows × padded tokens of one forward_backward (default ${TRAINER_SERVER_LIMITS.maxBatchTokens})`, wholeNumberArg('max-batch-tokens'));
  accessOptions(command, TRAINER_SERVER_LIMITS, "create_model's base_model")
    .addOption(threadsOption(0))
    .addOption(forceThreadsOption())
    .action(async (opts: ServeTrainerOptions) => {
      const access = accessSettings(opts, TRAINER_SERVER_LIMITS);
      const server = await startTrainerServer({
        host: opts.host,
        port: opts.port,
        threads: opts.threads,
        ...(opts.task ? { task: opts.task } : {}),
        ...(opts.samplerDir ? { samplerDir: opts.samplerDir } : {}),
        ...access.server,
        limits: {
          ...access.limits,
          ...(opts.maxModels !== undefined ? { maxModels: opts.maxModels } : {}),
          ...(opts.maxBatchTokens !== undefined ? { maxBatchTokens: opts.maxBatchTokens } : {}),
        },
      });
      announce('serve-trainer', opts.host, access.token, { url: server.url, samplerDir: server.samplerDir });
      process.stderr.write(`serve-trainer: on ${server.url}, saving for samplers under ${server.samplerDir}; Ctrl-C to stop\n`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await server.close();
    });
}
