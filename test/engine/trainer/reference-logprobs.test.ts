import { afterAll, describe, expect, it, vi } from 'vitest';
import { rejection } from '../../support/errors.ts';
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
  const whole = Scorer.create(policy, { threads: 1 });
  const split = Scorer.create(policy, { threads: 1, rowsPerRun: 3 });
  afterAll(async () => Promise.all([whole, split].map(async (scorer) => (await scorer).release())));

  describe('having a scorer asked for runs of no rows or of a fraction of one', () => {
    it('should refuse with INPUT_INVALID instead of looping without end', async () => {
      for (const rowsPerRun of [0, 2.5]) expect((await rejection(Scorer.create(policy, { threads: 1, rowsPerRun }))).code).toBe('INPUT_INVALID');
    });
  });

  describe('having rows of seven lengths and a scorer that runs three at a time', () => {
    it('should give every response token its tempered log-probability under the reference, as one run over all rows does', async () => {
      const rows = trajectories(config.vocabSize);
      const together = await referenceLogprobs(await whole, rows, TEMPERATURE);
      const inRuns = await referenceLogprobs(await split, rows, TEMPERATURE);
      rows.forEach((row, r) => {
        const logits = referenceLogits(config, weights, [...row.promptIds, ...row.responseIds]);
        const expected = row.responseIds.map((token, t) => logSoftmax(logits[row.promptIds.length + t - 1].map((x) => x / TEMPERATURE))[token]);
        expect(inRuns[r]).toHaveLength(row.responseIds.length);
        inRuns[r].forEach((value, t) => {
          expect(value).toBeCloseTo(expected[t], 4);
          expect(value).toBeCloseTo(together[r][t], 5);
        });
      });
    });

    it('should score them in runs of at most three, shortest rows first (so each run pads only to its own longest)', async () => {
      const scorer = await split;
      const run = vi.spyOn(scorer as unknown as { scoreRun: Scorer['score'] }, 'scoreRun');
      await referenceLogprobs(scorer, trajectories(config.vocabSize), TEMPERATURE);
      const runs = run.mock.calls.map(([sequences]) => sequences.map((s) => s.length));
      run.mockRestore();
      expect(runs).toEqual([[5, 7, 10], [12, 12, 14], [19]]);
    });
  });
});
