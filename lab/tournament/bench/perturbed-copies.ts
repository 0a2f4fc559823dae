import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Rng } from '../../../core/rng.ts';
import { saveAdapter } from '../../../native/io/adapter.ts';
import { loadCheckpoint, saveCheckpoint } from '../../../native/io/checkpoint.ts';
import { adaptedWeights, initAdapter, withAdapter } from '../../../native/model/lora.ts';
import { parseLoraConfig } from '../../../native/model/lora-config.ts';
import { TOKENIZER_FILE } from '../../../engine/trainer/training-checkpoint.ts';

/**
 * Distinct entrants from one model: `count` copies of `baseDir`, each weight moved by seeded Gaussian noise of
 * `scale` times the tensor's own RMS, saved as model directories `<outDir>/<prefix><i>` with the base's tokenizer.
 * Same architecture and tokenizer, different policies — what a bench or a test of many entrants needs.
 */
export async function writePerturbedCopies(baseDir: string, outDir: string, count: number, options: { seed: number; scale: number; prefix?: string }): Promise<string[]> {
  const { config, weights } = await loadCheckpoint(baseDir);
  const tokenizer = await readFile(join(baseDir, TOKENIZER_FILE), 'utf8');
  const dirs: string[] = [];
  for (let i = 0; i < count; i++) {
    const rng = new Rng(options.seed + i);
    const copy = new Map(
      [...weights].map(([name, tensor]) => {
        const rms = Math.sqrt(tensor.data.reduce((sum, v) => sum + v * v, 0) / Math.max(tensor.data.length, 1));
        return [name, { dims: tensor.dims, data: tensor.data.map((v) => v + options.scale * rms * rng.normal()) }];
      }),
    );
    const dir = join(outDir, `${options.prefix ?? 'copy-'}${i}`);
    await saveCheckpoint(dir, config, copy, { extraFiles: { [TOKENIZER_FILE]: tokenizer } });
    dirs.push(dir);
  }
  return dirs;
}

/**
 * A distinct entrant as a LoRA adapter on `baseDir`: rank `r` (default 16) on every projection, A as PEFT draws it and
 * B Gaussian with std `initStdB` (so it differs from the base), from `seed`; saved in PEFT's layout in `dir` with the
 * base recorded as its base_model_name_or_path. Returns `dir`.
 */
export async function writeNoiseAdapter(baseDir: string, dir: string, options: { seed: number; initStdB: number; r?: number }): Promise<string> {
  const { config, weights } = await loadCheckpoint(baseDir);
  const adapted = withAdapter(config, parseLoraConfig({ r: options.r ?? 16, initStdB: options.initStdB }));
  await saveAdapter(dir, adapted, adaptedWeights(weights, initAdapter(adapted, options.seed)), { baseModel: baseDir });
  return dir;
}
