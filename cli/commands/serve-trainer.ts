import type { Command } from 'commander';
import { startTrainerServer } from '../../server/trainer-server/trainer-server.ts';
import { forceThreadsOption, parsePort, threadsOption } from '../options.ts';

interface ServeTrainerOptions {
  host: string;
  port: number;
  threads: number;
  task?: string;
  samplerDir?: string;
}

export function register(program: Command): void {
  program
    .command('serve-trainer')
    .description(
      "ludus's own learner behind a Tinker-style trainer API (POST /api/v1/create_model, forward_backward, optim_step, save_weights_for_sampler, retrieve_future, ...), so `ludus train` with `trainerServer` learns on another machine",
    )
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--port <n>', 'port (0 picks a free one)', parsePort, 8100)
    .option('--task <name>', "the task whose shipped base create_model's base_model 'default' names when the call gives none")
    .option('--sampler-dir <dir>', 'where save_weights_for_sampler writes model directories (a temporary directory, removed on exit, when absent)')
    .addOption(threadsOption(0))
    .addOption(forceThreadsOption())
    .action(async (opts: ServeTrainerOptions) => {
      const server = await startTrainerServer({
        host: opts.host,
        port: opts.port,
        threads: opts.threads,
        ...(opts.task ? { task: opts.task } : {}),
        ...(opts.samplerDir ? { samplerDir: opts.samplerDir } : {}),
      });
      process.stdout.write(`${JSON.stringify({ url: server.url, samplerDir: server.samplerDir })}\n`);
      process.stderr.write(`serve-trainer: on ${server.url}, saving for samplers under ${server.samplerDir}; Ctrl-C to stop\n`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await server.close();
    });
}
