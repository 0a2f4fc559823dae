import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { EOS_TOKEN, PAD_TOKEN, trainBpe } from '../../../plugins/tokenizers/bpe-trainer.ts';
import { loadTokenizer, tokenizerFromJson } from '../../../plugins/tokenizers/hf-tokenizer.ts';
import { workedSolutions } from './worked-solutions.ts';

const corpus = workedSolutions(2000);
const trained = trainBpe(corpus, { vocabSize: 600 });
const tokenizer = tokenizerFromJson(trained);

const trickyTexts = [
  'The answer is \\boxed{10432}.',
  'First, add the ones digits.\n\nThen carry 1.\n\n\n',
  '12+7=19, (a*b)/c - 3.5e-2; x_1^2 != y!',
  "  leading spaces,\ttabs\r\nand it's THEY'LL",
  'ünïcödé 日本語 🎉 — never seen in training',
  `${EOS_TOKEN}after the end${PAD_TOKEN}`,
];

describe('trainBpe', () => {
  describe('having a corpus of worked solutions', () => {
    it('should fill the vocabulary: special tokens, 256 bytes, then merges', () => {
      expect(Object.keys(trained.model.vocab)).toHaveLength(600);
      expect(trained.model.merges).toHaveLength(600 - 2 - 256);
      expect(tokenizer.vocabSize).toBe(600);
    });

    it('should give <|endoftext|> id 0 and <|pad|> id 1 as special added tokens', () => {
      expect(trained.added_tokens.map(({ id, content, special }) => ({ id, content, special }))).toEqual([
        { id: 0, content: EOS_TOKEN, special: true },
        { id: 1, content: PAD_TOKEN, special: true },
      ]);
      expect(tokenizer.encode(EOS_TOKEN)).toEqual([0]);
    });

    it('should write the standard byte-level BPE layout', () => {
      expect(trained.model.type).toBe('BPE');
      expect(trained.decoder.type).toBe('ByteLevel');
      expect(trained.pre_tokenizer.pretokenizers.map((p) => p.type)).toEqual(['Split', 'ByteLevel']);
      expect(trained.pre_tokenizer.pretokenizers[1]).toMatchObject({ add_prefix_space: false });
    });

    it('should encode a word frequent in the corpus as one word-initial token', () => {
      expect(tokenizer.encode(' answer')).toEqual([trained.model.vocab['Ġanswer']]);
    });

    it('should keep every digit a token of its own', () => {
      const ids = tokenizer.encode('90210');
      expect(ids.map((id) => tokenizer.decode([id]))).toEqual(['9', '0', '2', '1', '0']);
    });
  });

  describe('having the same corpus twice', () => {
    it('should train the same tokenizer', () => {
      expect(JSON.stringify(trainBpe(corpus, { vocabSize: 600 }))).toBe(JSON.stringify(trained));
    });
  });

  describe('having text with \\boxed{}, blank lines, digits, punctuation and unseen characters', () => {
    it.each(trickyTexts)('should round-trip %j exactly', (text) => {
      expect(tokenizer.decode(tokenizer.encode(text))).toBe(text);
    });
  });

  describe('having been saved as tokenizer.json', () => {
    it('should load back through loadTokenizer and encode as the trained object does', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'ludus-bpe-'));
      await writeFile(join(dir, 'tokenizer.json'), JSON.stringify(trained));
      const loaded = await loadTokenizer(dir);
      expect(loaded.hash).toBe(tokenizer.hash);
      for (const text of trickyTexts) {
        expect(loaded.encode(text)).toEqual(tokenizer.encode(text));
        expect(loaded.decode(loaded.encode(text))).toBe(text);
      }
    });
  });

  describe('having extra special tokens', () => {
    it('should number them after <|endoftext|> and <|pad|>, and never split them', () => {
      const chat = tokenizerFromJson(trainBpe(corpus, { vocabSize: 300, specialTokens: ['<|im_start|>', '<|im_end|>'] }));
      expect(chat.encode('<|im_start|>hi<|im_end|>')).toEqual([2, ...chat.encode('hi'), 3]);
    });
  });

  describe('having a corpus that runs out of pairs', () => {
    it('should stop merging with a smaller vocabulary', () => {
      const small = trainBpe(['ab ab'], { vocabSize: 1000 });
      expect(small.model.merges).toEqual([
        ['a', 'b'],
        ['Ġ', 'ab'],
      ]);
    });
  });

  describe('having a minimum piece count', () => {
    it('should merge only within pieces that recur that often, leaving rare words spelled byte by byte', () => {
      const text = [...Array(20).fill(' letters so far'), ' qzxv', ' wpkj'];
      const json = trainBpe(text, { vocabSize: 1000, minPieceCount: 5 });
      const merged = json.model.merges.map(([a, b]) => a + b);
      expect(merged).toContain('Ġletters');
      expect(merged.some((m) => /[qzxvwpkj]{2}/.test(m))).toBe(false);
      const t = tokenizerFromJson(json);
      expect(t.encode(' qzxv').map((id) => t.decode([id]))).toEqual([' ', 'q', 'z', 'x', 'v']);
      expect(trainBpe(text, { vocabSize: 1000 }).model.merges.length).toBeGreaterThan(json.model.merges.length);
    });

    it('should spell a rare word in the same letter tokens after a space and after a quote when asked to spell rare words', () => {
      const words = ['rover', 'mival', 'tosek', 'pulin', 'garob', 'fenut', 'kasil', 'dorem', 'vubat', 'lenog'];
      const text = [...Array(20)].map((_, i) => `The word "${words[i % 10]}" ends with "${words[i % 10].at(-1)}", so the letters so far are "or". ${words[(i + 3) % 10]}`);
      const plain = tokenizerFromJson(trainBpe(text, { vocabSize: 1000, minPieceCount: 5 }));
      const spell = (t: typeof plain, s: string) => t.encode(s).map((id) => t.decode([id]));
      expect(spell(plain, ' rover').slice(1)).not.toEqual(spell(plain, ' "rover').slice(1, -1));
      const json = trainBpe(text, { vocabSize: 1000, minPieceCount: 5, spellRareWords: true });
      const t = tokenizerFromJson(json);
      expect(spell(t, ' rover')).toEqual([' ', 'r', 'o', 'v', 'e', 'r']);
      expect(spell(t, ' "rover"')).toEqual([' "', 'r', 'o', 'v', 'e', 'r', '"']);
      expect(spell(t, ' "rover".')).toEqual([' "', 'r', 'o', 'v', 'e', 'r', '".']);
      expect(spell(t, ' letters so far')).toEqual([' letters', ' so', ' far']);
      expect(spell(t, ' so far are "or"')).toEqual([' so', ' far', ' are', ' "', 'o', 'r', '"']);
      expect(spell(t, ' farm')).toEqual([' ', 'f', 'a', 'r', 'm']);
      const sentence = 'The word "rover" ends with "r", so the letters so far are "or".';
      expect(t.decode(t.encode(sentence))).toBe(sentence);
      expect(JSON.stringify(json.pre_tokenizer)).toContain(' letters');
    });

    it('should refuse a count below 1 with INPUT_INVALID', () => {
      expect(() => trainBpe(['ab'], { vocabSize: 300, minPieceCount: 0 })).toThrow(/INPUT_INVALID.*minPieceCount/);
    });
  });

  describe('having a vocabulary too small for the bytes', () => {
    it('should throw INPUT_INVALID naming vocabSize', () => {
      expect(() => trainBpe(corpus, { vocabSize: 100 })).toThrow(LudusError);
      expect(() => trainBpe(corpus, { vocabSize: 100 })).toThrow(/INPUT_INVALID.*vocabSize 100/);
    });
  });

  // How fast: `ludus bench tokenizer` (docs/performance.md).
  describe('having megabytes of text and 4k merges', () => {
    it('should learn every merge asked for', () => {
      const large = workedSolutions(20_000, 7);
      const json = trainBpe(large, { vocabSize: 4096 + 258 });
      expect(large.join('').length).toBeGreaterThan(3e6);
      expect(json.model.merges).toHaveLength(4096);
      expect(new Set(json.model.merges.map((merge) => JSON.stringify(merge))).size).toBe(4096);
    });
  });
});
