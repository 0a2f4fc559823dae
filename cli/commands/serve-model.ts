import { basename } from 'node:path';
import type { Command } from 'commander';
import { fail } from '../../core/errors.ts';
import { startModelServer } from '../../server/model-server/model-server.ts';
import { forceThreadsOption, parsePort, threadsOption } from '../options.ts';

interface ServeModelOptions {
  host: string;
  port: number;
  name?: string;
  rows: number;
  threads: number;
  task?: string;
}

export function register(program: Command): void {
  program
    .command('serve-model')
    .description("ludus's own engine behind the vLLM completions subset (POST /v1/completions: token-id prompts, logprobs, prompt_logprobs, seed, stop_token_ids, adapters by model) and SGLang's POST /generate, so one machine can serve rollouts to another")
    .argument('<dir>', "a model directory (Hugging Face layout with tokenizer.json), or 'default' (the shipped base)")
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--port <n>', 'port (0 picks a free one)', parsePort, 8000)
    .option('--name <name>', "the model's served name (vLLM `model`); the directory's name by default")
    .option('--rows <n>', 'requests decoded together per batch', (v) => positiveInt(v, 'rows'), 8)
    .option('--task <name>', "the task whose shipped base 'default' names")
    .addOption(threadsOption(0))
    .addOption(forceThreadsOption())
    .action(async (dir: string, opts: ServeModelOptions) => {
      const server = await startModelServer({
        model: dir,
        name: opts.name ?? (dir === 'default' ? 'default' : basename(dir)),
        host: opts.host,
        port: opts.port,
        rows: opts.rows,
        threads: opts.threads,
        ...(opts.task ? { task: opts.task } : {}),
      });
      process.stdout.write(`${JSON.stringify({ url: server.url, model: server.models.base.name })}\n`);
      process.stderr.write(`serve-model: ${server.models.base.path} as "${server.models.base.name}" on ${server.url}; Ctrl-C to stop\n`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await server.close();
    });
}

function positiveInt(value: string, flag: string): number {
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || n < 1) fail('INPUT_INVALID', `--${flag} "${value}" is not a positive integer`, { flag });
  return n;
}
