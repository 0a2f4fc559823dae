import { describe, expect, it } from 'vitest';
import { alphaAt, type AlphaSchedule } from '../../../core/advantages/alpha-schedule.ts';
import { classScales, classWeighted } from '../../../core/advantages/class-weights.ts';
import { advantageEstimators } from '../../../core/advantages/estimators.ts';
import type { AdvantageEstimator, RolloutRewards } from '../../../core/advantages/estimator.ts';
import { blendStepAdvantages, stepAdvantages } from '../../../core/advantages/step-blend.ts';
import { LudusError } from '../../../core/errors.ts';

const rollout = (outcome: number, tokens: number, steps: [number, number][] = [], labels: Record<string, number> = {}): RolloutRewards => ({
  outcome,
  tokens,
  steps: steps.map(([position, value]) => ({ position, value })),
  labels,
});
const context = { role: 'generator', step: 0, totalSteps: 10 };
const close = (actual: readonly (number | readonly number[])[], expected: readonly (number | readonly number[])[]) => {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((a, i) => {
    const e = expected[i];
    if (typeof e === 'number') expect(a as number).toBeCloseTo(e, 4);
    else (a as number[]).forEach((x, t) => expect(x).toBeCloseTo(e[t], 4));
  });
};

describe('alphaAt', () => {
  const exponential: AlphaSchedule = { kind: 'exponential', start: 0.1, end: 1e-3 };

  describe('having the paper\'s exponential decay from 0.1 to 1e-3 over 10 generator updates', () => {
    it('should start at 0.1, halve the log-distance at t = 5 (0.01) and reach 1e-3 at t = 10', () => {
      expect(alphaAt(exponential, 0, 10)).toBeCloseTo(0.1, 12);
      expect(alphaAt(exponential, 5, 10)).toBeCloseTo(0.01, 12);
      expect(alphaAt(exponential, 9, 10)).toBeCloseTo(0.1 * 10 ** -1.8, 12);
      expect(alphaAt(exponential, 10, 10)).toBeCloseTo(1e-3, 12);
    });
  });

  describe('having the linear and cosine options', () => {
    it('should meet at the midpoint (0.0505) and both floor at the end', () => {
      expect(alphaAt({ ...exponential, kind: 'linear' }, 5, 10)).toBeCloseTo(0.0505, 12);
      expect(alphaAt({ ...exponential, kind: 'cosine' }, 5, 10)).toBeCloseTo(0.0505, 12);
      expect(alphaAt({ ...exponential, kind: 'cosine' }, 2, 10)).toBeCloseTo(0.001 + 0.099 * (1 + Math.cos(0.2 * Math.PI)) / 2, 12);
      expect(alphaAt({ ...exponential, kind: 'linear' }, 20, 10)).toBe(1e-3);
    });
  });

  describe('having REINFORCE++\'s start of 0.5', () => {
    it('should decay from 0.5 to the same floor', () => {
      const schedule: AlphaSchedule = { kind: 'exponential', start: 0.5, end: 1e-3 };
      expect(alphaAt(schedule, 0, 4)).toBe(0.5);
      expect(alphaAt(schedule, 2, 4)).toBeCloseTo(Math.sqrt(0.5 * 1e-3), 12);
    });
  });

  describe('having a schedule or clock that makes no sense', () => {
    it('should refuse it with a coded error', () => {
      expect(() => alphaAt({ ...exponential, start: 0 }, 0, 10)).toThrow(/CONFIG_INVALID/);
      expect(() => alphaAt({ ...exponential, end: 0.2 }, 0, 10)).toThrow(/CONFIG_INVALID/);
      expect(() => alphaAt(exponential, 0, 0)).toThrow(/INPUT_INVALID/);
      expect(() => alphaAt(exponential, -1, 10)).toThrow(/INPUT_INVALID/);
    });
  });
});

describe('stepAdvantages', () => {
  // Group: r1 (6 tokens) ends steps at 2 (+1/2) and 5 (−1/2); r2 (4 tokens) at 1 and 3 (+1/2 each).
  // The four step rewards together: mean 0.25, unbiased std 0.5, so they normalise to 0.5, −1.5, 0.5, 0.5.
  const group = [rollout(1, 6, [[2, 0.5], [5, -0.5]]), rollout(0, 4, [[1, 0.5], [3, 0.5]])];

  describe('having a group\'s step rewards', () => {
    it('should normalise them together and give each token the sum of the normalised rewards of the steps ending at or after it', () => {
      const [[a, b]] = stepAdvantages([group], { normalization: 'group' });
      close(a, [-1, -1, -1, -1.5, -1.5, -1.5]);
      close(b, [1, 1, 0.5, 0.5]);
    });
  });

  describe('having a rollout without step rewards (its verifier judged another number of steps)', () => {
    it('should give it 0 on every token and leave it out of the others\' normalisation', () => {
      const [[a, b, c]] = stepAdvantages([[...group, rollout(1, 3)]], { normalization: 'group' });
      close(a, [-1, -1, -1, -1.5, -1.5, -1.5]);
      close(b, [1, 1, 0.5, 0.5]);
      expect(c).toEqual([0, 0, 0]);
    });
  });

  describe('having step rewards with no spread', () => {
    it('should give every token 0', () => {
      expect(stepAdvantages([[rollout(1, 3, [[2, 0.5]]), rollout(0, 2, [[1, 0.5]])]], { normalization: 'group' })).toEqual([[[0, 0, 0], [0, 0]]]);
    });
  });

  describe('having batch normalisation', () => {
    it('should normalise the step rewards of every group together', () => {
      // Split the same four rewards over two groups: the group scopes would each see a single value or no spread.
      const [[a], [b]] = stepAdvantages([[group[0]], [group[1]]], { normalization: 'batch' });
      close(a, [-1, -1, -1, -1.5, -1.5, -1.5]);
      close(b, [1, 1, 0.5, 0.5]);
      expect(stepAdvantages([[group[0]], [group[1]]], { normalization: 'group' })[1][0]).toEqual([0, 0, 0, 0]);
    });
  });

  describe('having a step reward outside the rollout\'s tokens', () => {
    it('should refuse it with INPUT_INVALID rather than misplace it', () => {
      expect(() => stepAdvantages([[rollout(1, 3, [[3, 1]])]], { normalization: 'group' })).toThrow(/INPUT_INVALID.*position 3/);
      expect(() => stepAdvantages([[rollout(1, 3, [[1, Number.NaN]])]], { normalization: 'group' })).toThrow(/NON_FINITE/);
    });
  });
});

describe('blendStepAdvantages', () => {
  const group = [rollout(1, 6, [[2, 0.5], [5, -0.5]]), rollout(0, 4, [[1, 0.5], [3, 0.5]])];
  const blend = (alpha: number, base = advantageEstimators.grpo) => blendStepAdvantages(base, { alpha: () => alpha, normalization: 'group' });

  describe('having GRPO outcome advantages ±0.7071 and α = 0.1', () => {
    it('should give (1 − α)·A_out + α·A_step per token', () => {
      const { result } = blend(0.1).estimate([group], context, null);
      const out = 1 / Math.SQRT2;
      close(result.advantages[0], [
        [0.9 * out - 0.1, 0.9 * out - 0.1, 0.9 * out - 0.1, 0.9 * out - 0.15, 0.9 * out - 0.15, 0.9 * out - 0.15],
        [-0.9 * out + 0.1, -0.9 * out + 0.1, -0.9 * out + 0.05, -0.9 * out + 0.05],
      ]);
      expect(result.metrics).toEqual({ alpha: 0.1, step_rewarded: 1 });
    });
  });

  describe('having step rewards ten times larger', () => {
    it('should give the same advantages: each part is normalised on its own before the blend', () => {
      const scaled = group.map((r) => ({ ...r, steps: r.steps.map((s) => ({ ...s, value: 10 * s.value })) }));
      const a = blend(0.3).estimate([group], context, null).result.advantages;
      const b = blend(0.3).estimate([scaled], context, null).result.advantages;
      close(b[0], a[0] as number[][]);
    });
  });

  describe('having a group whose solutions were all wrong', () => {
    it('should still move its tokens by the step advantages (outcome advantage 0)', () => {
      const allWrong = group.map((r) => ({ ...r, outcome: 0 }));
      const { result } = blend(0.1).estimate([allWrong], context, null);
      expect(result.zeroVarianceGroups).toBe(1);
      close(result.advantages[0], [[-0.1, -0.1, -0.1, -0.15, -0.15, -0.15], [0.1, 0.1, 0.05, 0.05]]);
    });
  });

  describe('having RLOO or REINFORCE++ as the base', () => {
    it('should blend whatever outcome advantage the base gives', () => {
      const rloo = blend(0.5, advantageEstimators.rloo).estimate([group], context, null).result.advantages[0];
      close(rloo, [
        [0.5 - 0.5, 0.5 - 0.5, 0.5 - 0.5, 0.5 - 0.75, 0.5 - 0.75, 0.5 - 0.75],
        [-0.5 + 0.5, -0.5 + 0.5, -0.5 + 0.25, -0.5 + 0.25],
      ]);
      const rpp = blend(0.5, advantageEstimators['reinforce++']).estimate([group], context, null).result.advantages[0];
      close(rpp, [
        [0.5 * (1 / Math.SQRT2) - 0.5, 0.5 / Math.SQRT2 - 0.5, 0.5 / Math.SQRT2 - 0.5, 0.5 / Math.SQRT2 - 0.75, 0.5 / Math.SQRT2 - 0.75, 0.5 / Math.SQRT2 - 0.75],
        [-0.5 / Math.SQRT2 + 0.5, -0.5 / Math.SQRT2 + 0.5, -0.5 / Math.SQRT2 + 0.25, -0.5 / Math.SQRT2 + 0.25],
      ]);
    });
  });

  describe('having an α outside [0, 1]', () => {
    it('should refuse it with CONFIG_INVALID', () => {
      expect(() => blend(1.5).estimate([group], context, null)).toThrow(/CONFIG_INVALID/);
    });
  });
});

describe('classWeighted', () => {
  const ones: AdvantageEstimator<null> = { name: 'ones', initialState: () => null, estimate: (groups) => ({ result: { advantages: groups.map((g) => g.map(() => 1)), zeroVarianceGroups: 0 }, state: null }) };
  const labelled = (positive: number, negative: number) => [
    Array.from({ length: positive }, () => rollout(1, 2, [], { solution_correct: 1 })),
    Array.from({ length: negative }, () => rollout(0, 2, [], { solution_correct: 0 })),
  ];
  const weighted = classWeighted(ones, { label: 'solution_correct', decay: 0.8 });

  describe('having a first batch of 2 correct and 6 incorrect solutions', () => {
    it('should start the EMA at those counts and scale by 1/√count, normalised to mean 1 (1.4641 and 0.8453)', () => {
      const { result, state } = weighted.estimate(labelled(2, 6), context, weighted.initialState());
      close(result.advantages[0], [1.4641016, 1.4641016]);
      close(result.advantages[1], Array(6).fill(0.8452995));
      expect(state.counts).toEqual({ positive: 2, negative: 6 });
      expect(result.metrics?.class_weight_correct).toBeCloseTo(1.4641016, 6);
    });
  });

  describe('having a second batch of 4 and 4', () => {
    it('should move the EMA by decay 0.8 (2.4 and 5.6) and still favour the rarer class', () => {
      const first = weighted.estimate(labelled(2, 6), context, weighted.initialState());
      const restored = JSON.parse(JSON.stringify(first.state)) as typeof first.state;
      const { result, state } = weighted.estimate(labelled(4, 4), context, restored);
      expect(state.counts!.positive).toBeCloseTo(2.4, 12);
      expect(state.counts!.negative).toBeCloseTo(5.6, 12);
      close(result.advantages[0], Array(4).fill(1.2087087));
      close(result.advantages[1], Array(4).fill(0.7912913));
    });
  });

  describe('having a batch of one class only', () => {
    it('should leave its advantages unscaled and report the absent class\'s scale as NaN', () => {
      expect(classScales({ positive: 0, negative: 8 }, { positive: 0, negative: 8 })).toEqual({ positive: Number.NaN, negative: 1 });
    });
  });

  describe('having a rollout without the label', () => {
    it('should refuse it with INPUT_INVALID naming the label', () => {
      expect(() => weighted.estimate([[rollout(1, 2)]], context, weighted.initialState())).toThrow(/INPUT_INVALID.*solution_correct/);
      expect(() => classWeighted(ones, { label: 'x', decay: 1 })).toThrow(LudusError);
    });
  });
});
