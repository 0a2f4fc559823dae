import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadCheckpoint, writeCheckpointFiles } from '../../native/io/checkpoint.ts';
import { isMissingFileError, replaceDirectory, writeFileDurably } from '../../native/io/files.ts';
import type { ModelConfig } from '../../native/model/config.ts';
import type { Weights } from '../../native/model/weights.ts';
import type { AdamWState } from '../../native/train/adamw.ts';
import { encodeOptimizer, OPTIMIZER_FILE, readOptimizer, readText, TOKENIZER_FILE, TRAINER_STATE_FILE } from './training-checkpoint.ts';

export const POLICIES_DIR = 'policies';

/** One trainable policy as saved: a Hugging Face model directory plus its AdamW moments. */
export interface PolicyCheckpoint {
  config: ModelConfig;
  weights: Weights;
  optimizer: AdamWState;
}

/** Everything an RL run needs to continue exactly: every trainable policy, and the trainer's state. */
export interface RunCheckpoint<State extends Record<string, unknown>> {
  /** Plain JSON: step, data cursor, estimator states, the run's config... */
  state: State;
  policies: Record<string, PolicyCheckpoint>;
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
export async function saveRunCheckpoint<State extends Record<string, unknown>>(dir: string, checkpoint: RunCheckpoint<State>): Promise<void> {
  await replaceDirectory(dir, async (temp) => {
    for (const [name, policy] of Object.entries(checkpoint.policies)) {
      const target = policyDir(temp, name);
      await mkdir(target, { recursive: true });
      const extraFiles: Record<string, string | Uint8Array> = { [OPTIMIZER_FILE]: encodeOptimizer(policy.optimizer) };
      if (checkpoint.tokenizerJson !== undefined) extraFiles[TOKENIZER_FILE] = JSON.stringify(checkpoint.tokenizerJson);
      await writeCheckpointFiles(target, policy.config, policy.weights, { extraFiles });
    }
    await writeFileDurably(join(temp, TRAINER_STATE_FILE), `${JSON.stringify(checkpoint.state, null, 2)}\n`);
  });
}

export async function loadRunCheckpoint<State extends Record<string, unknown>>(dir: string): Promise<RunCheckpoint<State>> {
  const state = JSON.parse(await readText(join(dir, TRAINER_STATE_FILE))) as State;
  const names = await readdir(join(dir, POLICIES_DIR)).catch((error) => (isMissingFileError(error) ? [] : Promise.reject(error)));
  const policies: Record<string, PolicyCheckpoint> = {};
  let tokenizerJson: unknown;
  for (const name of names.sort()) {
    const target = policyDir(dir, name);
    const { config, weights } = await loadCheckpoint(target);
    policies[name] = { config, weights, optimizer: await readOptimizer(join(target, OPTIMIZER_FILE)) };
    const tokenizerText = await readFile(join(target, TOKENIZER_FILE), 'utf8').catch((error) => (isMissingFileError(error) ? undefined : Promise.reject(error)));
    if (tokenizerText !== undefined) tokenizerJson ??= JSON.parse(tokenizerText);
  }
  return { state, policies, ...(tokenizerJson === undefined ? {} : { tokenizerJson }) };
}

