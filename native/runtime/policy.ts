import { fail } from '../../core/errors.ts';
import type { ModelConfig } from '../model/config.ts';
import type { Weights } from '../model/weights.ts';

/** Weights + config + the identity of its tokenizer. Frozen unless a learner owns it. */
export interface Policy {
  name: string;
  config: ModelConfig;
  weights: Weights;
  /** Hash of the tokenizer's vocabulary; co-decoding partners must agree on it. */
  tokenizerHash: string;
}

/** Co-decoding writes one token stream, so every partner must read tokens the same way. */
export function assertSharedTokenizer(policies: readonly Policy[]): void {
  const [first, ...rest] = policies;
  for (const other of rest) {
    if (other.tokenizerHash !== first.tokenizerHash) {
      fail('TOKENIZER_MISMATCH', `policies "${first.name}" and "${other.name}" use different tokenizers (${first.tokenizerHash} vs ${other.tokenizerHash}); co-decoding needs one shared tokenizer`, {
        policies: [first.name, other.name],
      });
    }
    if (other.config.vocabSize !== first.config.vocabSize) {
      fail('TOKENIZER_MISMATCH', `policies "${first.name}" and "${other.name}" have different vocabulary sizes (${first.config.vocabSize} vs ${other.config.vocabSize})`, {
        policies: [first.name, other.name],
      });
    }
  }
}
