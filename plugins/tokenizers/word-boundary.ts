import { fail } from '../../core/errors.ts';
import type { TextTokenizer } from './hf-tokenizer.ts';
import { findWordMarker } from './word-marker.ts';

export interface WordBoundary {
  /** The word-initial prefix: `Ġ` for byte-level BPE, `▁` for sentencepiece-style vocabularies. */
  marker: string;
  /** Ids whose surface form starts with the marker, ascending: a token that opens a new word. */
  ids: Int32Array;
}

type BoundarySource = Pick<TextTokenizer, 'json' | 'vocab' | 'source'>;

/** The word boundary of a tokenizer, or `undefined` when it marks no word starts (WordLevel, WordPiece, ...). */
export function findWordBoundary(tokenizer: BoundarySource): WordBoundary | undefined {
  const marker = findWordMarker(tokenizer.json, tokenizer.vocab.keys());
  if (marker === undefined) return undefined;
  const ids: number[] = [];
  for (const [surface, id] of tokenizer.vocab) if (surface.startsWith(marker)) ids.push(id);
  return { marker, ids: Int32Array.from(ids).sort() };
}

/** The tokens at which a word starts, for handing a sequence over between policies at word boundaries. */
export function wordBoundary(tokenizer: BoundarySource): WordBoundary {
  return (
    findWordBoundary(tokenizer) ??
    fail('TOKENIZER_INVALID', `${tokenizer.source}: no word-initial marker (neither a ByteLevel nor a Metaspace tokenizer, and too few surface forms start with Ġ or ▁)`, { file: tokenizer.source })
  );
}
