import type { Command } from 'commander';
import { fail } from '../../core/errors.ts';
import { Scorer } from '../../native/runtime/scorer.ts';
import { resolveModelDir } from '../../plugins/policies/default-model.ts';
import { loadPolicy } from '../../plugins/policies/load-policy.ts';
import { deviceOption, forceThreadsOption, parseDevice, parseTokenList, threadsOption } from '../options.ts';

export function register(program: Command): void {
  program
    .command('score')
    .description('teacher-forced log-probabilities of a token sequence: logprobs[i] = log p(token_i | tokens_<i)')
    .requiredOption('--model <dir>', "Hugging Face model directory (config.json + *.safetensors [+ tokenizer.json]), or 'default' (the shipped base)")
    .option('--tokens <ids>', 'comma-separated token ids')
    .option('--text <text>', "text, encoded with the model's tokenizer.json")
    .addOption(threadsOption(0))
    .addOption(forceThreadsOption())
    .addOption(deviceOption())
    .option('--json', 'print one JSON object')
    .action(async (opts: { model: string; tokens?: string; text?: string; threads: number; device: string; json?: boolean }) => {
      if ((opts.tokens === undefined) === (opts.text === undefined)) fail('INPUT_INVALID', 'give exactly one of --tokens and --text');
      const { policy, tokenizer } = await loadPolicy(resolveModelDir(opts.model));
      let tokens: number[];
      if (opts.tokens !== undefined) tokens = parseTokenList(opts.tokens);
      else if (tokenizer) tokens = tokenizer.encode(opts.text ?? fail('INPUT_INVALID', 'give exactly one of --tokens and --text'));
      else return fail('CHECKPOINT_MISSING_FILE', `${opts.model}: --text needs a tokenizer.json in the model directory`, { dir: opts.model });
      const scorer = await Scorer.create(policy, { threads: opts.threads, device: parseDevice(opts.device) });
      const [scored] = await scorer.score([tokens]);
      await scorer.release();
      if (opts.json) {
        process.stdout.write(`${JSON.stringify({ tokens, logprobs: scored.logprobs })}\n`);
        return;
      }
      const total = scored.logprobs.reduce<number>((a, v) => a + (v ?? 0), 0);
      for (const [i, token] of tokens.entries()) {
        const piece = tokenizer ? JSON.stringify(tokenizer.decode([token])) : '';
        process.stdout.write(`${String(i).padStart(5)}  ${String(token).padStart(7)}  ${scored.logprobs[i] === null ? '     -   ' : scored.logprobs[i].toFixed(4).padStart(9)}  ${piece}\n`);
      }
      process.stdout.write(`total logprob ${total.toFixed(4)} over ${tokens.length - 1} predicted tokens\n`);
    });
}
