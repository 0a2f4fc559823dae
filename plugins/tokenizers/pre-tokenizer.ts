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

/** The letters branch of SPLIT_PATTERN: a run of letters with one leading non-letter. */
const LETTERS_BRANCH = '[^\\r\\n\\p{L}\\p{N}]?\\p{L}+';

/**
 * A split that keeps only the given words whole (each with its one leading non-letter, and only where no letter
 * follows) and cuts every other letter off alone, its leading space or quote a piece of its own (ours): a random word
 * is then the same letter tokens wherever it stands, in a prompt after a space or in a step after a quote, so a
 * small model can copy it token by token.
 */
export function wholeWordsPattern(words: readonly string[]): string {
  const escaped = [...words].sort((a, b) => b.length - a.length || (a < b ? -1 : 1)).map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const rest = SPLIT_PATTERN.replace(LETTERS_BRANCH, '\\p{L}');
  return escaped.length === 0 ? rest : `(?:${escaped.join('|')})(?!\\p{L})|${rest}`;
}

/** Whether a piece of SPLIT_PATTERN is a word: letters with at most one leading non-letter. */
export function isLetterPiece(piece: string): boolean {
  return new RegExp(`^${LETTERS_BRANCH}$`, 'u').test(piece);
}

/** A pre-tokenizer of trained tokenizer.json with its own split pattern. */
export function byteLevelPreTokenizer(pattern: string): typeof BYTE_LEVEL_PRE_TOKENIZER {
  return { type: 'Sequence', pretokenizers: [{ ...BYTE_LEVEL_PRE_TOKENIZER.pretokenizers[0], pattern: { Regex: pattern } }, BYTE_LEVEL_PRE_TOKENIZER.pretokenizers[1]] } as typeof BYTE_LEVEL_PRE_TOKENIZER;
}

/** The pieces SPLIT_PATTERN (or `pattern`) cuts `text` into; text between matches (there is none for these patterns) is kept as a piece. */
export function preTokenize(text: string, pattern: string = SPLIT_PATTERN): string[] {
  const pieces: string[] = [];
  let end = 0;
  for (const match of text.matchAll(new RegExp(pattern, 'gu'))) {
    if (match.index > end) pieces.push(text.slice(end, match.index));
    pieces.push(match[0]);
    end = match.index + match[0].length;
  }
  if (end < text.length) pieces.push(text.slice(end));
  return pieces;
}
