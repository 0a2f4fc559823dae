import type { Command } from 'commander';
import { mergeAdapterCheckpoint } from '../../native/io/adapter.ts';

export function register(program: Command): void {
  program
    .command('merge')
    .description("fold a LoRA adapter (PEFT's layout: adapter_config.json + adapter_model.safetensors) into its base, written as a plain Hugging Face checkpoint")
    .requiredOption('--base <dir>', 'the base checkpoint the adapter was trained on')
    .requiredOption('--adapter <dir>', 'the adapter directory')
    .requiredOption('--out <dir>', 'where the merged checkpoint is written (a checkpoint there is replaced)')
    .action(async (opts: { base: string; adapter: string; out: string }) => {
      const { weights } = await mergeAdapterCheckpoint(opts.base, opts.adapter, opts.out);
      process.stdout.write(`merged ${opts.adapter} into ${opts.base}: ${weights.size} tensors written to ${opts.out}\n`);
    });
}
