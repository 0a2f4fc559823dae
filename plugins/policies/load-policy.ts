import { basename, join } from 'node:path';
import { checkpointSource, loadCheckpoint } from '../../native/io/checkpoint.ts';
import { pathExists } from '../../native/io/files.ts';
import type { Policy } from '../../native/runtime/policy.ts';
import { loadTokenizer, type TextTokenizer } from '../tokenizers/hf-tokenizer.ts';

export interface LoadedPolicy {
  policy: Policy;
  tokenizer: TextTokenizer | null;
}

/** A Hugging Face model directory as a policy: weights, config and (when present) its tokenizer.json. */
export async function loadPolicy(at: string, name = basename(at)): Promise<LoadedPolicy> {
  const dir = await checkpointSource(at);
  const { config, weights } = await loadCheckpoint(dir);
  const tokenizer = (await pathExists(join(dir, 'tokenizer.json'))) ? await loadTokenizer(dir) : null;
  const tokenizerHash = tokenizer?.hash ?? `vocab-size-${config.vocabSize}`;
  return { policy: { name, config, weights, tokenizerHash }, tokenizer };
}
