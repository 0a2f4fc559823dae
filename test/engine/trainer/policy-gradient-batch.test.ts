import { describe, expect, it } from 'vitest';
import type { Trajectory } from '../../../core/trajectory/trajectory.ts';
import { policyGradientBatch } from '../../../engine/trainer/policy-gradient-batch.ts';

const trajectory = (promptIds: number[], responseIds: number[], logprobs: number[]): Trajectory => ({
  matchId: 'm',
  seed: 0,
  turn: 0,
  promptIds,
  responseIds,
  authors: responseIds.map(() => 0),
  roles: ['senior', 'junior'],
  logprobs,
  schedule: { kind: 'solo' },
  scheduleHash: '',
  stepEnds: [],
  outcome: { senior: 1, junior: 1 },
});

describe('policyGradientBatch', () => {
  describe('having two trajectories of different lengths', () => {
    const batch = policyGradientBatch(
      {
        trajectories: [trajectory([10, 11], [20, 21, 22], [-1, -2, -3]), trajectory([12], [23], [-4])],
        masks: [[1, 0, 1], [1]],
        advantages: [0.5, -0.5],
        refLogprobs: [[-1.5, -2.5, -3.5], [-4.5]],
        imitationMasks: [[0, 1, 0], [0]],
      },
      0,
    );

    it('should right-pad prompt + response with position i predicting token i + 1', () => {
      expect(batch).toMatchObject({ rows: 2, cols: 4 });
      expect(Array.from(batch.inputIds as Int32Array)).toEqual([10, 11, 20, 21, 12, 0, 0, 0]);
      expect(Array.from(batch.targets as Int32Array)).toEqual([11, 20, 21, 22, 23, 0, 0, 0]);
    });

    it('should mask the prompt, the padding and the tokens the trainable author did not write', () => {
      expect(Array.from(batch.lossMask)).toEqual([0, 1, 0, 1, 1, 0, 0, 0]);
    });

    it('should place old and reference logprobs on the positions that predict their response tokens', () => {
      expect(Array.from(batch.oldLogprobs!)).toEqual([0, -1, -2, -3, -4, 0, 0, 0]);
      expect(Array.from(batch.refLogprobs!)).toEqual([0, -1.5, -2.5, -3.5, -4.5, 0, 0, 0]);
      expect(Array.from(batch.advantages!)).toEqual([0.5, -0.5]);
    });

    it("should place λ_jun's imitation mask on the positions that predict the junior's tokens", () => {
      expect(Array.from(batch.imitationMask!)).toEqual([0, 0, 1, 0, 0, 0, 0, 0]);
    });
  });
});
