import { fail } from '../../core/errors.ts';
import { BYTE_CHARS, utf8Bytes } from './byte-level.ts';
import { PairQueue } from './pair-queue.ts';
import { BYTE_LEVEL_DECODER, BYTE_LEVEL_POST_PROCESSOR, BYTE_LEVEL_PRE_TOKENIZER, byteLevelPreTokenizer, isLetterPiece, preTokenize, SPLIT_PATTERN, wholeWordsPattern } from './pre-tokenizer.ts';

export const EOS_TOKEN = '<|endoftext|>';
export const PAD_TOKEN = '<|pad|>';

export interface BpeTrainingOptions {
  /** Ids in the trained vocabulary: special tokens, the 256 bytes, then one per merge. Training stops early when the corpus has no pair left to merge. */
  vocabSize: number;
  /** Special tokens after `<|endoftext|>` (id 0) and `<|pad|>` (id 1), in id order. */
  specialTokens?: readonly string[];
  /**
   * Pieces (pre-tokenized words) seen fewer times than this in the corpus are left out of the pair counts, so merges
   * come from the corpus's recurring words only and rare strings, such as a task's random words, stay spelled one
   * byte per token (learned merges still apply to them when encoding). 1, the default: every piece counts.
   */
  minPieceCount?: number;
  /**
   * Keep whole only the words seen at least `minPieceCount` times (a quoted string never counts as one: quotes hold a
   * task's data) and split every other letter off alone, its leading space or quote apart (ours): merges then never
   * reach into rare words, which stay the same letter tokens wherever they stand (see `wholeWordsPattern`). The
   * split pattern is written into the tokenizer.json. False, the default: Qwen's split, merges apply everywhere.
   */
  spellRareWords?: boolean;
}

export interface AddedTokenJson {
  id: number;
  content: string;
  single_word: boolean;
  lstrip: boolean;
  rstrip: boolean;
  normalized: boolean;
  special: boolean;
}

/** A Hugging Face `tokenizer.json` with a byte-level BPE model. */
export interface BpeTokenizerJson {
  version: '1.0';
  truncation: null;
  padding: null;
  added_tokens: AddedTokenJson[];
  normalizer: null;
  pre_tokenizer: typeof BYTE_LEVEL_PRE_TOKENIZER;
  post_processor: typeof BYTE_LEVEL_POST_PROCESSOR;
  decoder: typeof BYTE_LEVEL_DECODER;
  model: {
    type: 'BPE';
    dropout: null;
    unk_token: null;
    continuing_subword_prefix: null;
    end_of_word_suffix: null;
    fuse_unk: false;
    byte_fallback: false;
    ignore_merges: false;
    vocab: Record<string, number>;
    merges: [string, string][];
  };
}

/** Pair keys pack two ids into one number: `left * PAIR_STRIDE + right`. */
const PAIR_STRIDE = 2 ** 21;

function specialTokenList(extra: readonly string[]): string[] {
  const tokens = [EOS_TOKEN, PAD_TOKEN];
  for (const token of extra) {
    if (token.length === 0) fail('INPUT_INVALID', 'trainBpe: a special token is the empty string');
    if (!tokens.includes(token)) tokens.push(token);
  }
  return tokens;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** How often each pre-tokenized piece occurs; special tokens are cut out first, as the tokenizer does when encoding. */
/**
 * Whether a recurring piece may stay a whole token under `spellRareWords`: a word of two letters or more after a space,
 * backslash or nothing, never a quoted one, and a bare lowercase one only from four letters (the short strings a task
 * quotes, such as a running answer "oe", recur too; a template's bare words, such as `boxed`, are longer).
 */
function keptWhole(piece: string): boolean {
  if (!isLetterPiece(piece) || piece.startsWith('"')) return false;
  const letters = piece.replace(/^[^\p{L}]/u, '');
  if (letters.length < 2) return false;
  return letters.length !== piece.length || /^\p{Lu}/u.test(letters) || letters.length >= 4;
}

function countWords(corpus: Iterable<string>, specialTokens: readonly string[], pattern: string): Map<string, number> {
  const specials = new RegExp(specialTokens.map(escapeRegExp).join('|'), 'g');
  const counts = new Map<string, number>();
  for (const text of corpus) {
    for (const segment of text.split(specials)) {
      for (const piece of preTokenize(segment, pattern)) counts.set(piece, (counts.get(piece) ?? 0) + 1);
    }
  }
  return counts;
}

interface Word {
  symbols: Int32Array;
  count: number;
}

/** Replaces every non-overlapping `left right`, scanning left to right, by `merged`. */
function mergeSymbols(symbols: Int32Array, left: number, right: number, merged: number): Int32Array {
  const out = new Int32Array(symbols.length);
  let length = 0;
  for (let i = 0; i < symbols.length; i++) {
    if (i + 1 < symbols.length && symbols[i] === left && symbols[i + 1] === right) {
      out[length++] = merged;
      i++;
    } else {
      out[length++] = symbols[i];
    }
  }
  return out.subarray(0, length);
}

function containsPair(symbols: Int32Array, left: number, right: number): boolean {
  for (let i = 0; i + 1 < symbols.length; i++) if (symbols[i] === left && symbols[i + 1] === right) return true;
  return false;
}

/** Pair counts over all words, the words each pair occurs in (a superset: entries go stale), and the merges picked from them. */
class PairTable {
  readonly counts = new Map<number, number>();
  readonly wordsWith = new Map<number, Set<number>>();
  readonly queue = new PairQueue();

  add(symbols: Int32Array, word: number, count: number, delta: Map<number, number>): void {
    for (let i = 0; i + 1 < symbols.length; i++) {
      const pair = symbols[i] * PAIR_STRIDE + symbols[i + 1];
      delta.set(pair, (delta.get(pair) ?? 0) + count);
      let words = this.wordsWith.get(pair);
      if (!words) this.wordsWith.set(pair, (words = new Set()));
      words.add(word);
    }
  }

  remove(symbols: Int32Array, count: number, delta: Map<number, number>): void {
    for (let i = 0; i + 1 < symbols.length; i++) {
      const pair = symbols[i] * PAIR_STRIDE + symbols[i + 1];
      delta.set(pair, (delta.get(pair) ?? 0) - count);
    }
  }

  apply(delta: Map<number, number>): void {
    for (const [pair, change] of delta) {
      if (change === 0) continue;
      const count = (this.counts.get(pair) ?? 0) + change;
      if (count > 0) {
        this.counts.set(pair, count);
        this.queue.push({ pair, count });
      } else {
        this.counts.delete(pair);
        this.wordsWith.delete(pair);
      }
    }
  }

  /** The most frequent pair still present, or `undefined` when no word has two symbols left. */
  next(): number | undefined {
    for (let entry = this.queue.pop(); entry; entry = this.queue.pop()) {
      if (this.counts.get(entry.pair) === entry.count) return entry.pair;
    }
    return undefined;
  }
}

function addedToken(id: number, content: string): AddedTokenJson {
  return { id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true };
}

/**
 * Trains a byte-level BPE tokenizer and returns it as a `tokenizer.json` object that
 * @huggingface/tokenizers and the Python `tokenizers` library both read.
 *
 * Pair counts are kept over unique pre-tokenized words and updated only in the words a merge
 * touches; the most frequent pair wins, ties going to the pair of lower ids, so the same
 * corpus always gives the same tokenizer.
 */
export function trainBpe(corpus: Iterable<string>, options: BpeTrainingOptions): BpeTokenizerJson {
  const specials = specialTokenList(options.specialTokens ?? []);
  const minimum = specials.length + BYTE_CHARS.length;
  const { vocabSize } = options;
  if (!Number.isInteger(vocabSize) || vocabSize < minimum || vocabSize >= PAIR_STRIDE) {
    fail('INPUT_INVALID', `trainBpe: vocabSize ${vocabSize} must be an integer from ${minimum} (special tokens + 256 bytes) to ${PAIR_STRIDE - 1}`, { vocabSize });
  }

  const tokens: string[] = [...specials, ...BYTE_CHARS];
  const idOf = new Map(tokens.map((token, id) => [token, id]));
  const firstByte = specials.length;

  const words: Word[] = [];
  const minPieceCount = options.minPieceCount ?? 1;
  if (!Number.isInteger(minPieceCount) || minPieceCount < 1) fail('INPUT_INVALID', `trainBpe: minPieceCount ${minPieceCount} must be a whole number ≥ 1`, { minPieceCount });
  const texts = [...corpus];
  let pattern = SPLIT_PATTERN;
  if (options.spellRareWords) {
    const common = [...countWords(texts, specials, SPLIT_PATTERN)].filter(([piece, count]) => count >= minPieceCount && keptWhole(piece)).map(([piece]) => piece);
    pattern = wholeWordsPattern(common);
  }
  for (const [piece, count] of countWords(texts, specials, pattern)) {
    if (count < minPieceCount) continue;
    words.push({ symbols: Int32Array.from(utf8Bytes(piece), (byte) => firstByte + byte), count });
  }
  const table = new PairTable();
  const initial = new Map<number, number>();
  for (const [index, word] of words.entries()) table.add(word.symbols, index, word.count, initial);
  table.apply(initial);

  const merges: [string, string][] = [];
  while (tokens.length < vocabSize) {
    const pair = table.next();
    if (pair === undefined) break;
    const left = Math.floor(pair / PAIR_STRIDE);
    const right = pair % PAIR_STRIDE;
    const surface = tokens[left] + tokens[right];
    let merged = idOf.get(surface);
    if (merged === undefined) {
      merged = tokens.push(surface) - 1;
      idOf.set(surface, merged);
    }
    merges.push([tokens[left], tokens[right]]);

    const delta = new Map<number, number>();
    for (const index of table.wordsWith.get(pair) ?? []) {
      const word = words[index];
      if (!containsPair(word.symbols, left, right)) continue;
      table.remove(word.symbols, word.count, delta);
      word.symbols = mergeSymbols(word.symbols, left, right, merged);
      table.add(word.symbols, index, word.count, delta);
    }
    table.apply(delta);
  }

  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: specials.map((content, id) => addedToken(id, content)),
    normalizer: null,
    pre_tokenizer: pattern === SPLIT_PATTERN ? structuredClone(BYTE_LEVEL_PRE_TOKENIZER) : byteLevelPreTokenizer(pattern),
    post_processor: structuredClone(BYTE_LEVEL_POST_PROCESSOR),
    decoder: structuredClone(BYTE_LEVEL_DECODER),
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab: Object.fromEntries(tokens.map((token, id) => [token, id])),
      merges,
    },
  };
}
