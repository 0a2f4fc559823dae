import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadCheckpoint, saveCheckpoint, writeCheckpointFiles } from '../../native/io/checkpoint.ts';
import { ADAPTER_CONFIG_FILE, readAdapterFiles, writeAdapterFiles } from '../../native/io/adapter.ts';
import { pathExists } from '../../native/io/files.ts';
import { isMissingFileError, replaceDirectory, writeFileDurably } from '../../native/io/files.ts';
import type { ModelConfig } from '../../native/model/config.ts';
import type { Weights } from '../../native/model/weights.ts';
import type { AdamWState } from '../../native/train/adamw.ts';
import { encodeOptimizer, OPTIMIZER_FILE, readOptimizer, readText, TOKENIZER_FILE, TRAINER_STATE_FILE } from './training-checkpoint.ts';
import { present } from '../../core/errors.ts';
import type { SavedTensors, StoredTensor, TensorWriter } from '../../native/io/safetensors.ts';

export const POLICIES_DIR = 'policies';

/**
 * One trainable policy as saved: a Hugging Face model directory plus its AdamW moments; for a policy with an adapter,
 * the adapter in PEFT's layout (its base is the run's `init`, not copied) and the adapter's moments.
 */
export interface PolicyCheckpoint {
  /** On load, the base's config is not known here: a saved adapter's config is absent. */
  config?: ModelConfig;
  /** The adapter's tensors alone for a policy with an adapter. */
  weights: Weights;
  /** The base model directory an adapter sits on, recorded as its base_model_name_or_path. */
  baseModel?: string;
  optimizer: AdamWState;
}

/** Everything an RL run needs to continue exactly: every trainable policy, and the trainer's state. */
export interface RunCheckpoint<State extends Record<string, unknown>> {
  /** Plain JSON: step, data cursor, estimator states, the run's config... */
  state: State;
  policies: Record<string, PolicyCheckpoint>;
  tokenizerJson?: unknown;
}

/** AdamW's moments held by a learner elsewhere, written by it: the step, and the trained tensors' names. */
export interface MomentsWriter {
  readonly writer: TensorWriter;
  readonly step: number;
  readonly names: readonly string[];
}

/** One trainable policy to write: its tensors at hand or written by their holder, its moments likewise. */
export interface PolicyToSave {
  readonly config: ModelConfig;
  readonly weights: SavedTensors;
  readonly optimizer: AdamWState | MomentsWriter;
  readonly baseModel?: string;
}

/** A policy whose checkpoint directory its trainer writes itself (a trainer server, onto storage both see), given the directory. */
export interface SavedElsewhere {
  readonly writeTo: (target: string) => Promise<void>;
}

/** What a run's checkpoint is made of, on saving. */
export interface RunCheckpointToSave<State extends Record<string, unknown>> {
  state: State;
  policies: Record<string, PolicyToSave | SavedElsewhere>;
  tokenizerJson?: unknown;
}

/** Where a saved policy's model directory is: `<checkpoint>/policies/<name>`, loadable by `ludus eval` and transformers. */
export function policyDir(checkpointDir: string, policy: string): string {
  return join(checkpointDir, POLICIES_DIR, policy);
}

/**
 * Writes a training checkpoint atomically (a temp sibling swapped in whole): trainer_state.json and, per trainable
 * policy, policies/<name>/ with config.json, model.safetensors, tokenizer.json and optimizer.safetensors (AdamW
 * moments as m.<name> / v.<name>). A crash leaves the previous checkpoint or this one, never a mix of steps.
 */
export async function saveRunCheckpoint<State extends Record<string, unknown>>(dir: string, checkpoint: RunCheckpointToSave<State>): Promise<void> {
  await replaceDirectory(dir, async (temp) => {
    for (const [name, policy] of Object.entries(checkpoint.policies)) {
      if ('writeTo' in policy) await policy.writeTo(policyDir(temp, name));
      else await writePolicyCheckpoint(policyDir(temp, name), policy, checkpoint.tokenizerJson);
    }
    await writeFileDurably(join(temp, TRAINER_STATE_FILE), `${JSON.stringify(checkpoint.state, null, 2)}\n`);
  });
}

/** One trainable policy's directory (made here): its model, or its adapter in PEFT's layout, with its moments and the tokenizer. */
export async function writePolicyCheckpoint(target: string, policy: PolicyToSave, tokenizerJson?: unknown): Promise<void> {
  await mkdir(target, { recursive: true });
  const extraFiles: Record<string, string | Uint8Array> = {};
  if (!('writer' in policy.optimizer)) extraFiles[OPTIMIZER_FILE] = encodeOptimizer(policy.optimizer);
  if (tokenizerJson !== undefined) extraFiles[TOKENIZER_FILE] = JSON.stringify(tokenizerJson);
  if (policy.config.lora) {
    await writeAdapterFiles(target, policy.config, policy.weights, { baseModel: policy.baseModel ?? null });
    for (const [file, content] of Object.entries(extraFiles)) await writeFileDurably(join(target, file), content);
  } else {
    await writeCheckpointFiles(target, policy.config, policy.weights, { extraFiles });
  }
  if ('writer' in policy.optimizer) await writeMoments(join(target, OPTIMIZER_FILE), policy.optimizer);
}

/** The stored names of AdamW's moments in optimizer.safetensors (as encodeOptimizer writes them): m.<name> and v.<name>, flat. */
export function momentEntries(names: readonly string[]): Map<string, StoredTensor> {
  return new Map(names.flatMap((name): [string, StoredTensor][] => [[`m.${name}`, { kind: 'm', name, flat: true }], [`v.${name}`, { kind: 'v', name, flat: true }]]));
}

function writeMoments(path: string, moments: MomentsWriter): Promise<void> {
  return moments.writer.writeTensors(path, momentEntries(moments.names), { metadata: { step: String(moments.step) } });
}

/**
 * A policy as validation found it best (`best/<policy>`), swapped in whole: a full model directory, or for a policy
 * with an adapter the adapter in PEFT's layout over its base (as the checkpoint keeps it), with the tokenizer.
 */
export async function saveBestPolicy(dir: string, policy: Omit<PolicyCheckpoint, 'optimizer'>, tokenizerJson: unknown): Promise<void> {
  const tokenizer = { [TOKENIZER_FILE]: JSON.stringify(tokenizerJson) };
  const config = present(policy.config, `the model config of the best policy at ${dir}`);
  if (!config.lora) return saveCheckpoint(dir, config, policy.weights, { extraFiles: tokenizer });
  await replaceDirectory(dir, async (temp) => {
    await writeAdapterFiles(temp, config, policy.weights, { baseModel: policy.baseModel ?? null });
    await writeFileDurably(join(temp, TOKENIZER_FILE), tokenizer[TOKENIZER_FILE]);
  });
}

export async function loadRunCheckpoint<State extends Record<string, unknown>>(dir: string): Promise<RunCheckpoint<State>> {
  const state = JSON.parse(await readText(join(dir, TRAINER_STATE_FILE))) as State;
  const names = await readdir(join(dir, POLICIES_DIR)).catch((error) => (isMissingFileError(error) ? [] : Promise.reject(error)));
  const policies: Record<string, PolicyCheckpoint> = {};
  let tokenizerJson: unknown;
  for (const name of names.sort()) {
    const target = policyDir(dir, name);
    const optimizer = await readOptimizer(join(target, OPTIMIZER_FILE));
    if (await pathExists(join(target, ADAPTER_CONFIG_FILE))) {
      const adapter = await readAdapterFiles(target);
      policies[name] = { weights: adapter.weights, optimizer, ...(adapter.baseModel === null ? {} : { baseModel: adapter.baseModel }) };
    } else {
      const { config, weights } = await loadCheckpoint(target);
      policies[name] = { config, weights, optimizer };
    }
    const tokenizerText = await readFile(join(target, TOKENIZER_FILE), 'utf8').catch((error) => (isMissingFileError(error) ? undefined : Promise.reject(error)));
    if (tokenizerText !== undefined) tokenizerJson ??= JSON.parse(tokenizerText);
  }
  return { state, policies, ...(tokenizerJson === undefined ? {} : { tokenizerJson }) };
}

