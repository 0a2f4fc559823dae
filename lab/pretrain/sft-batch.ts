import { fail } from '../../core/errors.ts';
import type { LearnBatch } from '../../native/train/learner.ts';
import type { TextTokenizer } from '../../plugins/tokenizers/hf-tokenizer.ts';

export interface SftExample {
  prompt: string;
  completion: string;
}

/** Prompt and completion token ids; the completion ends with the end-of-sequence token. */
export function tokenizeExample(tokenizer: TextTokenizer, example: SftExample, eosId: number): { prompt: number[]; completion: number[] } {
  return { prompt: tokenizer.encode(example.prompt), completion: [...tokenizer.encode(example.completion), eosId] };
}

/**
 * Right-padded next-token batch: position t reads token t and is trained to predict token t+1; only completion
 * tokens (and the end-of-sequence token) are trained on.
 */
export function sftBatch(tokenized: ReadonlyArray<{ prompt: number[]; completion: number[] }>, padId: number, maxTokens: number): LearnBatch {
  const sequences = tokenized.map(({ prompt, completion }) => ({ ids: [...prompt, ...completion], firstTrained: prompt.length }));
  const longest = Math.max(...sequences.map((s) => s.ids.length));
  if (longest > maxTokens) fail('SEQUENCE_TOO_LONG', `an example of ${longest} tokens exceeds maxTokens ${maxTokens}`, { tokens: longest, maxTokens });
  const rows = sequences.length;
  const cols = longest - 1;
  const inputIds = new Int32Array(rows * cols).fill(padId);
  const targets = new Int32Array(rows * cols).fill(padId);
  const lossMask = new Float32Array(rows * cols);
  for (const [row, { ids, firstTrained }] of sequences.entries()) {
    for (let t = 0; t < ids.length - 1; t++) {
      inputIds[row * cols + t] = ids[t];
      targets[row * cols + t] = ids[t + 1];
      if (t + 1 >= firstTrained) lossMask[row * cols + t] = 1;
    }
  }
  return { rows, cols, inputIds, targets, lossMask };
}
