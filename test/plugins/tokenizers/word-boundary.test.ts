import { beforeAll, describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { trainBpe } from '../../../plugins/tokenizers/bpe-trainer.ts';
import { loadTokenizer, tokenizerFromJson, type TextTokenizer } from '../../../plugins/tokenizers/hf-tokenizer.ts';
import { wordBoundary } from '../../../plugins/tokenizers/word-boundary.ts';
import { QWEN3_DIR, workedSolutions } from './worked-solutions.ts';

const isSortedAscending = (ids: Int32Array): boolean => ids.every((id, i) => i === 0 || ids[i - 1] < id);

/** A sentencepiece-style BPE vocabulary: `▁` opens words. */
const sentencepieceVocab = { '▁the': 0, '▁cat': 1, the: 2, s: 3, '▁': 4, t: 5, h: 6, e: 7 };

function sentencepieceStyle(parts: { pre_tokenizer?: object | null; decoder?: object | null }): TextTokenizer {
  return tokenizerFromJson({
    added_tokens: [],
    normalizer: null,
    pre_tokenizer: parts.pre_tokenizer ?? null,
    post_processor: null,
    decoder: parts.decoder ?? null,
    model: { type: 'BPE', vocab: sentencepieceVocab, merges: [] },
  });
}

describe('wordBoundary', () => {
  describe('having the real Qwen3 tokenizer', () => {
    let qwen3: TextTokenizer;
    beforeAll(async () => {
      qwen3 = await loadTokenizer(QWEN3_DIR);
    });

    it('should find the byte-level marker Ġ', () => {
      expect(wordBoundary(qwen3).marker).toBe('Ġ');
    });

    it('should hold about 53k of the 151k ids, as the tandem paper reports', () => {
      const { ids } = wordBoundary(qwen3);
      expect(qwen3.vocabSize).toBeGreaterThan(151_000);
      expect(ids.length).toBeGreaterThan(52_000);
      expect(ids.length).toBeLessThan(54_000);
    });

    it('should hold "Ġthe" and not "the"', () => {
      const { ids } = wordBoundary(qwen3);
      expect(ids).toContain(qwen3.vocab.get('Ġthe'));
      expect(ids).not.toContain(qwen3.vocab.get('the'));
    });

    it('should list the ids in ascending order', () => {
      expect(isSortedAscending(wordBoundary(qwen3).ids)).toBe(true);
    });
  });

  describe('having a tokenizer trained by trainBpe', () => {
    const trained = tokenizerFromJson(trainBpe(workedSolutions(400), { vocabSize: 500 }));

    it('should hold exactly the ids whose surface form starts with Ġ', () => {
      const { marker, ids } = wordBoundary(trained);
      const expected = [...trained.vocab].filter(([surface]) => surface.startsWith('Ġ')).map(([, id]) => id).sort((a, b) => a - b);
      expect(marker).toBe('Ġ');
      expect([...ids]).toEqual(expected);
      expect(ids).toContain(trained.vocab.get('Ġanswer'));
    });
  });

  describe('having a Metaspace pre-tokenizer', () => {
    it('should take ▁ as the marker', () => {
      const tokenizer = sentencepieceStyle({ pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true } });
      expect(wordBoundary(tokenizer)).toEqual({ marker: '▁', ids: Int32Array.from([0, 1, 4]) });
    });
  });

  describe("having a Llama-style decoder that replaces ▁ by a space", () => {
    it('should take ▁ as the marker', () => {
      const decoder = { type: 'Sequence', decoders: [{ type: 'Replace', pattern: { String: '▁' }, content: ' ' }, { type: 'Fuse' }] };
      expect(wordBoundary(sentencepieceStyle({ decoder })).marker).toBe('▁');
    });
  });

  describe('having no pre-tokenizer or decoder that names a marker', () => {
    it('should infer the marker from how many surface forms start with it', () => {
      expect(wordBoundary(sentencepieceStyle({})).marker).toBe('▁');
    });
  });

  describe('having a tokenizer that marks no word starts', () => {
    it('should throw TOKENIZER_INVALID naming the tokenizer', () => {
      const wordLevel = tokenizerFromJson(
        { added_tokens: [], normalizer: null, pre_tokenizer: { type: 'Whitespace' }, post_processor: null, decoder: null, model: { type: 'WordLevel', vocab: { a: 0, b: 1 }, unk_token: 'a' } },
        {},
        'words/tokenizer.json',
      );
      expect(() => wordBoundary(wordLevel)).toThrow(LudusError);
      expect(() => wordBoundary(wordLevel)).toThrow(/TOKENIZER_INVALID.*words\/tokenizer\.json/);
    });
  });
});
