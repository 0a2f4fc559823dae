import { describe, expect, it } from 'vitest';
import { drGrpo } from '../../../core/advantages/dr-grpo.ts';
import type { AdvantageResult } from '../../../core/advantages/estimator.ts';
import { fromGroupAdvantages } from '../../../core/advantages/estimator.ts';
import { groupAdvantages } from '../../../core/advantages/estimators.ts';
import { dropZeroVarianceGroups } from '../../../core/advantages/drop-zero-variance.ts';
import { grpo } from '../../../core/advantages/grpo.ts';
import { reinforcePlusPlus } from '../../../core/advantages/reinforce-plus-plus.ts';
import { rloo } from '../../../core/advantages/rloo.ts';

function expectAdvantages(result: AdvantageResult, expected: number[][], zeroVarianceGroups: number): void {
  expect(result.zeroVarianceGroups).toBe(zeroVarianceGroups);
  expect(result.advantages.map((group) => group.length)).toEqual(expected.map((group) => group.length));
  result.advantages.forEach((group, g) => group.forEach((advantage, i) => expect(advantage).toBeCloseTo(expected[g][i], 10)));
}

const SQRT3 = Math.sqrt(3);
const SQRT2 = Math.SQRT2;

describe('grpo', () => {
  describe('having one success in four (mean 1/4, unbiased std 1/2)', () => {
    it('should give (r − 1/4) / (1/2): 1.5 to the success and −0.5 to each failure', () => {
      expectAdvantages(grpo([[1, 0, 0, 0]], { eps: 0 }), [[1.5, -0.5, -0.5, -0.5]], 0);
    });

    it('should divide by the population std (√3/4) when asked: ±√3, −1/√3', () => {
      expectAdvantages(grpo([[1, 0, 0, 0]], { eps: 0, unbiased: false }), [[SQRT3, -1 / SQRT3, -1 / SQRT3, -1 / SQRT3]], 0);
    });

    it('should add eps to the std', () => {
      expectAdvantages(grpo([[1, 0, 0, 0]], { eps: 0.5 }), [[0.75, -0.25, -0.25, -0.25]], 0);
      expect(grpo([[1, 0, 0, 0]]).advantages[0][0]).toBeCloseTo(1.5 / (1 + 2e-6), 12);
    });
  });

  describe('having rewards 2 and 4 (std √2)', () => {
    it('should give ∓1/√2', () => {
      expectAdvantages(grpo([[2, 4]], { eps: 0 }), [[-1 / SQRT2, 1 / SQRT2]], 0);
    });
  });
});

describe('drGrpo', () => {
  describe('having one success in four, and rewards 2 and 4', () => {
    it('should only centre on the group mean: no division by the std', () => {
      expectAdvantages(drGrpo([[1, 0, 0, 0], [2, 4]]), [[0.75, -0.25, -0.25, -0.25], [-1, 1]], 0);
    });
  });
});

describe('rloo', () => {
  describe('having one success in four', () => {
    it('should baseline each rollout on the mean of the other three: 1 − 0 and 0 − 1/3', () => {
      expectAdvantages(rloo([[1, 0, 0, 0]]), [[1, -1 / 3, -1 / 3, -1 / 3]], 0);
    });
  });

  describe('having two successes in four', () => {
    it('should give ±2/3, that is G/(G−1) times the mean-centred reward', () => {
      expectAdvantages(rloo([[1, 1, 0, 0]]), [[2 / 3, 2 / 3, -2 / 3, -2 / 3]], 0);
      const groups = [[0.3, 1.2, -0.4, 2]];
      expectAdvantages(rloo(groups), [drGrpo(groups).advantages[0].map((a) => (4 / 3) * a)], 0);
    });
  });
});

describe('reinforcePlusPlus', () => {
  describe('having the batch baseline (returns [1, 0 | 1, 1]: mean 3/4, unbiased std 1/2)', () => {
    it('should whiten over the whole batch, so the all-success group keeps +0.5, and still count it', () => {
      expectAdvantages(reinforcePlusPlus([[1, 0], [1, 1]], { eps: 0 }), [[0.5, -1.5], [0.5, 0.5]], 1);
    });
  });

  describe('having the group baseline (centred [½, −½ | 0, 0 | 1, −1]: mean 0, unbiased std 1/√2)', () => {
    it('should subtract each group\'s mean, divide by the batch std, and give the zero-variance group exactly 0', () => {
      const result = reinforcePlusPlus([[1, 0], [1, 1], [3, 1]], { baseline: 'group', eps: 0 });
      expectAdvantages(result, [[1 / SQRT2, -1 / SQRT2], [0, 0], [SQRT2, -SQRT2]], 1);
      expect(result.advantages[1]).toEqual([0, 0]);
    });
  });

  describe('having the batch baseline and only zero-variance groups (returns [1, 1 | 0, 0]: mean ½, unbiased std 1/√3)', () => {
    it('should count every group yet keep the batch signal: ±√3/2, all-solved above, all-failed below', () => {
      expectAdvantages(reinforcePlusPlus([[1, 1], [0, 0]], { eps: 0 }), [[SQRT3 / 2, SQRT3 / 2], [-SQRT3 / 2, -SQRT3 / 2]], 2);
    });
  });

  describe('having a batch with no variance at all', () => {
    it('should give 0 everywhere, not NaN', () => {
      expectAdvantages(reinforcePlusPlus([[1, 1], [1, 1]]), [[0, 0], [0, 0]], 2);
    });
  });
});

describe('every estimator', () => {
  const estimators = Object.entries(groupAdvantages);
  const groupBaselined = estimators.filter(([name]) => name !== 'reinforce++');

  describe('having zero-variance groups (all solved, all failed, a single rollout)', () => {
    it('should give them advantage exactly 0, count them, and never produce NaN (all but batch-baselined REINFORCE++)', () => {
      for (const [name, estimate] of groupBaselined) {
        const result = estimate([[1, 1, 1], [0, 0], [5]]);
        expect(result.advantages, name).toEqual([[0, 0, 0], [0, 0], [0]]);
        expect(result.zeroVarianceGroups, name).toBe(3);
      }
    });

    it('should leave the other groups\' advantages as they would be alone (group baselines)', () => {
      for (const name of ['grpo', 'dr-grpo', 'rloo'] as const) {
        const estimate = groupAdvantages[name];
        const mixed = estimate([[1, 0, 0, 0], [1, 1, 1, 1]]);
        expect(mixed.advantages[0], name).toEqual(estimate([[1, 0, 0, 0]]).advantages[0]);
        expect(mixed.advantages[1], name).toEqual([0, 0, 0, 0]);
        expect(mixed.zeroVarianceGroups, name).toBe(1);
      }
    });
  });

  describe('having a non-finite reward', () => {
    it('should fail with NON_FINITE naming the group and rollout', () => {
      for (const [name, estimate] of estimators) {
        expect(() => estimate([[1, 0], [Number.NaN, 1]]), name).toThrow(/NON_FINITE.*reward 0 of group 1/);
        expect(() => estimate([[Number.POSITIVE_INFINITY, 0]]), name).toThrow(/NON_FINITE/);
      }
    });
  });

  describe('having an empty group', () => {
    it('should fail with INPUT_INVALID', () => {
      for (const [name, estimate] of estimators) expect(() => estimate([[1, 0], []]), name).toThrow(/INPUT_INVALID.*group 1 is empty/);
    });
  });

  describe('having a group with variance', () => {
    it('should give advantages that sum to zero within the group (group baselines)', () => {
      for (const name of ['grpo', 'dr-grpo', 'rloo'] as const) {
        const sum = groupAdvantages[name]([[0.2, 0.9, 0.1, 0.4, 1]]).advantages[0].reduce((a, b) => a + b, 0);
        expect(sum, name).toBeCloseTo(0, 12);
      }
    });
  });
});

describe('the trainer\'s advantage contract', () => {
  const rollouts = (rewards: number[]) => rewards.map((outcome) => ({ outcome, tokens: 3, steps: [], labels: {} }));
  const context = { role: 'senior', step: 0, totalSteps: 10 };

  describe('having an outcome estimator wrapped by fromGroupAdvantages', () => {
    it('should give the estimator\'s advantages on the outcome rewards, keep no state and drop nothing', () => {
      const estimator = fromGroupAdvantages('grpo', groupAdvantages.grpo);
      const { result, state } = estimator.estimate([rollouts([1, 0, 0, 1]), rollouts([1, 1])], context, estimator.initialState());
      expect(result.advantages).toEqual(grpo([[1, 0, 0, 1], [1, 1]]).advantages);
      expect(result.zeroVarianceGroups).toBe(1);
      expect(result.dropped).toBeUndefined();
      expect(state).toBeNull();
    });
  });

  describe('having zero-variance groups and dropZeroVarianceGroups (Agon)', () => {
    it('should drop every rollout of those groups and only those, leaving the advantages as the base gave them', () => {
      const base = fromGroupAdvantages('grpo', groupAdvantages.grpo);
      const dropping = dropZeroVarianceGroups(base);
      const groups = [rollouts([1, 0]), rollouts([1, 1]), rollouts([0, 0])];
      const { result } = dropping.estimate(groups, context, null);
      expect(result.dropped).toEqual([[false, false], [true, true], [true, true]]);
      expect(result.advantages).toEqual(base.estimate(groups, context, null).result.advantages);
      expect(dropping.name).toBe('grpo+drop-zero-variance');
    });
  });
});
