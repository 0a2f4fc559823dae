import { ContainerModule } from 'inversify';
import { describe, expect, it } from 'vitest';
import { advantageEstimators } from '../../../core/advantages/estimators.ts';
import { defineGame } from '../../../core/game/define-game.ts';
import { Rotations } from '../../../core/game/rotations.ts';
import { CoDecoding } from '../../../core/protocols/co-decoding.ts';
import { gradeMath } from '../../../plugins/graders/math/grade-math.ts';
import { composePlugins } from '../../../cli/composition/compose.ts';
import { ADVANTAGE_ESTIMATOR_PLUGIN, GAME_PLUGIN } from '../../../cli/composition/tokens.ts';
import type { Plugin } from '../../../core/plugin.ts';
import type { AdvantageEstimator } from '../../../core/advantages/estimator.ts';
import type { RlGamePlugin } from '../../../games/registry.ts';
import type { Problem } from '../../../core/tasks/task.ts';
import type { RlGame, RlKnobs } from '../../../core/game/rl-game.ts';

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

describe('the catalog of pieces games are made of', () => {
  it('should build every co-decoding preset by name with the paper values when knobs are absent', async () => {
    const { protocols } = await composePlugins();
    expect(protocols.names).toEqual(['solo', 'word-handoff', 'step-handoff-alternate', 'step-handoff-bernoulli']);
    const word = protocols.create('word-handoff', { roles: ['senior', 'junior'] });
    expect(word).toMatchObject({ family: 'co-decoding', name: 'word-handoff', authors: ['senior', 'junior'] });
    if (word.family !== 'co-decoding') throw new Error('unreachable');
    expect(word.schedule({ seed: 7, wordBoundary: [1], stepBoundary: [] })).toMatchObject({ kind: 'word', p: 0.5, K: 32, seed: 7 });
    const step = protocols.create('step-handoff-bernoulli', { roles: ['senior', 'junior'], p: 0.25, first: 'junior' });
    if (step.family !== 'co-decoding') throw new Error('unreachable');
    expect(step.schedule({ seed: 3, wordBoundary: [], stepBoundary: [9] })).toMatchObject({ kind: 'step', mode: 'bernoulli', p: 0.25, first: 1 });
  });

  it('should refuse a preset given the wrong number of roles', async () => {
    const { protocols } = await composePlugins();
    expect(() => protocols.create('word-handoff', { roles: ['senior'] })).toThrow(/CONFIG_INVALID.*"word-handoff" takes 2 role\(s\), got 1/);
  });

  it('should build rotations, reward rules and graders by name', async () => {
    const catalog = await composePlugins();
    expect(catalog.rotations.create('fixed', { seats: ['senior', 'junior'], trains: ['senior'] }).at(5)).toEqual({ seats: ['senior', 'junior'], trains: ['senior'] });
    expect(catalog.rotations.create('alternate-every-step', { seats: ['drafter', 'challenger'] }).at(1).seats).toEqual(['challenger', 'drafter']);
    expect(catalog.rotations.create('interleave', { seats: ['g', 'v'], phases: [{ role: 'g', steps: 2 }, { role: 'v', steps: 1 }] }).at(2).trains).toEqual(['v']);
    const math = catalog.graders.create('math');
    const exact = catalog.graders.create('exact');
    expect(math('0.5', 'so \\boxed{1/2}').correct).toBe(true);
    expect(exact('0.5', 'so \\boxed{1/2}').correct).toBe(false);
    expect(exact('yes', 'so \\boxed{ yes }').correct).toBe(true);
    const full = catalog.graders.create('math-full');
    expect(math('0.5', 'The final answer is $\\frac{1}{2}$.')).toMatchObject({ answer_present: false, correct: false });
    expect(full('0.5', 'The final answer is $\\frac{1}{2}$.')).toMatchObject({ answer_present: true, correct: true });
    const rule = catalog.rewardRules.create('team-boxed-answer', { roles: ['senior', 'junior'], grade: math });
    const match = { problem: { id: 'p', prompt: '1+1', answer: '2' }, transcript: [{ text: 'it is \\boxed{' }, { text: '2}' }] };
    expect(await rule(match as never)).toEqual({ outcome: { senior: 1, junior: 1 } });
  });

  it("should let a user's module add an advantage estimator that a training config then names", async () => {
    const halves: Plugin<AdvantageEstimator> = { name: 'halves', create: () => (groups) => ({ advantages: groups.map((g) => g.map(() => 0.5)), zeroVarianceGroups: 0 }) };
    const catalog = await composePlugins([new ContainerModule(({ bind }) => void bind(ADVANTAGE_ESTIMATOR_PLUGIN).toConstantValue(halves))]);
    expect(catalog.advantageEstimators.create('halves')([[1, 0]]).advantages).toEqual([[0.5, 0.5]]);
    expect(() => catalog.advantageEstimators.create('ppo')).toThrow(/CONFIG_INVALID.*no advantage estimator "ppo"/);
  });

  it('should build a game whose reward pays by the grader the config names', async () => {
    const catalog = await composePlugins();
    const game = catalog.games.create('grpo', { grade: catalog.graders.create('exact') });
    const match = { problem: { id: 'p', prompt: '?', answer: '0.5' }, transcript: [{ text: '\\boxed{1/2}' }] };
    expect(await game.rewards(match as never)).toEqual({ outcome: { senior: 0 } });
    expect(await catalog.games.create('grpo', {}).rewards(match as never)).toEqual({ outcome: { senior: 1 } });
  });
});
