import { describe, expect, it } from 'vitest';
import { LudusError } from '../../core/errors.ts';
import type { MatchState } from '../../core/game/match-state.ts';
import { grpoGame } from '../../games/grpo.ts';
import { KL_REG_DEFAULT_BETA, klRegGame } from '../../games/kl-reg.ts';
import { rlGameByName } from '../../games/registry.ts';
import { TANDEM_SHARE_BAND, tandemGame } from '../../games/tandem.ts';
import type { Problem } from '../../core/tasks/task.ts';

const problem: Problem = { id: 'p', question: 'What is 2 plus 3?', instruction: '', prompt: 'Question: What is 2 plus 3?\nAnswer:\n', answer: '5', solution: '\\boxed{5}', steps: ['\\boxed{5}'], meta: {} };

const finished = (texts: [role: 'senior' | 'junior', text: string][]): MatchState<'senior' | 'junior', Problem> => ({
  matchId: 'm',
  seed: 1,
  problem,
  transcript: texts.map(([role, text], turn) => ({ turn, role, tokens: [], text })),
  finished: true,
});

describe('tandemGame', () => {
  describe('having no options', () => {
    it('should co-write by word handoff at p = 0.5 with K = 32, training the senior only', () => {
      const game = tandemGame();
      expect(game.roles).toEqual(['senior', 'junior']);
      expect(game.trainable).toEqual(['senior']);
      expect(game.protocol).toMatchObject({ family: 'co-decoding', name: 'word-handoff', authors: ['senior', 'junior'] });
      const spec = game.protocol.family === 'co-decoding' ? game.protocol.schedule({ seed: 3, wordBoundary: [7], stepBoundary: [] }) : undefined;
      expect(spec).toEqual({ kind: 'word', p: 0.5, K: 32, seed: 3, boundary: [7] });
      expect(game.shareBand).toEqual(TANDEM_SHARE_BAND);
      expect(game.klToJunior).toBe(0);
      expect(game.juniorImitation).toBe(0);
    });
  });

  describe('having a λ_jun', () => {
    it('should carry a non-negative one to the learner and refuse a negative one with CONFIG_INVALID', () => {
      expect(tandemGame({ juniorImitation: 0.1 }).juniorImitation).toBe(0.1);
      expect(() => tandemGame({ juniorImitation: -0.1 })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }) as LudusError);
    });
  });

  describe('when a match ends', () => {
    it('should pay both roles 1 when the whole co-written response boxes the gold answer', async () => {
      const rewards = await tandemGame().rewards(finished([['senior', 'The answer is \\bo'], ['junior', 'xed{5}.']]));
      expect(rewards.outcome).toEqual({ senior: 1, junior: 1 });
    });

    it('should pay both roles 0 for a wrong or missing answer', async () => {
      expect((await tandemGame().rewards(finished([['senior', 'The answer is \\boxed{6}.']]))).outcome).toEqual({ senior: 0, junior: 0 });
      expect((await tandemGame().rewards(finished([['junior', 'The answer is 5.']]))).outcome).toEqual({ senior: 0, junior: 0 });
    });
  });
});

describe('grpoGame', () => {
  it('should let the senior write every token alone, with a share band of exactly 1', () => {
    const game = grpoGame();
    expect(game.protocol).toMatchObject({ name: 'solo', authors: ['senior'] });
    expect(game.shareBand).toEqual([1, 1]);
    expect(game.klToJunior).toBe(0);
  });
});

describe('klRegGame', () => {
  it('should play solo and regularize toward the junior with β, default 0.001', () => {
    expect(klRegGame().klToJunior).toBe(KL_REG_DEFAULT_BETA);
    expect(klRegGame({ beta: 0.05 }).klToJunior).toBe(0.05);
    expect(klRegGame().protocol).toMatchObject({ name: 'solo', authors: ['senior'] });
  });

  it('should refuse a negative β', () => {
    expect(() => klRegGame({ beta: -1 })).toThrow(/CONFIG_INVALID/);
  });
});

describe('rlGameByName', () => {
  it('should build each game with its knobs and refuse an unknown name', () => {
    expect(rlGameByName('tandem', { tandem: { p: 0.3 } }).protocol).toMatchObject({ name: 'word-handoff' });
    expect(rlGameByName('kl-reg', { klReg: { beta: 0.2 } }).klToJunior).toBe(0.2);
    expect(() => rlGameByName('chess')).toThrow(/CONFIG_INVALID/);
  });
});
