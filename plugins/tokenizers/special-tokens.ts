import type { TextTokenizer } from './hf-tokenizer.ts';

/** The tokenizer's special tokens (added tokens marked `special`), by id, with their surface form (`<|endoftext|>`). */
export function specialTokens(tokenizer: Pick<TextTokenizer, 'json'>): Map<number, string> {
  const added = (tokenizer.json as { added_tokens?: { id?: unknown; content?: unknown; special?: unknown }[] }).added_tokens ?? [];
  const specials = new Map<number, string>();
  for (const token of added) if (token.special === true && typeof token.id === 'number' && typeof token.content === 'string') specials.set(token.id, token.content);
  return specials;
}
