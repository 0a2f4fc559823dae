import type { Command } from 'commander';
import { gradeMath } from '../../plugins/graders/math/grade-math.ts';
import { evaluateSolo } from '../../plugins/eval/solo-eval.ts';
import { resolveModelDir } from '../../plugins/policies/default-model.ts';
import { loadPolicy } from '../../plugins/policies/load-policy.ts';
import { taskByName } from '../../plugins/tasks/registry.ts';
import { LudusError } from '../../core/errors.ts';
import { deviceOption, parseDevice } from '../options.ts';
import type { Split } from '../../plugins/tasks/task.ts';

export function register(program: Command): void {
  program
    .command('eval')
    .description('solo capability: pass@k (unbiased estimator, k = 1, 2, 4, ... n) of a model on a task')
    .requiredOption('--model <dir>', "Hugging Face model directory with tokenizer.json, or 'default' (the shipped base for the task)")
    .requiredOption('--task <name>', 'arithmetic | last-letter | FILE.jsonl')
    .option('--split <split>', 'train | test', 'test')
    .option('--samples <n>', 'samples per problem (n)', (v) => Number(v), 8)
    .option('--problems <n>', 'problems evaluated', (v) => Number(v), 200)
    .option('--temperature <t>', 'sampling temperature', (v) => Number(v), 1)
    .option('--top-p <p>', 'nucleus sampling', (v) => Number(v), 1)
    .option('--max-new-tokens <n>', 'response budget', (v) => Number(v), 256)
    .option('--batch <n>', 'rows decoded together', (v) => Number(v), 64)
    .option('--seed <n>', 'seed', (v) => Number(v), 0)
    .option('--threads <n>', 'intra-op threads', (v) => Number(v), 0)
    .addOption(deviceOption())
    .option('--json', 'print one JSON object')
    .action(async (opts) => {
      if (opts.split !== 'train' && opts.split !== 'test') throw new LudusError('INPUT_INVALID', `--split must be train or test, got "${opts.split}"`);
      const { policy, tokenizer } = await loadPolicy(resolveModelDir(opts.model, opts.task));
      if (!tokenizer) throw new LudusError('CHECKPOINT_MISSING_FILE', `${opts.model}: evaluation needs a tokenizer.json in the model directory`);
      const task = await taskByName(opts.task);
      const result = await evaluateSolo({
        policy,
        tokenizer,
        task,
        split: opts.split as Split,
        problems: opts.problems,
        samples: opts.samples,
        grade: gradeMath,
        temperature: opts.temperature,
        topP: opts.topP,
        maxNewTokens: opts.maxNewTokens,
        stopTokens: policy.config.eosTokenIds,
        seed: opts.seed,
        batch: opts.batch,
        threads: opts.threads,
        device: parseDevice(opts.device),
        onProgress: opts.json ? undefined : (done, total) => process.stderr.write(`\reval ${done}/${total} samples`),
      });
      if (opts.json) {
        const { per_problem: _perProblem, ...summary } = result;
        process.stdout.write(`${JSON.stringify(summary)}\n`);
        return;
      }
      process.stderr.write('\n');
      const ks = Object.keys(result.pass_at_k);
      process.stdout.write(`${opts.task} ${opts.split}: ${result.n_problems} problems × ${result.samples} samples, answer present ${(result.answer_present_rate * 100).toFixed(1)}%\n`);
      for (const k of ks) process.stdout.write(`pass@${k.padEnd(3)} ${result.pass_at_k[k].toFixed(4)}\n`);
    });
}
