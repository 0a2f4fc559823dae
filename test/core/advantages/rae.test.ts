import { describe, expect, it } from 'vitest';
import type { RolloutRewards } from '../../../core/advantages/estimator.ts';
import { RAE_DECAY, rae } from '../../../core/advantages/rae.ts';

const rollout = (outcome: number): RolloutRewards => ({ outcome, tokens: 3, steps: [], labels: {} });
const context = { role: 'first', step: 0, totalSteps: 10 };

describe('rae (SPIRAL role-conditioned advantage estimation)', () => {
  it("should default to SPIRAL's decay of 0.95", () => {
    expect(RAE_DECAY).toBe(0.95);
  });

  describe('having a fresh baseline (0) and decay 0.5', () => {
    it('should subtract the baseline before each rollout, then move it toward the outcome, in batch order', () => {
      // b0 = 0: A = 1 − 0 = 1, b1 = 0.5; A = −1 − 0.5 = −1.5, b2 = −0.25; A = 1 − (−0.25) = 1.25, b3 = 0.375.
      const { result, state } = rae({ decay: 0.5 }).estimate([[rollout(1), rollout(-1)], [rollout(1)]], context, { baseline: 0, updates: 0 });
      expect(result.advantages).toEqual([[1, -1.5], [1.25]]);
      expect(state).toEqual({ baseline: 0.375, updates: 3 });
      expect(result.metrics).toEqual({ rae_baseline: 0.375 });
    });
  });

  describe('having a baseline carried from earlier steps', () => {
    it('should continue from it (the state checkpointed with the run)', () => {
      // b = 0.2 at decay 0.95: A = 1 − 0.2 = 0.8, b = 0.95·0.2 + 0.05·1 = 0.24; A = 0 − 0.24 = −0.24, b = 0.228.
      const { result, state } = rae().estimate([[rollout(1), rollout(0)]], context, { baseline: 0.2, updates: 4 });
      expect(result.advantages[0][0]).toBeCloseTo(0.8, 12);
      expect(result.advantages[0][1]).toBeCloseTo(-0.24, 12);
      expect(state.baseline).toBeCloseTo(0.228, 12);
      expect(state.updates).toBe(6);
    });
  });

  describe('having a rollout whose advantage is exactly 0', () => {
    it("should drop it from the loss (SPIRAL's filter_zero_adv), unless told not to", () => {
      const groups = [[rollout(0), rollout(1)]];
      expect(rae().estimate(groups, context, rae().initialState()).result.dropped).toEqual([[true, false]]);
      expect(rae({ dropZero: false }).estimate(groups, context, rae().initialState()).result.dropped).toEqual([[false, false]]);
    });
  });

  it('should refuse a decay outside (0, 1)', () => {
    expect(() => rae({ decay: 1 })).toThrow(/decay must lie in \(0, 1\)/);
  });
});

describe('creditForfeitToMove', () => {
  it("should keep a forfeiting rollout's advantage on its forfeiting move's tokens only, and leave other rollouts alone", async () => {
    const { creditForfeitToMove, FORFEIT_START_LABEL } = await import('../../../core/world/forfeit-credit.ts');
    const forfeited: RolloutRewards = { outcome: -1.5, tokens: 5, steps: [], labels: { [FORFEIT_START_LABEL]: 3 } };
    const won: RolloutRewards = { outcome: 0.5, tokens: 4, steps: [], labels: { [FORFEIT_START_LABEL]: -1 } };
    const { result } = creditForfeitToMove(rae({ decay: 0.5 })).estimate([[forfeited, won]], context, { baseline: 0, updates: 0 });
    // RAE: −1.5 − 0 = −1.5 (b → −0.75); 0.5 − (−0.75) = 1.25.
    expect(result.advantages).toEqual([[[0, 0, 0, -1.5, -1.5], 1.25]]);
  });
});
