import { afterAll, describe, expect, it } from 'vitest';
import { Decoder } from '../../../native/runtime/decoder.ts';
import { LudusError } from '../../../core/errors.ts';
import { randomModel, VARIANTS } from '../../support/models.ts';
import { referenceLogits } from '../../support/reference-model.ts';

const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
};

describe('Decoder', () => {
  const released: Decoder[] = [];
  afterAll(async () => Promise.all(released.map((d) => d.release())));

  for (const [variant, overrides] of Object.entries(VARIANTS)) {
    describe(`having a ${variant} model and ragged prompts`, () => {
      it('should match the reference forward pass at every prefill and decode position', async () => {
        const { config, weights, policy } = randomModel(overrides);
        const decoder = await Decoder.create([policy], { batch: 3, maxLen: 16, threads: 1 });
        released.push(decoder);
        const sequences = [
          [1, 5, 9, 13, 2, 7, 40, 3],
          [4, 8, 15, 16, 23, 42, 11, 9],
          [60, 61, 62, 63, 0, 1, 2, 3],
        ];
        const promptLengths = [3, 5, 1];
        const V = config.vocabSize;
        let logits = await decoder.prefill(sequences.map((s, r) => s.slice(0, promptLengths[r])));
        for (let step = 0; ; step++) {
          for (let row = 0; row < 3; row++) {
            const position = promptLengths[row] + step - 1;
            const expected = referenceLogits(config, weights, sequences[row].slice(0, position + 1))[position];
            expect(maxAbsDiff(logits[0].subarray(row * V, (row + 1) * V), expected)).toBeLessThan(2e-4);
          }
          if (step === 3) break;
          logits = await decoder.step(sequences.map((s, r) => s[promptLengths[r] + step]));
        }
        expect(Array.from(decoder.lengths)).toEqual(promptLengths.map((l) => l + 3));
      });
    });
  }

  describe('having two policies in lockstep', () => {
    it('should give each policy the logits it would give alone, from one shared token stream', async () => {
      const a = randomModel({}, 1, 'senior');
      const b = randomModel({}, 2, 'junior');
      const pair = await Decoder.create([a.policy, b.policy], { batch: 2, maxLen: 8, threads: 1 });
      released.push(pair);
      const seq = [3, 1, 4, 1, 5, 9];
      await pair.prefill([seq.slice(0, 2), seq.slice(0, 3)]);
      const logits = await pair.step([seq[2], seq[3]]);
      const V = a.config.vocabSize;
      expect(maxAbsDiff(logits[0].subarray(0, V), referenceLogits(a.config, a.weights, seq.slice(0, 3))[2])).toBeLessThan(2e-4);
      expect(maxAbsDiff(logits[1].subarray(V, 2 * V), referenceLogits(b.config, b.weights, seq.slice(0, 4))[3])).toBeLessThan(2e-4);
    });
  });

  describe('having policies with different tokenizers', () => {
    it('should refuse with TOKENIZER_MISMATCH', async () => {
      const a = randomModel({}, 1, 'senior');
      const b = { ...randomModel({}, 2, 'junior').policy, tokenizerHash: 'other' };
      await expect(Decoder.create([a.policy, b], { batch: 1, maxLen: 8 })).rejects.toSatisfy((e) => LudusError.is(e, 'TOKENIZER_MISMATCH'));
    });
  });

  describe('having a row at the cache capacity', () => {
    it('should fail with SEQUENCE_TOO_LONG instead of writing past the cache', async () => {
      const { policy } = randomModel();
      const decoder = await Decoder.create([policy], { batch: 1, maxLen: 4, threads: 1 });
      released.push(decoder);
      await decoder.prefill([[1, 2, 3]]);
      await decoder.step([4]);
      await expect(decoder.step([5])).rejects.toSatisfy((e) => LudusError.is(e, 'SEQUENCE_TOO_LONG'));
    });
  });
});
