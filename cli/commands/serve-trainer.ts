import { Option, type Command } from 'commander';
import { defaultPython, type TorchDevice, type TorchStrategy } from '../../native/torch/torch-worker.ts';
import { LEARNER_ENGINES, OrtEngine, TorchEngine, type LearnerEngine, type LearnerEngineName } from '../../server/trainer-server/learner-engines.ts';
import { startTrainerServer, TRAINER_SERVER_LIMITS } from '../../server/trainer-server/trainer-server.ts';
import { forceThreadsOption, parsePort, threadsOption, wholeNumberArg } from '../options.ts';
import { accessOptions, accessSettings, announce, type AccessFlags } from '../server-access.ts';
import { untilSignal } from '../until-signal.ts';

interface ServeTrainerOptions extends AccessFlags {
  host: string;
  port: number;
  threads: number;
  task?: string;
  samplerDir?: string;
  maxModels?: number;
  maxBatchTokens?: number;
  backend: LearnerEngineName;
  python: string;
  processes: number;
  strategy: TorchStrategy;
  workerDevice: TorchDevice;
  worker?: string;
  writeDir: string[];
}

/** The engine the flags name: opened before the server listens, so a missing torch stops the command at once. */
function openEngine(opts: ServeTrainerOptions): Promise<LearnerEngine> {
  if (opts.backend === 'onnxruntime') return Promise.resolve(new OrtEngine());
  return TorchEngine.open({ python: opts.python, processes: opts.processes, strategy: opts.strategy, device: opts.workerDevice, threads: opts.threads, ...(opts.worker ? { attach: opts.worker } : {}) });
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
    .option('--write-dir <dir>', "a directory clients may have weights and checkpoints written into (their sync and run directories on storage shared with the samplers; repeatable): save_weights_for_sampler's path, save_state", (value: string, previous: string[]) => [...previous, value], [])
    .option('--sampler-dir <dir>', 'where save_weights_for_sampler writes model directories, each inside a folder of its model (a temporary directory, removed on exit, when absent)')
    .option('--max-models <n>', `models trained at once (default ${TRAINER_SERVER_LIMITS.maxModels})`, wholeNumberArg('max-models'))
    .option('--max-batch-tokens <n>', `rows × padded tokens of one forward_backward (default ${TRAINER_SERVER_LIMITS.maxBatchTokens})`, wholeNumberArg('max-batch-tokens'))
    .addOption(new Option('--backend <engine>', 'what computes the models: onnxruntime (in this process) or torch (a PyTorch worker: docs/scale-out.md)').choices(LEARNER_ENGINES).default('onnxruntime'))
    .option('--python <path>', 'torch: the interpreter that runs the worker (torch >= 1.13); LUDUS_PYTHON, else /usr/bin/python3', defaultPython())
    .option('--processes <n>', 'torch: worker processes on this machine, started with torchrun and trained data-parallel (DDP) or sharded (FSDP)', wholeNumberArg('processes'), 1)
    .addOption(new Option('--strategy <how>', 'torch: ddp (every process holds the model) or fsdp (weights, gradients and moments sharded; needs a torch whose FSDP imports)').choices(['ddp', 'fsdp']).default('ddp'))
    .addOption(new Option('--worker-device <device>', 'torch: where the worker computes (auto: cuda when torch sees a GPU)').choices(['auto', 'cpu', 'cuda']).default('auto'))
    .option('--worker <socket>', "torch: attach to a worker you started yourself (torchrun across nodes: docs/scale-out.md) at this Unix socket instead of starting one");
  accessOptions(command, TRAINER_SERVER_LIMITS, "create_model's base_model")
    .addOption(threadsOption(0))
    .addOption(forceThreadsOption())
    .action(async (opts: ServeTrainerOptions) => {
      const access = accessSettings(opts, TRAINER_SERVER_LIMITS);
      const stopped = untilSignal();
      const server = await startTrainerServer({
        engine: () => openEngine(opts),
        host: opts.host,
        port: opts.port,
        threads: opts.threads,
        ...(opts.task ? { task: opts.task } : {}),
        ...(opts.samplerDir ? { samplerDir: opts.samplerDir } : {}),
        ...access.server,
        writeDirs: opts.writeDir,
        limits: {
          ...access.limits,
          ...(opts.maxModels !== undefined ? { maxModels: opts.maxModels } : {}),
          ...(opts.maxBatchTokens !== undefined ? { maxBatchTokens: opts.maxBatchTokens } : {}),
        },
      });
      announce('serve-trainer', opts.host, access.token, { url: server.url, samplerDir: server.samplerDir, backend: server.engine.describe() });
      process.stderr.write(`serve-trainer: on ${server.url}, training on ${server.engine.summary()}, saving for samplers under ${server.samplerDir}; Ctrl-C to stop\n`);
      await stopped;
      await server.close();
    });
}
