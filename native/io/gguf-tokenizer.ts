import { fail } from '../../core/errors.ts';
import type { ModelConfig } from '../model/config.ts';
import { gguf, type GgufValue } from './gguf.ts';

/**
 * A Hugging Face byte-level BPE tokenizer (tokenizer.json, with tokenizer_config.json) as GGUF's `tokenizer.*`
 * metadata, as llama.cpp's convert_hf_to_gguf.py writes it: model "gpt2", the pre-tokenizer named by the regex it
 * splits with, every id's string and type, the merges, the special ids and the chat template. A tokenizer llama.cpp
 * would read differently (another model type, a pre-tokenizer it does not know) is refused, naming what differs.
 */

/** llama.cpp's token types (llama_token_type). */
const NORMAL = 1;
const CONTROL = 3;
const USER_DEFINED = 4;
const UNUSED = 5;

const CONTRACTIONS = [
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)",
  "'(?:[sS]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD])",
  "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])",
];

/** The split patterns of the pre-tokenizers llama.cpp knows by name (src/llama-vocab.cpp), contractions written `'*`. */
const PRE_TOKENIZERS: Record<string, string> = {
  qwen2: "'*|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
  'llama-bpe': "'*|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
};

type Json = Record<string, unknown>;
const asObject = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);

/** llama.cpp's name for the tokenizer's pre-tokenizer, from the regex it splits with. */
export function ggufPreTokenizer(json: Json, where: string): string {
  const pre = asObject(json.pre_tokenizer);
  const parts = pre?.type === 'Sequence' ? ((pre.pretokenizers as unknown[]) ?? []).map(asObject) : [pre];
  const split = parts.find((p) => p?.type === 'Split');
  const byteLevel = parts.find((p) => p?.type === 'ByteLevel');
  if (!split && byteLevel && byteLevel.use_regex !== false) return 'gpt-2';
  const pattern = asObject(split?.pattern)?.Regex;
  if (typeof pattern === 'string' && byteLevel) {
    const canonical = CONTRACTIONS.reduce((text, form) => text.replace(form, "'*"), pattern);
    const name = Object.entries(PRE_TOKENIZERS).find(([, known]) => known === canonical)?.[0];
    if (name) return name;
  }
  return fail('EXPORT_UNSUPPORTED', `${where}: pre_tokenizer ${JSON.stringify(json.pre_tokenizer)} is none that llama.cpp knows (byte-level BPE splitting as GPT-2, Qwen2 or Llama 3 do), so llama.cpp would tokenize text differently`, {
    file: where,
  });
}

const tokenText = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof asObject(v)?.content === 'string' ? (asObject(v)?.content as string) : undefined);

/** The `tokenizer.*` metadata for a model of `config`'s vocabulary. */
export function ggufTokenizerMetadata(json: Json, tokenizerConfig: Json, config: ModelConfig, where: string): Array<[string, GgufValue]> {
  const model = asObject(json.model);
  if (model?.type !== 'BPE' || model.byte_fallback === true || !asObject(json.decoder) || asObject(json.decoder)?.type !== 'ByteLevel') {
    fail('EXPORT_UNSUPPORTED', `${where}: a ${String(model?.type)} tokenizer${model?.byte_fallback === true ? ' with byte fallback' : ''} decoded by ${String(asObject(json.decoder)?.type)}; the export writes byte-level BPE tokenizers (GPT-2, Qwen, Llama 3)`, { file: where });
  }
  const pre = ggufPreTokenizer(json, where);
  const tokens: (string | undefined)[] = new Array(config.vocabSize);
  const types = new Int32Array(config.vocabSize).fill(UNUSED);
  const place = (text: string, id: number, type: number) => {
    if (!Number.isInteger(id) || id < 0 || id >= config.vocabSize) {
      fail('EXPORT_UNSUPPORTED', `${where}: token ${JSON.stringify(text)} has id ${id}, outside the model's vocabulary of ${config.vocabSize}`, { file: where, token: text, id });
    }
    tokens[id] = text;
    types[id] = type;
  };
  for (const [text, id] of Object.entries(asObject(model.vocab) ?? {})) place(text, id as number, NORMAL);
  for (const added of (json.added_tokens as Json[] | undefined) ?? []) place(String(added.content), added.id as number, added.special === true ? CONTROL : USER_DEFINED);
  // Ids past the tokenizer's (a vocabulary padded for the GEMMs) as convert_hf_to_gguf.py names them.
  const strings = Array.from(tokens, (t, id) => t ?? `[PAD${id}]`);
  const merges = ((model.merges as unknown[] | undefined) ?? []).map((m) => (Array.isArray(m) ? m.join(' ') : String(m)));
  const idOf = (value: unknown): number | undefined => {
    const text = tokenText(value);
    const id = text === undefined ? -1 : strings.indexOf(text);
    return id < 0 ? undefined : id;
  };
  const eos = config.eosTokenIds[0] ?? idOf(tokenizerConfig.eos_token);
  const bos = config.bosTokenId ?? idOf(tokenizerConfig.bos_token);
  const pad = idOf(tokenizerConfig.pad_token);
  const template = tokenizerConfig.chat_template;
  return [
    ['tokenizer.ggml.model', gguf.str('gpt2')],
    ['tokenizer.ggml.pre', gguf.str(pre)],
    ['tokenizer.ggml.tokens', gguf.strs(strings)],
    ['tokenizer.ggml.token_type', gguf.i32s(types)],
    ['tokenizer.ggml.merges', gguf.strs(merges)],
    ...(eos === undefined ? [] : [['tokenizer.ggml.eos_token_id', gguf.u32(eos)] as [string, GgufValue]]),
    ...(bos === undefined ? [] : [['tokenizer.ggml.bos_token_id', gguf.u32(bos)] as [string, GgufValue]]),
    ...(pad === undefined ? [] : [['tokenizer.ggml.padding_token_id', gguf.u32(pad)] as [string, GgufValue]]),
    ['tokenizer.ggml.add_bos_token', gguf.bool(tokenizerConfig.add_bos_token === true)],
    ['tokenizer.ggml.add_eos_token', gguf.bool(false)],
    ...(typeof template === 'string' ? [['tokenizer.chat_template', gguf.str(template)] as [string, GgufValue]] : []),
  ];
}

/** GPT-2's map of the 256 bytes to printable characters, the alphabet of byte-level BPE vocabularies. */
function byteCharacters(): string[] {
  const printable = [...range(33, 127), ...range(161, 173), ...range(174, 256)];
  const chars = new Array<string>(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) chars[b] = String.fromCodePoint(printable.includes(b) ? b : 256 + extra++);
  return chars;
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

/**
 * A byte-level BPE tokenizer.json of `vocabSize` ids for a model that has none (the benchmark presets, test models):
 * ids below 256 are the bytes, the rest named `<|id_N|>`, no merges. It gives llama.cpp a vocabulary to load; text
 * is not what such a model is fed.
 */
export function byteLevelTokenizerJson(vocabSize: number): Record<string, unknown> {
  const bytes = byteCharacters();
  const vocab = Object.fromEntries(range(0, vocabSize).map((id) => [id < 256 ? bytes[id] : `<|id_${id}|>`, id]));
  return {
    model: { type: 'BPE', vocab, merges: [] },
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    decoder: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    added_tokens: [],
  };
}
