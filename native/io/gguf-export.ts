import { stat } from 'node:fs/promises';
import { fail } from '../../core/errors.ts';
import type { ModelConfig } from '../model/config.ts';
import { mergeAdapter } from '../model/lora.ts';
import type { Weights } from '../model/weights.ts';
import { isMissingFileError } from './files.ts';
import { writeGguf, type GgufTensorType } from './gguf.ts';
import { ggufModelMetadata, ggufTensors } from './gguf-model.ts';
import { ggufTokenizerMetadata } from './gguf-tokenizer.ts';

export interface GgufExportOptions {
  type: GgufTensorType;
  /** general.name in the file. */
  name: string;
  /** Replace a file already at the output path. */
  force?: boolean;
}

export interface ExportedTokenizer {
  readonly json: Record<string, unknown>;
  /** tokenizer_config.json, or `{}`. */
  readonly config: Readonly<Record<string, unknown>>;
  /** Where it came from, for error messages. */
  readonly source: string;
}

/** Refuses an output path that exists unless `force`, and a directory whatever `force` says. */
export async function checkOutputPath(out: string, force: boolean): Promise<void> {
  try {
    const info = await stat(out);
    if (info.isDirectory()) fail('OUTPUT_EXISTS', `${out} is a directory; give the path of the .gguf file to write`, { file: out });
    if (!force) fail('OUTPUT_EXISTS', `${out} exists; add --force to replace it`, { file: out });
  } catch (error) {
    if (!isMissingFileError(error)) throw error;
  }
}

/**
 * Writes a model (an adapted one merged into its base first: W + (alpha/r)·B·A) with its tokenizer as one GGUF file
 * llama.cpp, ollama and LM Studio load. Everything is checked before the first byte is written.
 */
export async function exportGguf(model: { config: ModelConfig; weights: Weights }, tokenizer: ExportedTokenizer, out: string, options: GgufExportOptions): Promise<{ tensors: number; bytes: number }> {
  await checkOutputPath(out, options.force === true);
  const config: ModelConfig = { ...model.config, lora: undefined };
  const weights = model.config.lora ? mergeAdapter(model.config, model.weights) : model.weights;
  const tensors = ggufTensors(config, weights, options.type);
  const metadata = [...ggufModelMetadata(config, options.name, options.type), ...ggufTokenizerMetadata(tokenizer.json, tokenizer.config as Record<string, unknown>, config, tokenizer.source)];
  await writeGguf(out, metadata, tensors);
  return { tensors: tensors.length, bytes: (await stat(out)).size };
}
