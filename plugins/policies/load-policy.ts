import { basename, join } from 'node:path';
import { fail } from '../../core/errors.ts';
import { ADAPTER_CONFIG_FILE, loadAdapter, readAdapterFiles } from '../../native/io/adapter.ts';
import { checkpointSource, CONFIG_FILE, loadCheckpoint } from '../../native/io/checkpoint.ts';
import { adaptedWeights, withAdapter } from '../../native/model/lora.ts';
import { pathExists } from '../../native/io/files.ts';
import type { Policy } from '../../native/runtime/policy.ts';
import { loadTokenizer, type TextTokenizer } from '../tokenizers/hf-tokenizer.ts';

export interface LoadedPolicy {
  policy: Policy;
  tokenizer: TextTokenizer | null;
}

/**
 * A Hugging Face model directory as a policy: weights, config and (when present) its tokenizer.json. A directory
 * holding an adapter in PEFT's layout and no config.json is that adapter over its recorded base_model_name_or_path.
 */
export async function loadPolicy(at: string, name = basename(at)): Promise<LoadedPolicy> {
  if (await isAdapterDir(at)) return loadAdaptedPolicy(at, name);
  const dir = await checkpointSource(at);
  const { config, weights } = await loadCheckpoint(dir);
  const tokenizer = (await pathExists(join(dir, 'tokenizer.json'))) ? await loadTokenizer(dir) : null;
  const tokenizerHash = tokenizer?.hash ?? `vocab-size-${config.vocabSize}`;
  return { policy: { name, config, weights, tokenizerHash }, tokenizer };
}

/** A directory holding an adapter in PEFT's layout and no config.json of a full model. */
export async function isAdapterDir(dir: string): Promise<boolean> {
  return !(await pathExists(join(dir, CONFIG_FILE))) && (await pathExists(join(dir, ADAPTER_CONFIG_FILE)));
}

async function loadAdaptedPolicy(dir: string, name: string): Promise<LoadedPolicy> {
  const { baseModel } = await readAdapterFiles(dir);
  if (baseModel === null) {
    return fail('ADAPTER_BASE_MISMATCH', `${join(dir, ADAPTER_CONFIG_FILE)}: records no base_model_name_or_path, so the base it sits on is unknown`, { file: dir });
  }
  const base = await loadPolicy(baseModel, name);
  const adapter = await loadAdapter(dir, base.policy.config);
  const config = withAdapter(base.policy.config, adapter.lora);
  const tokenizer = (await pathExists(`${dir}/tokenizer.json`)) ? await loadTokenizer(dir) : base.tokenizer;
  return { policy: { ...base.policy, name, config, weights: adaptedWeights(base.policy.weights, adapter.weights), tokenizerHash: tokenizer?.hash ?? base.policy.tokenizerHash }, tokenizer };
}
