import { readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { LudusError, fail } from '../../core/errors.ts';
import { jsonSyntaxProblem } from '../../core/json-syntax.ts';

/** A Hugging Face `tokenizer.json`, loaded through @huggingface/tokenizers. */
export interface TextTokenizer {
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
  readonly vocabSize: number;
  /** sha256 over the vocabulary and added tokens: two tokenizers with one hash read ids the same way. */
  readonly hash: string;
  readonly json: Record<string, unknown>;
  /** Every surface form, added tokens included, with its id. */
  readonly vocab: ReadonlyMap<string, number>;
  /** `tokenizer_config.json` (chat template, special tokens), or `{}` when the model has none. */
  readonly config: Readonly<Record<string, unknown>>;
  /** Where the tokenizer came from, for error messages. */
  readonly source: string;
}

const KNOWN_MODELS = ['BPE', 'WordPiece', 'Unigram', 'WordLevel'];

export function tokenizerFromJson(json: unknown, config: Record<string, unknown> = {}, where = 'tokenizer.json'): TextTokenizer {
  if (typeof json !== 'object' || json === null) fail('TOKENIZER_INVALID', `${where}: not a JSON object`, { file: where });
  const model = (json as { model?: { type?: string; vocab?: unknown } }).model;
  const type = model?.type ?? (model && 'merges' in model ? 'BPE' : undefined);
  if (!type || !KNOWN_MODELS.includes(type)) {
    fail('TOKENIZER_INVALID', `${where}: unknown tokenizer model type "${String(type)}" (known: ${KNOWN_MODELS.join(', ')})`, { file: where });
  }
  let inner: Tokenizer;
  try {
    // Decoding gives back the text exactly, as the Rust tokenizers do, unless the config asks for
    // transformers' clean-up (` !` → `!`), which @huggingface/tokenizers would apply by default.
    inner = new Tokenizer(json as object, { ...config, clean_up_tokenization_spaces: config.clean_up_tokenization_spaces ?? false });
  } catch (error) {
    throw new LudusError('TOKENIZER_INVALID', `${where}: ${(error as Error).message}`, { file: where });
  }
  const reported = inner.get_vocab(true) as unknown as Map<string, number> | Record<string, number>;
  const entries = (reported instanceof Map ? [...reported.entries()] : Object.entries(reported)).sort((a, b) => a[1] - b[1]);
  const hash = createHash('sha256').update(JSON.stringify(entries)).digest('hex').slice(0, 16);
  const vocabSize = entries.length === 0 ? 0 : entries[entries.length - 1][1] + 1;
  return {
    encode: (text) => inner.encode(text, { add_special_tokens: false }).ids,
    // An empty response (EOS as the first token) decodes to ''; the library throws on an empty array.
    decode: (ids) => (ids.length === 0 ? '' : inner.decode([...ids], { skip_special_tokens: false })),
    vocabSize,
    hash,
    json: json as Record<string, unknown>,
    vocab: new Map(entries),
    config,
    source: where,
  };
}

async function readJson(path: string): Promise<unknown> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) =>
    error.code === 'EISDIR' ? fail('TOKENIZER_INVALID', `${path}: is a directory, expected a JSON file`, { file: path }) : Promise.reject(error),
  );
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new LudusError('TOKENIZER_INVALID', `${path}: not valid JSON (${jsonSyntaxProblem(error)})`, { file: path });
  }
}

/** Loads `tokenizer.json` (and `tokenizer_config.json` when present) from a model directory or a file path. */
export async function loadTokenizer(path: string): Promise<TextTokenizer> {
  const file = path.endsWith('.json') ? path : join(path, 'tokenizer.json');
  const dir = path.endsWith('.json') ? join(file, '..') : path;
  const json = await readJson(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') fail('CHECKPOINT_MISSING_FILE', `${file}: no tokenizer file`, { file });
    throw error;
  });
  const configFile = join(dir, 'tokenizer_config.json');
  const config = await readJson(configFile).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? {} : Promise.reject(error)));
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    fail('TOKENIZER_INVALID', `${configFile}: must hold a JSON object (the chat template and special tokens)`, { file: configFile });
  }
  return tokenizerFromJson(json, config as Record<string, unknown>, file);
}
