import { afterAll, describe, expect, it } from 'vitest';
import { Scorer } from '../../../native/runtime/scorer.ts';
import { randomModel } from '../../support/models.ts';
import { logSoftmax, referenceLogits } from '../../support/reference-model.ts';

describe('Scorer', () => {
  const opened: Scorer[] = [];
  afterAll(async () => Promise.all(opened.map((s) => s.release())));
  const { config, weights, policy } = randomModel({ tie_word_embeddings: false }, 5);
  const sequences = [[3, 17, 42, 5, 9], [8, 1]];

  for (const [binding, opSet] of [['inputs', 'cpu'], ['initializers', 'cpu'], ['initializers', 'gpu'], ['inputs', 'gpu']] as const) {
    describe(`having weights bound as ${binding}, the graph in the ${opSet} op set`, () => {
      it('should give log p(token_i | tokens_<i) of every ragged sequence, and the full distributions on request', async () => {
        const scorer = await Scorer.create(policy, { threads: 1, weights: binding, opSet });
        opened.push(scorer);
        const scored = await scorer.score(sequences, { full: true });
        for (const [row, seq] of sequences.entries()) {
          const logits = referenceLogits(config, weights, seq);
          expect(scored[row].logprobs[0]).toBeNull();
          for (let t = 1; t < seq.length; t++) expect(scored[row].logprobs[t]).toBeCloseTo(logSoftmax(logits[t - 1])[seq[t]], 4);
          expect(scored[row].full!.length).toBe(seq.length * config.vocabSize);
          expect(scored[row].full![(seq.length - 2) * config.vocabSize + seq[seq.length - 1]]).toBeCloseTo(scored[row].logprobs[seq.length - 1]!, 6);
        }
      });
    });
  }
});
