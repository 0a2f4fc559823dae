import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LudusError, fail } from '../../core/errors.ts';
import { checkpointSource, loadCheckpoint, saveCheckpoint } from '../../native/io/checkpoint.ts';
import { isMissingFileError } from '../../native/io/files.ts';
import { encodeSafetensors, readSafetensors } from '../../native/io/safetensors.ts';
import type { ModelConfig } from '../../native/model/config.ts';
import type { Weights } from '../../native/model/weights.ts';
import type { AdamWState } from '../../native/train/adamw.ts';

export const TRAINER_STATE_FILE = 'trainer_state.json';
export const OPTIMIZER_FILE = 'optimizer.safetensors';
export const TOKENIZER_FILE = 'tokenizer.json';

/** Everything a run needs to continue exactly: the policy in the Hugging Face layout plus trainer state. */
export interface TrainingCheckpoint<State extends Record<string, unknown>> {
  config: ModelConfig;
  weights: Weights;
  optimizer: AdamWState;
  /** Plain JSON: step, RNG states, data cursor, the run's config... */
  state: State;
  tokenizerJson?: unknown;
}

/**
 * Writes a checkpoint directory so that a crash at any moment leaves the previous or the new one loadable (see
 * native/io/files.ts replaceDirectory): config.json, model.safetensors,
 * tokenizer.json, optimizer.safetensors (AdamW moments as m.<name> / v.<name>) and trainer_state.json.
 * The weights directory loads unchanged in Python transformers; the extra files are ignored there.
 */
export async function saveTrainingCheckpoint<State extends Record<string, unknown>>(dir: string, checkpoint: TrainingCheckpoint<State>): Promise<void> {
  const extraFiles: Record<string, string | Uint8Array> = {
    [OPTIMIZER_FILE]: encodeOptimizer(checkpoint.optimizer),
    [TRAINER_STATE_FILE]: `${JSON.stringify(checkpoint.state, null, 2)}\n`,
  };
  if (checkpoint.tokenizerJson !== undefined) extraFiles[TOKENIZER_FILE] = JSON.stringify(checkpoint.tokenizerJson);
  await saveCheckpoint(dir, checkpoint.config, checkpoint.weights, { extraFiles });
}

export async function loadTrainingCheckpoint<State extends Record<string, unknown>>(at: string): Promise<TrainingCheckpoint<State>> {
  const dir = await checkpointSource(at);
  const { config, weights } = await loadCheckpoint(dir);
  const statePath = join(dir, TRAINER_STATE_FILE);
  const state = JSON.parse(await readText(statePath)) as State;
  const optimizer = await readOptimizer(join(dir, OPTIMIZER_FILE));
  const tokenizerText = await readFile(join(dir, TOKENIZER_FILE), 'utf8').catch((error) => (isMissingFileError(error) ? undefined : Promise.reject(error)));
  return { config, weights, optimizer, state, ...(tokenizerText === undefined ? {} : { tokenizerJson: JSON.parse(tokenizerText) }) };
}

/** AdamW moments as safetensors: m.<name> / v.<name>, the step in the metadata. */
export function encodeOptimizer(optimizer: AdamWState): Uint8Array {
  const moments: Weights = new Map();
  for (const [name, data] of Object.entries(optimizer.m)) moments.set(`m.${name}`, { dims: [data.length], data });
  for (const [name, data] of Object.entries(optimizer.v)) moments.set(`v.${name}`, { dims: [data.length], data });
  return encodeSafetensors(moments, { metadata: { step: String(optimizer.step) } });
}

export async function readOptimizer(path: string): Promise<AdamWState> {
  const { tensors, metadata } = await readSafetensors(path);
  const optimizer: AdamWState = { step: Number(metadata.step ?? Number.NaN), m: {}, v: {} };
  if (!Number.isInteger(optimizer.step)) fail('CHECKPOINT_MISSING_FILE', `${path}: no optimizer step in its metadata`, { file: path });
  for (const [name, t] of tensors) {
    const [kind, ...rest] = name.split('.');
    const target = kind === 'm' ? optimizer.m : kind === 'v' ? optimizer.v : null;
    if (!target) fail('SAFETENSORS_MALFORMED', `${path}: unexpected tensor "${name}"`, { tensor: name });
    target[rest.join('.')] = t.data;
  }
  return optimizer;
}

export async function readText(path: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (isMissingFileError(error)) fail('CHECKPOINT_MISSING_FILE', `${path}: no trainer state (is this a training checkpoint?)`, { file: path });
    throw error;
  }
  try {
    JSON.parse(text);
  } catch (error) {
    throw new LudusError('CONFIG_INVALID', `${path}: not valid JSON (${(error as Error).message})`, { file: path });
  }
  return text;
}
