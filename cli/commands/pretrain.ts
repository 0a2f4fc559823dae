import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import { readFile } from 'node:fs/promises';
import { LudusError } from '../../core/errors.ts';
import { PRETRAIN_PRESETS, PretrainConfigSchema } from '../../plugins/pretrain/pretrain-config.ts';
import { pretrain } from '../../plugins/pretrain/pretrain.ts';

export function register(program: Command): void {
  program
    .command('pretrain')
    .description('train a tokenizer and a tiny Qwen3-style base model on a synthetic task (supervised); resumable')
    .requiredOption('--task <name>', 'arithmetic | last-letter')
    .requiredOption('--out <dir>', 'run directory: model/ (the result), checkpoint/, metrics.jsonl')
    .option('--config <file>', 'JSON overrides of the task preset (see plugins/pretrain/pretrain-config.ts)')
    .option('--steps <n>', 'optimizer steps', (v) => Number(v))
    .option('--seed <n>', 'seed', (v) => Number(v))
    .option('--resume', 'continue from <out>/checkpoint')
    .option('--threads <n>', 'intra-op threads', (v) => Number(v), 0)
    .action(async (opts: { task: string; out: string; config?: string; steps?: number; seed?: number; resume?: boolean; threads: number }) => {
      const preset = PRETRAIN_PRESETS[opts.task as keyof typeof PRETRAIN_PRESETS];
      if (!preset) throw new LudusError('CONFIG_INVALID', `--task: no pretrain preset for "${opts.task}" (known: ${Object.keys(PRETRAIN_PRESETS).join(', ')})`);
      const overrides = opts.config ? await readConfig(opts.config) : {};
      const parsed = PretrainConfigSchema.safeParse({ ...preset, ...overrides, ...(opts.steps ? { steps: opts.steps } : {}), ...(opts.seed !== undefined ? { seed: opts.seed } : {}) });
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new LudusError('CONFIG_INVALID', `${opts.config ?? 'pretrain config'}: field "${issue.path.join('.')}" ${issue.message}`, { path: issue.path });
      }
      const bar = new cliProgress.SingleBar({ format: 'pretrain {task} |{bar}| {value}/{total} steps  loss {loss}  lr {lr}  eta {eta_formatted}', stream: process.stderr }, cliProgress.Presets.shades_classic);
      let started = false;
      const result = await pretrain({
        out: opts.out,
        config: parsed.data,
        resume: opts.resume,
        threads: opts.threads,
        onStep: (stats, total) => {
          if (!started) bar.start(total, stats.step - 1, { task: opts.task, loss: '-', lr: '-' });
          started = true;
          bar.update(stats.step, { loss: stats.loss.toFixed(4), lr: stats.lr.toExponential(2) });
        },
      });
      if (started) bar.stop();
      process.stdout.write(`${JSON.stringify({ model: result.modelDir, steps: result.steps })}\n`);
    });
}

async function readConfig(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new LudusError('CHECKPOINT_MISSING_FILE', `${path}: config file not found`, { file: path });
  }
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch (error) {
    throw new LudusError('CONFIG_INVALID', `${path}: not valid JSON (${(error as Error).message})`, { file: path });
  }
}
