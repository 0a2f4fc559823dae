/**
 * The split of Qwen2/Qwen3 (GPT-2's regex with cl100k's refinements), written without the
 * inline `(?i:...)` group so that one string means the same to JavaScript, to
 * @huggingface/tokenizers and to the Rust tokenizers:
 *  - a word keeps one leading non-letter (` the`, `\boxed`, `(x`), so word-initial tokens carry `Ġ`;
 *  - digits split one at a time (`\p{N}`, not GPT-2's ` ?\p{N}+`): every number is spelled in
 *    the ten digit tokens, which keeps carries learnable for a tiny model;
 *  - a run of newlines stays one piece, so the `\n\n` between solution steps is one token.
 */
export const SPLIT_PATTERN =
  "'(?:[sS]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

const BYTE_LEVEL_OPTIONS = { add_prefix_space: false, trim_offsets: false, use_regex: false };

/** The `pre_tokenizer` of a trained tokenizer.json: split by SPLIT_PATTERN, then map bytes to characters. */
export const BYTE_LEVEL_PRE_TOKENIZER = {
  type: 'Sequence',
  pretokenizers: [
    { type: 'Split', pattern: { Regex: SPLIT_PATTERN }, behavior: 'Isolated', invert: false },
    { type: 'ByteLevel', ...BYTE_LEVEL_OPTIONS },
  ],
};

export const BYTE_LEVEL_DECODER = { type: 'ByteLevel', ...BYTE_LEVEL_OPTIONS };
export const BYTE_LEVEL_POST_PROCESSOR = { type: 'ByteLevel', ...BYTE_LEVEL_OPTIONS };

/** The pieces SPLIT_PATTERN cuts `text` into; text between matches (there is none for this pattern) is kept as a piece. */
export function preTokenize(text: string): string[] {
  const pieces: string[] = [];
  let end = 0;
  for (const match of text.matchAll(new RegExp(SPLIT_PATTERN, 'gu'))) {
    if (match.index > end) pieces.push(text.slice(end, match.index));
    pieces.push(match[0]);
    end = match.index + match[0].length;
  }
  if (end < text.length) pieces.push(text.slice(end));
  return pieces;
}
