import { describe, expect, it } from 'vitest';
import type { MatchState } from '../../core/game/match-state.ts';
import type { Problem } from '../../core/tasks/task.ts';
import { advantageEstimators } from '../../core/advantages/estimators.ts';
import { grpoGame } from '../../games/grpo.ts';
import { KL_REG_DEFAULT_BETA, klRegGame } from '../../games/kl-reg.ts';
import { TANDEM_SHARE_BAND, tandemGame } from '../../games/tandem.ts';
import { gradeMath } from '../../plugins/graders/math/grade-math.ts';

const problem: Problem = { id: 'p', question: 'What is 2 plus 3?', instruction: '', prompt: 'Question: What is 2 plus 3?\nAnswer:\n', answer: '5', solution: '\\boxed{5}', steps: ['\\boxed{5}'], meta: {} };

/** A finished co-decoded match: one turn, the whole response decoded once. */
const finished = (text: string): MatchState<'senior' | 'junior', Problem> => ({
  matchId: 'm',
  seed: 1,
  problem,
  transcript: [{ turn: 0, role: 'senior', tokens: [], text, authors: [] }],
  finished: true,
});

describe('tandemGame', () => {
  describe('having no knobs', () => {
    it('should co-write by word handoff at p = 0.5 with K = 32, training the senior only, with no loss term beyond GRPO', () => {
      const game = tandemGame({}, gradeMath);
      expect(game.roles).toEqual(['senior', 'junior']);
      expect(game.trainable).toEqual(['senior']);
      expect(game.rotation.at(3)).toEqual({ seats: { senior: 'senior', junior: 'junior' }, trains: ['senior'] });
      expect(game.protocol).toMatchObject({ family: 'co-decoding', name: 'word-handoff', authors: ['senior', 'junior'], shareBand: TANDEM_SHARE_BAND });
      const spec = game.protocol.family === 'co-decoding' ? game.protocol.schedule({ seed: 3, wordBoundary: [7], stepBoundary: [] }) : undefined;
      expect(spec).toEqual({ kind: 'word', p: 0.5, K: 32, seed: 3, boundary: [7] });
      expect(game.losses).toEqual({});
    });
  });

  describe('having a λ_jun', () => {
    it('should add an imitation term on the junior\'s tokens for a positive one, and refuse a negative one with CONFIG_INVALID naming the knob', () => {
      expect(tandemGame({ juniorImitation: 0.1 }, gradeMath).losses).toEqual({ senior: { imitate: { role: 'junior', weight: 0.1 } } });
      expect(() => tandemGame({ juniorImitation: -0.1 }, gradeMath)).toThrow(/CONFIG_INVALID.*tandem knobs.*juniorImitation/);
      expect(() => tandemGame({ q: 1 }, gradeMath)).toThrow(/CONFIG_INVALID.*tandem knobs/);
    });
  });

  describe('having handoff step', () => {
    const game = tandemGame({ handoff: 'step', stepTokens: 16, maxSteps: 5 }, gradeMath);
    const turn = (t: number, text: string) => ({ turn: t, role: t % 2 === 0 ? ('senior' as const) : ('junior' as const), tokens: [], text, finish: 'stop-sequence' as const });

    it('should take turns a reasoning step each, the senior first, every turn prompted from the problem and the steps so far', () => {
      expect(game.protocol).toMatchObject({ family: 'sequential', name: 'step-turns' });
      if (game.protocol.family !== 'sequential') throw new Error('not sequential');
      const [senior, junior] = game.protocol.turns;
      expect([senior.role, junior.role, senior.stop, senior.maxTokens]).toEqual(['senior', 'junior', ['\n\n'], 16]);
      expect(junior.template([turn(0, '2 plus 3.\n\n')], problem)).toBe(`${problem.prompt}2 plus 3.\n\n`);
      expect(game.protocol.order?.name).toBe('steps(5)');
      expect(game.trainable).toEqual(['senior']);
      expect(game.losses).toEqual({});
    });

    it('should grade the joined steps as the answer, paying both alike', async () => {
      const match = (texts: string[]): MatchState<'senior' | 'junior', Problem> => ({ matchId: 'm', seed: 1, problem, transcript: texts.map((text, t) => turn(t, text)), finished: true });
      expect((await game.rewards(match(['2 plus 3 is 5.\n\n', 'The answer is \\boxed{5}.']))).outcome).toEqual({ senior: 1, junior: 1 });
      expect((await game.rewards(match(['The answer is \\boxed{5}.\n\n', 'Done.']))).outcome).toEqual({ senior: 1, junior: 1 });
      expect((await game.rewards(match(['The answer is \\boxed{6}.\n\n', 'Done.']))).outcome).toEqual({ senior: 0, junior: 0 });
    });

    it('should refuse the knobs of word handoff (λ_jun among them), and the step knobs under word handoff, with CONFIG_INVALID naming them', () => {
      expect(() => tandemGame({ handoff: 'step', juniorImitation: 0.1 }, gradeMath)).toThrow(/CONFIG_INVALID.*tandem knobs: juniorImitation .*handoff "step"/);
      expect(() => tandemGame({ handoff: 'step', p: 0.3, K: 8 }, gradeMath)).toThrow(/CONFIG_INVALID.*tandem knobs: p, K /);
      expect(() => tandemGame({ maxSteps: 3 }, gradeMath)).toThrow(/CONFIG_INVALID.*tandem knobs: maxSteps shape\(s\) handoff "step" only/);
    });
  });

  describe('when a match ends', () => {
    it('should pay both roles 1 when the co-written response boxes the gold answer, and record the grader\'s verdict on it', async () => {
      const rewards = await tandemGame({}, gradeMath).rewards(finished('The answer is \\boxed{5}.'));
      expect(rewards).toEqual({ outcome: { senior: 1, junior: 1 }, verdicts: [{ role: 'senior', judge: 'grader', turn: 0, answer_present: true, correct: true }] });
    });

    it('should pay both roles 0 for a wrong or missing answer', async () => {
      expect((await tandemGame({}, gradeMath).rewards(finished('The answer is \\boxed{6}.'))).outcome).toEqual({ senior: 0, junior: 0 });
      expect((await tandemGame({}, gradeMath).rewards(finished('The answer is 5.'))).outcome).toEqual({ senior: 0, junior: 0 });
    });
  });
});

describe('grpoGame', () => {
  it('should let the senior write every token alone, with no knobs', () => {
    const game = grpoGame({}, gradeMath);
    expect(game.protocol).toMatchObject({ name: 'solo', authors: ['senior'] });
    expect(game.policies).toEqual(['senior']);
    expect(() => grpoGame({ beta: 1 }, gradeMath)).toThrow(/CONFIG_INVALID/);
  });

  it('should keep a zero-variance group at advantage 0 by default, and drop it from the loss with zeroVariance drop (Agon\'s baseline)', () => {
    const groups = [[{ outcome: 1 }, { outcome: 1 }], [{ outcome: 1 }, { outcome: 0 }]] as never;
    const context = { step: 0, totalSteps: 1 } as never;
    expect(grpoGame({}, gradeMath).advantages).toEqual({});
    const dropping = grpoGame({ zeroVariance: 'drop' }, gradeMath).advantages.senior!(advantageEstimators.grpo);
    expect(dropping.estimate(groups, context, null as never).result.dropped).toEqual([[true, true], [false, false]]);
  });
});

describe("grpoGame's reward", () => {
  it("should pay correctness alone by default, and Agon's 2 · correct + 1 · format when asked", async () => {
    const plain = grpoGame({}, gradeMath);
    const matched = grpoGame({ correctWeight: 2, formatWeight: 1 }, gradeMath);
    for (const [text, alone, agonLike] of [['The answer is \\boxed{5}.', 1, 3], ['The answer is \\boxed{6}.', 0, 1], ['The answer is 5.', 0, 0]] as const) {
      expect((await plain.rewards(finished(text) as never)).outcome).toEqual({ senior: alone });
      expect((await matched.rewards(finished(text) as never)).outcome).toEqual({ senior: agonLike });
    }
  });
});

describe('klRegGame', () => {
  it('should play solo and regularize toward the junior\'s policy with β, default 0.001', () => {
    expect(klRegGame({}, gradeMath).losses).toEqual({ senior: { kl: { toward: 'junior', beta: KL_REG_DEFAULT_BETA, estimator: 'k3' } } });
    expect(klRegGame({ klEstimator: 'exact' }, gradeMath).losses.senior?.kl?.estimator).toBe('exact');
    expect(() => klRegGame({ klEstimator: 'k2' }, gradeMath)).toThrow(/CONFIG_INVALID/);
    expect(klRegGame({ beta: 0.05 }, gradeMath).losses.senior?.kl?.beta).toBe(0.05);
    expect(klRegGame({}, gradeMath).protocol).toMatchObject({ name: 'solo', authors: ['senior'] });
    expect(klRegGame({}, gradeMath).rotation.at(0)).toEqual({ seats: { senior: 'senior', junior: 'junior' }, trains: ['senior'] });
  });

  it('should refuse a negative β', () => {
    expect(() => klRegGame({ beta: -1 }, gradeMath)).toThrow(/CONFIG_INVALID/);
  });
});
