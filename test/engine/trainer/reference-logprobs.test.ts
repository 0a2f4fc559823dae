import { afterAll, describe, expect, it, vi } from 'vitest';
import { referenceLogprobs } from '../../../engine/trainer/reference-logprobs.ts';
import type { Trajectory } from '../../../core/trajectory/trajectory.ts';
import { Scorer } from '../../../native/runtime/scorer.ts';
import { randomModel } from '../../support/models.ts';
import { logSoftmax, referenceLogits } from '../../support/reference-model.ts';

const TEMPERATURE = 0.7;

/** Rows of different prompt and response lengths, as a step's matches are; only the ids matter to the scorer. */
function trajectories(vocab: number): Trajectory[] {
  const lengths: Array<[number, number]> = [[5, 9], [3, 2], [7, 12], [4, 6], [6, 1], [2, 10], [8, 4]];
  return lengths.map(([prompt, response], r) => {
    const ids = (n: number, salt: number) => Array.from({ length: n }, (_, i) => (r * 31 + i * 7 + salt) % vocab);
    return { promptIds: ids(prompt, 1), responseIds: ids(response, 5) } as unknown as Trajectory;
  });
}

describe('referenceLogprobs', () => {
  const { config, weights, policy } = randomModel();
  const scorerPromise = Scorer.create(policy, { threads: 1 });
  afterAll(async () => (await scorerPromise).release());

  describe('having rows of seven lengths scored three at a time', () => {
    it('should give every response token its tempered log-probability under the reference, as one run over all rows does', async () => {
      const scorer = await scorerPromise;
      const rows = trajectories(config.vocabSize);
      const together = await referenceLogprobs(scorer, rows, TEMPERATURE);
      const split = await referenceLogprobs(scorer, rows, TEMPERATURE, 3);
      rows.forEach((row, r) => {
        const logits = referenceLogits(config, weights, [...row.promptIds, ...row.responseIds]);
        const expected = row.responseIds.map((token, t) => logSoftmax(logits[row.promptIds.length + t - 1].map((x) => x / TEMPERATURE))[token]);
        expect(split[r]).toHaveLength(row.responseIds.length);
        split[r].forEach((value, t) => {
          expect(value).toBeCloseTo(expected[t], 4);
          expect(value).toBeCloseTo(together[r][t], 5);
        });
      });
    });

    it('should score them in runs of at most three, shortest rows first (so each run pads only to its own longest)', async () => {
      const scorer = await scorerPromise;
      const rows = trajectories(config.vocabSize);
      const spy = vi.spyOn(scorer, 'score');
      await referenceLogprobs(scorer, rows, TEMPERATURE, 3);
      const runs = spy.mock.calls.map(([sequences]) => sequences.map((s) => s.length));
      spy.mockRestore();
      expect(runs).toEqual([[5, 7, 10], [12, 12, 14], [19]]);
    });
  });
});
