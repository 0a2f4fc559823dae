import { describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { defineGame, type GameDefinition } from '../../../core/game/define-game.ts';
import { indexGames } from '../../../core/game/game-index.ts';
import type { MatchState } from '../../../core/game/match-state.ts';
import { Rotations } from '../../../core/game/rotations.ts';
import { ownSecretsOnly, revealAll } from '../../../core/game/view.ts';
import { CoDecoding } from '../../../core/protocols/co-decoding.ts';
import type { SequentialProtocol } from '../../../core/protocols/sequential.ts';

type TandemRole = 'senior' | 'junior';
const tandem = {
  id: 'tandem',
  roles: ['senior', 'junior'],
  protocol: CoDecoding.wordHandoff<TandemRole>({ senior: 'senior', junior: 'junior' }),
  rewards: () => ({ outcome: { senior: 1, junior: 1 } }),
  rotation: Rotations.fixed<TandemRole>(['senior', 'junior'], ['senior']),
  trainable: ['senior'],
} satisfies GameDefinition<TandemRole, unknown>;

type AgonRole = 'drafter' | 'challenger';
const draftThenChallenge: SequentialProtocol<AgonRole, { question: string }> = {
  family: 'sequential',
  name: 'draft-then-challenge',
  turns: [
    { role: 'drafter', template: (_, problem) => problem.question, maxTokens: 256 },
    { role: 'challenger', template: (earlier, problem) => `${problem.question}\n${earlier[0].text}`, maxTokens: 256 },
  ],
};

/** Runs `define` and returns the CONFIG_INVALID error it must throw. */
function configErrorOf(define: () => unknown): LudusError {
  try {
    define();
  } catch (error) {
    expect(LudusError.is(error, 'CONFIG_INVALID')).toBe(true);
    return error as LudusError;
  }
  return expect.unreachable('the definition was accepted');
}

describe('defineGame', () => {
  describe('having a valid co-decoding game with knobs', () => {
    it('should return the same plain object, its knobs alongside and the default view filled in', () => {
      const game = defineGame({ ...tandem, p: 0.5, K: 32, shareBand: [0.2, 0.8] as const });
      expect(game.id).toBe('tandem');
      expect(game.trainable).toEqual(['senior']);
      expect(game.p).toBe(0.5);
      expect(game.shareBand).toEqual([0.2, 0.8]);
      expect(game.view).toBe(ownSecretsOnly);
      expect(Object.isFrozen(game)).toBe(true);
    });
  });

  describe('having a valid sequential game with its own view', () => {
    it('should keep the view it was given', () => {
      const game = defineGame({
        id: 'agon',
        roles: ['drafter', 'challenger'],
        protocol: draftThenChallenge,
        rewards: (match: MatchState<AgonRole, { question: string }>) => ({ outcome: { drafter: match.transcript.length, challenger: 0 } }),
        rotation: Rotations.alternateEveryStep<AgonRole>(['drafter', 'challenger']),
        trainable: ['drafter', 'challenger'],
        view: revealAll,
      });
      expect(game.view).toBe(revealAll);
      expect(game.protocol.family).toBe('sequential');
    });
  });

  describe('having a trainable role outside the roles, written as a literal', () => {
    it('should not even typecheck: roles alone fix the role names', () => {
      // @ts-expect-error 'coach' is not one of the roles
      expect(() => defineGame({ ...tandem, roles: ['senior', 'junior'], trainable: ['coach'] })).toThrow(LudusError);
    });
  });

  describe('having an invalid definition', () => {
    it('should fail with CONFIG_INVALID naming the game and the field', () => {
      const cases: [string, () => unknown, RegExp][] = [
        ['id', () => defineGame({ ...tandem, id: 'Tandem RL' }), /game "Tandem RL": id must be kebab-case/],
        ['roles', () => defineGame({ ...tandem, roles: ['senior', 'junior', 'senior'] }), /roles lists "senior" twice/],
        ['roles', () => defineGame({ ...tandem, roles: [] as TandemRole[] }), /roles must name at least one role/],
        ['trainable', () => defineGame({ ...tandem, trainable: [] }), /trainable must name at least one role/],
        ['trainable', () => defineGame({ ...tandem, trainable: ['coach' as TandemRole] }), /trainable names "coach", which is not one of the roles/],
        ['trainable', () => defineGame({ ...tandem, trainable: ['senior', 'senior'] }), /trainable lists "senior" twice/],
        [
          'protocol',
          () => defineGame({ ...tandem, protocol: CoDecoding.wordHandoff<TandemRole>({ senior: 'senior', junior: 'intern' as TandemRole }) }),
          /protocol lets "intern" act, which is not one of the roles/,
        ],
        [
          'protocol.authors',
          () => defineGame({ ...tandem, protocol: CoDecoding.wordHandoff<TandemRole>({ senior: 'senior', junior: 'senior' }) }),
          /protocol.authors lists "senior" twice/,
        ],
        [
          'trainable',
          () => defineGame({ ...tandem, protocol: CoDecoding.solo<TandemRole>('junior') }),
          /trainable names "senior", which never acts in protocol "solo"/,
        ],
        ['rotation', () => defineGame({ ...tandem, rotation: Rotations.fixed<TandemRole>(['senior', 'junior']) }), /trains "junior" at step 0, which is not trainable/],
        ['rotation', () => defineGame({ ...tandem, rotation: Rotations.fixed<TandemRole>(['senior', 'junior'], []) }), /never trains "senior"/],
        ['rotation', () => defineGame({ ...tandem, rotation: Rotations.fixed<TandemRole>(['senior'], ['senior']) }), /every role must be seated exactly once/],
        [
          'rotation',
          () => defineGame({ ...tandem, rotation: Rotations.fixed<TandemRole>(['senior', 'senior'], ['senior']) }),
          /every role must be seated exactly once/,
        ],
      ];
      for (const [field, define, message] of cases) {
        const error = configErrorOf(define);
        expect(error.message).toMatch(message);
        expect(error.details).toMatchObject({ field });
      }
    });
  });
});

describe('indexGames', () => {
  describe('having distinct ids', () => {
    it('should index the games by id', () => {
      const game = defineGame(tandem);
      expect(indexGames([game]).get('tandem')).toBe(game);
    });
  });

  describe('having two games under one id', () => {
    it('should fail with CONFIG_INVALID naming the id', () => {
      expect(configErrorOf(() => indexGames([defineGame(tandem), defineGame(tandem)])).message).toMatch(/two games share the id "tandem"/);
    });
  });
});
