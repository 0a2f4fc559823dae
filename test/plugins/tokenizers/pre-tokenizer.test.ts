import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { describe, expect, it } from 'vitest';
import { BYTE_CHARS, utf8Bytes } from '../../../plugins/tokenizers/byte-level.ts';
import { preTokenize } from '../../../plugins/tokenizers/pre-tokenizer.ts';
import { QWEN3_DIR } from './worked-solutions.ts';

const byteLevel = (piece: string): string => Array.from(utf8Bytes(piece), (byte) => BYTE_CHARS[byte]).join('');

/** Qwen3's own pre-tokenizer, run by @huggingface/tokenizers over a one-token vocabulary so it loads at once. */
async function qwen3PreTokenizer(): Promise<(text: string) => string[]> {
  const qwen3 = JSON.parse(await readFile(join(QWEN3_DIR, 'tokenizer.json'), 'utf8')) as { pre_tokenizer: object };
  const tiny = { added_tokens: [], normalizer: null, pre_tokenizer: qwen3.pre_tokenizer, post_processor: null, decoder: null, model: { type: 'BPE', vocab: { a: 0 }, merges: [] } };
  const tokenizer = new Tokenizer(tiny, {});
  return (text) => tokenizer.pre_tokenizer!.pre_tokenize(text);
}

describe('preTokenize', () => {
  describe('having a number', () => {
    it('should cut it into single digits', () => {
      expect(preTokenize('sum 1204')).toEqual(['sum', ' ', '1', '2', '0', '4']);
    });
  });

  describe('having words after spaces', () => {
    it('should keep each space on the word it precedes', () => {
      expect(preTokenize('the cat sat')).toEqual(['the', ' cat', ' sat']);
    });
  });

  describe('having steps separated by a blank line', () => {
    it('should keep the blank line as one piece', () => {
      expect(preTokenize('step one.\n\nstep two')).toEqual(['step', ' one', '.\n\n', 'step', ' two']);
    });
  });

  describe('having a boxed answer', () => {
    it('should split the command, braces and digits apart', () => {
      expect(preTokenize('is \\boxed{42}.')).toEqual(['is', ' \\', 'boxed', '{', '4', '2', '}.']);
    });
  });

  describe('having any text', () => {
    it('should cover it exactly', () => {
      const text = "It's 3:07\tpm —  ünïcödé 日本語 🎉\r\n\n  end ";
      expect(preTokenize(text).join('')).toBe(text);
    });
  });

  describe('having text Qwen3 tokenizes', () => {
    it("should cut it where Qwen3's own pre-tokenizer does", async () => {
      const qwen3 = await qwen3PreTokenizer();
      const text = "It's O'Reilly's THEY'LLama do 12+7=19.\n\nThe answer is \\boxed{19}!  (x_1)\t\r\n end";
      expect(preTokenize(text).map(byteLevel)).toEqual(qwen3(text));
    });
  });
});
