import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { trainBpe } from '../../../plugins/tokenizers/bpe-trainer.ts';
import { loadTokenizer, tokenizerFromJson } from '../../../plugins/tokenizers/hf-tokenizer.ts';

const bytes = trainBpe([], { vocabSize: 258 });

const letters = {
  added_tokens: [],
  normalizer: null,
  pre_tokenizer: null,
  post_processor: null,
  decoder: null,
  model: { type: 'BPE', vocab: { a: 0, b: 1, ' ': 2, '!': 3 }, merges: [] },
};

async function fileWith(name: string, text: string): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'ludus-tokenizer-')), name);
  await writeFile(path, text);
  return path;
}

describe('loadTokenizer', () => {
  describe('having a file that is not JSON', () => {
    it('should reject with TOKENIZER_INVALID naming the file', async () => {
      const path = await fileWith('tokenizer.json', '{ "model": ');
      await expect(loadTokenizer(path)).rejects.toThrow(`[TOKENIZER_INVALID] ${path}: not valid JSON`);
    });
  });

  describe('having an unknown model type', () => {
    it('should reject with TOKENIZER_INVALID naming the file and the type', async () => {
      const path = await fileWith('tokenizer.json', JSON.stringify({ ...letters, model: { type: 'Sentencepiece' } }));
      await expect(loadTokenizer(path)).rejects.toThrow(`[TOKENIZER_INVALID] ${path}: unknown tokenizer model type "Sentencepiece"`);
    });
  });

  describe('having a tokenizer_config.json that is not JSON (a broken chat template)', () => {
    it('should reject with TOKENIZER_INVALID naming tokenizer_config.json', async () => {
      const path = await fileWith('tokenizer.json', JSON.stringify(letters));
      const configPath = join(path, '..', 'tokenizer_config.json');
      await writeFile(configPath, '{ "chat_template": "{% for m in messages %}');
      await expect(loadTokenizer(path)).rejects.toThrow(`[TOKENIZER_INVALID] ${configPath}: not valid JSON`);
    });
  });

  describe('having a tokenizer_config.json that holds an array', () => {
    it('should reject with TOKENIZER_INVALID naming tokenizer_config.json', async () => {
      const path = await fileWith('tokenizer.json', JSON.stringify(letters));
      const configPath = join(path, '..', 'tokenizer_config.json');
      await writeFile(configPath, '[]');
      await expect(loadTokenizer(path)).rejects.toThrow(`[TOKENIZER_INVALID] ${configPath}: must hold a JSON object`);
    });
  });

  describe('having a valid tokenizer_config.json beside it', () => {
    it('should read it as the config', async () => {
      const path = await fileWith('tokenizer.json', JSON.stringify(letters));
      await writeFile(join(path, '..', 'tokenizer_config.json'), '{"eos_token": "a"}');
      expect((await loadTokenizer(path)).config).toEqual({ eos_token: 'a' });
    });
  });

  describe('having a directory without tokenizer.json', () => {
    it('should reject with CHECKPOINT_MISSING_FILE naming the expected file', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ludus-tokenizer-'));
      await expect(loadTokenizer(dir)).rejects.toThrow(`[CHECKPOINT_MISSING_FILE] ${join(dir, 'tokenizer.json')}`);
    });
  });
});

describe('tokenizerFromJson', () => {
  describe('having no tokenizer_config.json', () => {
    it('should decode spaces before punctuation as they were', () => {
      const tokenizer = tokenizerFromJson(bytes);
      expect(tokenizer.decode(tokenizer.encode('ab !'))).toBe('ab !');
    });
  });

  describe('having an empty sequence (a response whose first token was EOS)', () => {
    it('should decode it to the empty string', () => {
      expect(tokenizerFromJson(bytes).decode([])).toBe('');
    });
  });

  describe('having a config that asks for clean-up of tokenization spaces', () => {
    it('should clean them up', () => {
      const tokenizer = tokenizerFromJson(bytes, { clean_up_tokenization_spaces: true });
      expect(tokenizer.decode(tokenizer.encode('ab !'))).toBe('ab!');
    });
  });

  it('should expose its vocabulary, config and source', () => {
    const tokenizer = tokenizerFromJson(letters, { eos_token: 'a' }, 'letters/tokenizer.json');
    expect(tokenizer.vocab.get('!')).toBe(3);
    expect(tokenizer.config).toEqual({ eos_token: 'a' });
    expect(tokenizer.source).toBe('letters/tokenizer.json');
  });
});
