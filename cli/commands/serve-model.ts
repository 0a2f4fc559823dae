import { basename } from 'node:path';
import type { Command } from 'commander';
import { MODEL_SERVER_LIMITS, startModelServer } from '../../server/model-server/model-server.ts';
import { forceThreadsOption, parsePort, threadsOption, wholeNumberArg } from '../options.ts';
import { accessOptions, accessSettings, announce, type AccessFlags } from '../server-access.ts';
import { untilSignal } from '../until-signal.ts';

interface ServeModelOptions extends AccessFlags {
  host: string;
  port: number;
  name?: string;
  rows: number;
  threads: number;
  task?: string;
  maxAdapters?: number;
  maxRequestTokens?: number;
}

export function register(program: Command): void {
  const command = program
    .command('serve-model')
    .description(
      "ludus's own engine behind the vLLM completions subset (POST /v1/completions: token-id prompts, logprobs, prompt_logprobs, seed, stop_token_ids, adapters by model) and SGLang's POST /generate, so one machine can serve rollouts to another. Every request needs the token; adapters and weights load only from --allow-dir directories",
    )
    .argument('<dir>', "a model directory (Hugging Face layout with tokenizer.json), or 'default' (the shipped base)")
    .option('--host <host>', 'interface to listen on (anything but loopback prints a warning)', '127.0.0.1')
    .option('--port <n>', 'port (0 picks a free one)', parsePort, 8000)
    .option('--name <name>', "the model's served name (vLLM `model`); the directory's name by default")
    .option('--rows <n>', 'requests decoded together per batch (refused at start when their KV caches cannot fit in memory)', wholeNumberArg('rows'), 8)
    .option('--task <name>', "the task whose shipped base 'default' names")
    .option('--max-adapters <n>', `adapters or models loaded beside the base at most (default ${MODEL_SERVER_LIMITS.maxAdapters})`, wholeNumberArg('max-adapters'))
    .option('--max-request-tokens <n>', `prompt plus new tokens over one request's prompts at most (default ${MODEL_SERVER_LIMITS.maxRequestTokens})`, wholeNumberArg('max-request-tokens'));
  accessOptions(command, MODEL_SERVER_LIMITS, 'load_lora_adapter and update_weights_from_disk')
    .addOption(threadsOption(0))
    .addOption(forceThreadsOption())
    .action(async (dir: string, opts: ServeModelOptions) => {
      const access = accessSettings(opts, MODEL_SERVER_LIMITS);
      const stopped = untilSignal();
      const server = await startModelServer({
        model: dir,
        name: opts.name ?? (dir === 'default' ? 'default' : basename(dir)),
        host: opts.host,
        port: opts.port,
        rows: opts.rows,
        threads: opts.threads,
        ...(opts.task ? { task: opts.task } : {}),
        ...access.server,
        limits: {
          ...access.limits,
          ...(opts.maxAdapters !== undefined ? { maxAdapters: opts.maxAdapters } : {}),
          ...(opts.maxRequestTokens !== undefined ? { maxRequestTokens: opts.maxRequestTokens } : {}),
        },
      });
      announce('serve-model', opts.host, access.token, { url: server.url, model: server.models.base.name });
      process.stderr.write(`serve-model: ${server.models.base.path} as "${server.models.base.name}" on ${server.url}; Ctrl-C to stop\n`);
      await stopped;
      await server.close();
    });
}
