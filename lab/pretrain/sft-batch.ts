import { fail } from '../../core/errors.ts';
import type { LearnBatch } from '../../native/train/learner.ts';
import type { TextTokenizer } from '../../plugins/tokenizers/hf-tokenizer.ts';

/** A piece of a completion; `env` marks the environment's text (a tool's result), tokenised alone and never trained. */
export interface CompletionPart {
  readonly text: string;
  readonly env?: boolean;
}

export interface SftExample {
  prompt: string;
  /** The text the model learns to write (with `parts`: their texts joined). */
  completion: string;
  /** The completion in parts (a tool call, the environment's answer, the rest), where the environment has a part. */
  parts?: readonly CompletionPart[];
}

export interface TokenizedExample {
  prompt: number[];
  completion: number[];
  /** Indices into `completion` of the environment's tokens (absent: none). */
  env?: number[];
}

/** An example whose completion comes in parts: the parts, their texts joined as its completion. */
export function partedExample(prompt: string, parts: readonly CompletionPart[]): SftExample {
  return { prompt, completion: parts.map((part) => part.text).join(''), parts };
}

/**
 * Prompt and completion token ids; the completion ends with the end-of-sequence token. A completion in parts is
 * tokenised a part at a time, as the match engine tokenises a turn that called a tool: the policy's text as sampled,
 * the environment's text encoded once on its own.
 */
export function tokenizeExample(tokenizer: TextTokenizer, example: SftExample, eosId: number): TokenizedExample {
  const prompt = tokenizer.encode(example.prompt);
  if (!example.parts) return { prompt, completion: [...tokenizer.encode(example.completion), eosId] };
  const completion: number[] = [];
  const env: number[] = [];
  for (const part of example.parts) {
    const ids = tokenizer.encode(part.text);
    if (part.env) env.push(...ids.map((_, i) => completion.length + i));
    completion.push(...ids);
  }
  completion.push(eosId);
  return { prompt, completion, ...(env.length > 0 ? { env } : {}) };
}

/**
 * Right-padded next-token batch: position t reads token t and is trained to predict token t+1; only completion
 * tokens (and the end-of-sequence token) are trained on, the environment's tokens left out.
 */
export function sftBatch(tokenized: ReadonlyArray<TokenizedExample>, padId: number, maxTokens: number): LearnBatch {
  const sequences = tokenized.map(({ prompt, completion, env }) => ({ ids: [...prompt, ...completion], firstTrained: prompt.length, env: new Set((env ?? []).map((i) => prompt.length + i)) }));
  const longest = Math.max(...sequences.map((s) => s.ids.length));
  if (longest > maxTokens) fail('SEQUENCE_TOO_LONG', `an example of ${longest} tokens exceeds maxTokens ${maxTokens}`, { tokens: longest, maxTokens });
  const rows = sequences.length;
  const cols = longest - 1;
  const inputIds = new Int32Array(rows * cols).fill(padId);
  const targets = new Int32Array(rows * cols).fill(padId);
  const lossMask = new Float32Array(rows * cols);
  for (const [row, { ids, firstTrained, env }] of sequences.entries()) {
    for (let t = 0; t < ids.length - 1; t++) {
      inputIds[row * cols + t] = ids[t];
      targets[row * cols + t] = ids[t + 1];
      if (t + 1 >= firstTrained && !env.has(t + 1)) lossMask[row * cols + t] = 1;
    }
  }
  return { rows, cols, inputIds, targets, lossMask };
}
