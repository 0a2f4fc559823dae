import { describe, expect, it } from 'vitest';
import type { MatchState } from '../../../core/game/match-state.ts';
import { ownSecretsOnly, revealAll, secretsUntilFinished } from '../../../core/game/view.ts';

type Role = 'drafter' | 'challenger';

const running: MatchState<Role, { question: string }> = {
  matchId: 'm-1',
  seed: 7,
  problem: { question: '2+2' },
  finished: false,
  transcript: [
    { turn: 0, role: 'drafter', tokens: [1, 2], text: 'Summary: add the numbers.', secret: { answer: '4' } },
    { turn: 1, role: 'challenger', tokens: [3], text: 'I get 4.', secret: { verdict: 'agree' } },
  ],
};
const finished = { ...running, finished: true };

const secretsSeenBy = (state: MatchState<Role, unknown>) => state.transcript.map((record) => record.secret);

describe('ownSecretsOnly', () => {
  describe('having a role as viewer', () => {
    it('should show that role the secrets of its own turns and strip the others\'', () => {
      expect(secretsSeenBy(ownSecretsOnly(running, 'drafter'))).toEqual([{ answer: '4' }, undefined]);
      expect(secretsSeenBy(ownSecretsOnly(running, 'challenger'))).toEqual([undefined, { verdict: 'agree' }]);
      expect('secret' in ownSecretsOnly(running, 'challenger').transcript[0]).toBe(false);
    });

    it('should leave the public part of every turn and the state it was given untouched', () => {
      const seen = ownSecretsOnly(running, 'challenger');
      expect(seen.transcript.map((record) => record.text)).toEqual(['Summary: add the numbers.', 'I get 4.']);
      expect(running.transcript[0].secret).toEqual({ answer: '4' });
    });
  });

  describe('having a spectator (null)', () => {
    it('should strip every secret, even after the match', () => {
      expect(secretsSeenBy(ownSecretsOnly(running, null))).toEqual([undefined, undefined]);
      expect(secretsSeenBy(ownSecretsOnly(finished, null))).toEqual([undefined, undefined]);
    });
  });
});

describe('secretsUntilFinished', () => {
  describe('having a running match', () => {
    it('should hide other roles\' secrets', () => {
      expect(secretsSeenBy(secretsUntilFinished(running, null))).toEqual([undefined, undefined]);
      expect(secretsSeenBy(secretsUntilFinished(running, 'drafter'))).toEqual([{ answer: '4' }, undefined]);
    });
  });

  describe('having a finished match', () => {
    it('should reveal every secret to everyone', () => {
      expect(secretsSeenBy(secretsUntilFinished(finished, null))).toEqual([{ answer: '4' }, { verdict: 'agree' }]);
    });
  });
});

describe('revealAll', () => {
  it('should hide nothing', () => {
    expect(revealAll(running)).toEqual(running);
  });
});
