import { describe, expect, it } from 'vitest';
import { advantageEstimators } from '../../core/advantages/estimators.ts';
import type { RolloutRewards } from '../../core/advantages/estimator.ts';
import { tangoGame } from '../../games/tango.ts';
import { gradeExact } from '../../plugins/graders/exact/grade-exact.ts';

const trainsAt = (game: ReturnType<typeof tangoGame>, steps: number) => Array.from({ length: steps }, (_, s) => game.rotation.at(s).trains.join('+'));
const group: RolloutRewards[] = [
  { outcome: 1, tokens: 3, steps: [{ position: 0, value: 0.5 }, { position: 2, value: 0.5 }], labels: {} },
  { outcome: 0, tokens: 3, steps: [{ position: 0, value: -0.5 }, { position: 2, value: 0.5 }], labels: {} },
];

describe('tangoGame', () => {
  describe('having no knobs', () => {
    const game = tangoGame({}, gradeExact);

    it('should seat a generator and a verifier, each its own policy, starting from the judging base by default', () => {
      expect(game.roles).toEqual(['generator', 'verifier']);
      expect(game.policies).toEqual(['generator', 'verifier']);
      expect(game.trainable).toEqual(['generator', 'verifier']);
      expect(game.defaultModel).toBe('arithmetic-judge');
      expect(game.defaultTask).toBeUndefined();
      expect(game.protocol).toMatchObject({ family: 'sequential', name: 'solve-then-verify' });
    });

    it('should warm the verifier up for 40 steps, then train the generator 3 steps and the verifier 1 (§4)', () => {
      expect(trainsAt(game, 48)).toEqual([...Array(40).fill('verifier'), 'generator', 'generator', 'generator', 'verifier', 'generator', 'generator', 'generator', 'verifier']);
    });

    it('should let a verifier step judge one solution per prompt G times, and a generator step play whole matches', () => {
      expect(game.sharedTurns(game.rotation.at(0))).toBe(1);
      expect(game.sharedTurns(game.rotation.at(40))).toBe(0);
    });

    it('should give both a KL of 0.001 toward their start (appendix B.1) and an entropy bonus of 0.001', () => {
      const terms = { kl: { toward: 'initial', beta: 0.001 }, entropy: { coef: 0.001 } };
      expect(game.losses).toEqual({ generator: terms, verifier: terms });
    });

    it('should prompt the verifier with the problem and the solution\'s steps, never the gold answer', () => {
      const protocol = game.protocol.family === 'sequential' ? game.protocol : undefined;
      const problem = { id: 'p', prompt: 'Question: Q?\nAnswer:\n', question: 'Q?', instruction: '', answer: 'SECRET', solution: '', steps: [], meta: {} };
      const prompt = protocol!.turns[1].template([{ turn: 0, role: 'generator', tokens: [], text: 'a\n\nb' }], problem);
      expect(prompt).toContain('a\n\nb');
      expect(prompt).toContain('The solution has 2 steps.');
      expect(prompt).not.toContain('SECRET');
    });
  });

  describe('when the generator\'s advantages are estimated', () => {
    it('should blend with α decaying over the generator\'s own updates from 0.1 under GRPO and 0.5 under REINFORCE++', () => {
      const game = tangoGame({ verifierWarmup: 2 }, gradeExact);
      const grpo = game.advantages.generator!(advantageEstimators.grpo);
      // 2 warm-up steps, then G G G V: of 10 steps, steps 2, 3, 4, 6, 7, 8 update the generator (6 updates).
      const alpha = (step: number) => grpo.estimate([group], { role: 'generator', step, totalSteps: 10 }, null).result.metrics!.alpha;
      expect(alpha(2)).toBeCloseTo(0.1, 12);
      expect(alpha(6)).toBeCloseTo(0.1 * (1e-3 / 0.1) ** (3 / 6), 12);
      const rpp = game.advantages.generator!(advantageEstimators['reinforce++']);
      expect(rpp.estimate([group], { role: 'generator', step: 2, totalSteps: 10 }, null).result.metrics!.alpha).toBe(0.5);
    });

    it('should follow a linear or cosine schedule, or a start given as a knob', () => {
      const linear = tangoGame({ verifierWarmup: 0, alpha: { schedule: 'linear', start: 0.2, end: 0.01 } }, gradeExact).advantages.generator!(advantageEstimators.grpo);
      // 0 warm-up, G G G V over 8 steps: 6 generator updates; step 4 is the fourth.
      expect(linear.estimate([group], { role: 'generator', step: 4, totalSteps: 8 }, null).result.metrics!.alpha).toBeCloseTo(0.2 - 0.19 * (3 / 6), 12);
    });
  });

  describe('when the verifier\'s advantages are estimated', () => {
    it('should weigh them by the class of the judged solution, and not at all with classWeights off', () => {
      const game = tangoGame({}, gradeExact);
      const labelled = group.map((r, i) => ({ ...r, labels: { solution_correct: i === 0 ? 1 : 0 } }));
      const weighted = game.advantages.verifier!(advantageEstimators.grpo);
      expect(weighted.estimate([labelled], { role: 'verifier', step: 0, totalSteps: 10 }, weighted.initialState()).result.metrics).toMatchObject({ class_weight_correct: 1, class_weight_incorrect: 1 });
      expect(tangoGame({ classWeights: false }, gradeExact).advantages.verifier).toBeUndefined();
    });
  });

  describe('having each ablation of Figure 4', () => {
    it('should train only the verifier with the generator fixed', () => {
      const game = tangoGame({ ablation: 'fixed-generator' }, gradeExact);
      expect(game.trainable).toEqual(['verifier']);
      expect(trainsAt(game, 3)).toEqual(['verifier', 'verifier', 'verifier']);
      expect(game.sharedTurns(game.rotation.at(0))).toBe(1);
    });

    it('should train only the generator, still blending the frozen verifier\'s step rewards, with the verifier fixed', () => {
      const game = tangoGame({ ablation: 'fixed-verifier' }, gradeExact);
      expect(game.trainable).toEqual(['generator']);
      expect(trainsAt(game, 3)).toEqual(['generator', 'generator', 'generator']);
      expect(game.advantages.generator).toBeDefined();
      expect(game.protocol).toMatchObject({ name: 'solve-then-verify' });
    });

    it('should play vanilla GRPO with no verifier turn and the run\'s own estimator', () => {
      const game = tangoGame({ ablation: 'no-verifier' }, gradeExact);
      expect(game.protocol).toMatchObject({ name: 'solve' });
      expect(game.protocol.family === 'sequential' && game.protocol.turns.map((t) => t.role)).toEqual(['generator']);
      expect(game.advantages).toEqual({});
      expect(game.losses).toEqual({ generator: { kl: { toward: 'initial', beta: 0.001 }, entropy: { coef: 0.001 } } });
    });
  });

  describe('having a knob the paper does not name, or a bad value', () => {
    it('should refuse it with CONFIG_INVALID naming the knob', () => {
      expect(() => tangoGame({ nG: 3 }, gradeExact)).toThrow(/CONFIG_INVALID.*tango knobs/);
      expect(() => tangoGame({ generatorSteps: 0 }, gradeExact)).toThrow(/CONFIG_INVALID.*generatorSteps/);
      expect(() => tangoGame({ alpha: { start: 1.5 } }, gradeExact)).toThrow(/CONFIG_INVALID.*alpha/);
      expect(() => tangoGame({ ablation: 'fixed-both' }, gradeExact)).toThrow(/CONFIG_INVALID.*ablation/);
    });
  });
});
