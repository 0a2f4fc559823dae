import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import { fail } from '../../core/errors.ts';
import { exportGguf } from '../../native/io/gguf-export.ts';
import type { GgufTensorType } from '../../native/io/gguf.ts';
import { resolveModelDir } from '../../plugins/policies/default-model.ts';
import { loadPolicy } from '../../plugins/policies/load-policy.ts';

const TYPES: Record<string, GgufTensorType> = { f32: 'F32', f16: 'F16' };

export function register(program: Command): void {
  program
    .command('export')
    .description(
      "write a model or trained policy with its tokenizer in another runtime's format: GGUF, which llama.cpp, ollama and LM Studio load. " +
        'An adapter directory is exported merged into its recorded base',
    )
    .argument('<dir>', "a model directory (config.json + *.safetensors + tokenizer.json), a trained policy (runs/NAME/checkpoint/policies/POLICY, a full model or an adapter in PEFT's layout), or 'default'")
    .argument('<out>', 'the file to write (OUT.gguf)')
    .option('--format <format>', 'gguf (the only one so far)', 'gguf')
    .option('--dtype <dtype>', 'f32 (exact) or f16 (half the size; norms stay f32)', 'f32')
    .option('--force', 'replace a file already at <out>')
    .action(async (dir: string, out: string, opts: { format: string; dtype: string; force?: boolean }) => {
      if (opts.format !== 'gguf') fail('INPUT_INVALID', `--format ${opts.format}: the formats written are gguf`, { flag: 'format' });
      const type = TYPES[opts.dtype.toLowerCase()] ?? fail('INPUT_INVALID', `--dtype ${opts.dtype}: expected f32 or f16`, { flag: 'dtype' });
      const source = resolveModelDir(dir);
      const { policy, tokenizer } = await loadPolicy(source);
      if (!tokenizer) fail('CHECKPOINT_MISSING_FILE', `${dir}: no tokenizer.json (nor in the base it adapts); a GGUF file carries its tokenizer`, { dir });
      const name = basename(resolve(dir === 'default' ? source : dir));
      const { tensors, bytes } = await exportGguf(policy, tokenizer, out, { type, name, force: opts.force === true });
      process.stdout.write(`wrote ${out}: ${tensors} tensors, ${type}, ${(bytes / 2 ** 20).toFixed(1)} MiB${policy.config.lora ? ', the adapter merged into its base' : ''}\n`);
    });
}
