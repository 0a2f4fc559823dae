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
  rotation: Rotations.fixed<TandemRole>({ senior: 'senior', junior: 'junior' }, ['senior']),
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
      const game = defineGame({ ...tandem, p: 0.5, K: 32 });
      expect(game.id).toBe('tandem');
      expect(game.trainable).toEqual(['senior']);
      expect(game.p).toBe(0.5);
      expect(game.view).toBe(ownSecretsOnly);
      expect(game.policies).toEqual(['senior', 'junior']);
      expect(game.losses).toEqual({});
      expect(game.sharedTurns(game.rotation.at(0))).toBe(0);
      expect(game.validateOn).toBe('senior');
      expect(Object.isFrozen(game)).toBe(true);
    });
  });

  describe('having no rotation', () => {
    it('should seat each role with the policy of its name and train the trainable roles\' policies at every step', () => {
      const { rotation: _rotation, ...rest } = tandem;
      const game = defineGame(rest);
      expect(game.rotation.at(7)).toEqual({ seats: { senior: 'senior', junior: 'junior' }, trains: ['senior'] });
    });
  });

  describe('having policies of its own and a rotation swapping them', () => {
    it('should keep its policies and its rotation', () => {
      const game = defineGame({
        ...tandem,
        policies: ['a', 'b'],
        trainable: ['senior', 'junior'],
        rotation: Rotations.alternateEveryStep<TandemRole>(['senior', 'junior'], ['a', 'b']),
      });
      expect(game.policies).toEqual(['a', 'b']);
      expect(game.rotation.at(1).seats).toEqual({ senior: 'b', junior: 'a' });
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
        ['rotation', () => defineGame({ ...tandem, rotation: Rotations.fixed<TandemRole>({ senior: 'senior', junior: 'junior' }) }), /trains "junior" at step 0, which sits in no trainable role/],
        ['rotation', () => defineGame({ ...tandem, rotation: Rotations.fixed<TandemRole>({ senior: 'senior', junior: 'junior' }, []) }), /never trains "senior"/],
        ['rotation', () => defineGame({ ...tandem, rotation: Rotations.fixed({ senior: 'senior' } as Record<TandemRole, string>, ['senior']) }), /seats nobody in "junior" at step 0/],
        ['rotation', () => defineGame({ ...tandem, rotation: Rotations.fixed<TandemRole>({ senior: 'senior', junior: 'coach' }, ['senior']) }), /seats policy "coach" in "junior" at step 0, which is not one of the game's policies/],
        ['rotation', () => defineGame({ ...tandem, rotation: Rotations.fixed<TandemRole>({ senior: 'senior', junior: 'junior' }, ['coach']) }), /trains "coach" at step 0, which sits in no trainable role/],
        ['rotation', () => defineGame({ ...tandem, policies: ['senior', 'junior'], rotation: undefined }), /rotation is needed when the game names its own policies/],
        [
          'rotation',
          () =>
            defineGame({
              ...tandem,
              rotation: Rotations.warmup({ steps: 2, trains: ['senior'] }, Rotations.alternateEveryStep<TandemRole>(['senior', 'junior'])),
            }),
          /trains "junior" at step 2, which sits in no trainable role/,
        ],
        ['policies', () => defineGame({ ...tandem, policies: ['a', 'a'] }), /policies lists "a" twice/],
        ['losses', () => defineGame({ ...tandem, losses: { junior: { kl: { toward: 'senior', beta: 0.1 } } } }), /losses names "junior", which is not a trainable role/],
        ['losses.senior.kl.beta', () => defineGame({ ...tandem, losses: { senior: { kl: { toward: 'junior', beta: -1 } } } }), /must be a finite number ≥ 0/],
        ['losses.senior.kl.toward', () => defineGame({ ...tandem, losses: { senior: { kl: { toward: 'coach' as TandemRole, beta: 0.1 } } } }), /names "coach"/],
        ['losses.senior.kl.estimator', () => defineGame({ ...tandem, losses: { senior: { kl: { toward: 'junior', beta: 0.1, estimator: 'k2' as 'k3' } } } }), /must be "k3" or "exact", got "k2"/],
        ['advantages', () => defineGame({ ...tandem, advantages: { junior: (base) => base } }), /advantages names "junior", which is not a trainable role/],
        ['validateOn', () => defineGame({ ...tandem, validateOn: 'coach' as TandemRole }), /validateOn names "coach"/],
        ['losses.senior.entropy.coef', () => defineGame({ ...tandem, losses: { senior: { entropy: { coef: Number.NaN } } } }), /must be a finite number ≥ 0/],
        ['defaultTask', () => defineGame({ ...tandem, defaultTask: '' }), /defaultTask must be a task name/],
        ['defaultModel', () => defineGame({ ...tandem, defaultModel: '../elsewhere' }), /defaultModel must be the name of a folder of models\//],
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
