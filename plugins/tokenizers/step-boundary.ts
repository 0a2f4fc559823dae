import type { TextTokenizer } from './hf-tokenizer.ts';

/** Token ids whose text contains "\n\n": the ends of reasoning steps. */
export function stepBoundaryIds(tokenizer: Pick<TextTokenizer, 'decode' | 'vocabSize'>): number[] {
  const ids: number[] = [];
  for (let id = 0; id < tokenizer.vocabSize; id++) if (tokenizer.decode([id]).includes('\n\n')) ids.push(id);
  return ids;
}
