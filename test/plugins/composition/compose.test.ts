import { ContainerModule } from 'inversify';
import { describe, expect, it } from 'vitest';
import { advantageEstimators } from '../../../core/advantages/estimators.ts';
import { defineGame } from '../../../core/game/define-game.ts';
import { Rotations } from '../../../core/game/rotations.ts';
import { CoDecoding } from '../../../core/protocols/co-decoding.ts';
import { gradeMath } from '../../../plugins/graders/math/grade-math.ts';
import { composePlugins } from '../../../plugins/composition/compose.ts';
import { GAME_PLUGIN } from '../../../plugins/composition/tokens.ts';
import type { RlGamePlugin } from '../../../games/registry.ts';
import type { Problem } from '../../../plugins/tasks/task.ts';
import type { RlGame, RlKnobs } from '../../../plugins/training/rl-game.ts';

/** A user's game plugin: the same shape as the built-in ones, bound in its own module. */
const soloGame: RlGamePlugin = {
  name: 'solo-boxed',
  create: () =>
    defineGame<'policy', Problem, RlKnobs>({
      id: 'solo-boxed',
      roles: ['policy'],
      protocol: CoDecoding.solo('policy'),
      rewards: () => ({ outcome: { policy: 0 } }),
      rotation: Rotations.fixed(['policy']),
      trainable: ['policy'],
      shareBand: [0, 1],
      klToJunior: 0,
      juniorImitation: 0,
      grade: gradeMath,
    }) as RlGame<string>,
};

describe('composePlugins (the composition root)', () => {
  describe('having only the built-in modules', () => {
    it('should build every game ludus train names, with the knobs of the config', async () => {
      const catalog = await composePlugins();
      expect(catalog.games.names).toEqual(['tandem', 'grpo', 'kl-reg']);
      expect(catalog.games.create('tandem', { tandem: { shareBand: [0.1, 0.9] } })).toMatchObject({ id: 'tandem', shareBand: [0.1, 0.9] });
      expect(catalog.games.create('kl-reg', { klReg: { beta: 0.5 } }).klToJunior).toBe(0.5);
    });

    it('should hold every advantage estimator of the registry under its config name', async () => {
      const catalog = await composePlugins();
      expect(catalog.advantageEstimators.names).toEqual(Object.keys(advantageEstimators));
      expect(catalog.advantageEstimators.create('rloo')).toBe(advantageEstimators.rloo);
    });

    it('should refuse an unknown game and name the known ones', async () => {
      const catalog = await composePlugins();
      expect(() => catalog.games.create('chess', {})).toThrow(/no game "chess" \(known: tandem, grpo, kl-reg\)/);
    });
  });

  describe("having a user's module", () => {
    it('should resolve its game beside the built-in ones', async () => {
      const catalog = await composePlugins([new ContainerModule(({ bind }) => void bind(GAME_PLUGIN).toConstantValue(soloGame))]);
      expect(catalog.games.names).toContain('solo-boxed');
      expect(catalog.games.create('solo-boxed', {}).trainable).toEqual(['policy']);
    });

    it('should refuse a game name that is already taken', async () => {
      const clash = new ContainerModule(({ bind }) => void bind(GAME_PLUGIN).toConstantValue({ ...soloGame, name: 'tandem' }));
      await expect(composePlugins([clash])).rejects.toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringMatching(/two game plugins are named "tandem"/) });
    });
  });
});
