import { ContainerModule } from 'inversify';
import { describe, expect, it } from 'vitest';
import { fromGroupAdvantages, type AdvantageEstimator } from '../../core/advantages/estimator.ts';
import { advantageEstimators } from '../../core/advantages/estimators.ts';
import { definePlugin } from '../../core/plugin-module.ts';
import type { Plugin } from '../../core/plugin.ts';
import { composePlugins } from '../../composition/compose.ts';
import { loadPluginFile, loadPluginFiles } from '../../composition/plugin-files.ts';
import { PLUGIN_TOKENS } from '../../composition/tokens.ts';
import { rejection } from '../support/errors.ts';

const fixture = (name: string) => new URL(`../fixtures/plugins/${name}`, import.meta.url).pathname;
const math = { grader: (await composePlugins()).graders.create('math'), knobs: {} };

describe('composePlugins (the composition root)', () => {
  describe('having only the built-in modules', () => {
    it('should build every built-in game, with the knobs of the config checked by the game itself', async () => {
      const catalog = await composePlugins();
      expect(catalog.games.names).toEqual(['tandem', 'grpo', 'kl-reg', 'tango', 'agon', 'tictactoe', 'kuhn-poker', 'kuhn-poker-match', 'negotiation', 'calc', 'leduc-holdem', 'liars-dice', 'connect-four', 'trade']);
      const tandem = catalog.games.create('tandem', { ...math, knobs: { shareBand: [0.1, 0.9] } });
      expect(tandem.protocol).toMatchObject({ family: 'co-decoding', shareBand: [0.1, 0.9] });
      expect(catalog.games.create('kl-reg', { ...math, knobs: { beta: 0.5 } }).losses).toEqual({ senior: { kl: { toward: 'junior', beta: 0.5, estimator: 'k3' } } });
      expect(() => catalog.games.create('tandem', { ...math, knobs: { q: 1 } })).toThrow(/CONFIG_INVALID.*tandem knobs/);
      expect(() => catalog.games.create('grpo', { ...math, knobs: { p: 0.5 } })).toThrow(/CONFIG_INVALID.*grpo knobs/);
      expect(catalog.games.create('tango', { ...math, knobs: { ablation: 'no-verifier' } }).trainable).toEqual(['generator']);
      expect(() => catalog.games.create('tango', { ...math, knobs: { gamma: 0.8 } })).toThrow(/CONFIG_INVALID.*tango knobs/);
      expect(catalog.games.create('kuhn-poker', { ...math, knobs: { play: 'two-policy' } }).policies).toEqual(['first', 'second']);
      expect(() => catalog.games.create('tictactoe', { ...math, knobs: { plays: 'self' } })).toThrow(/CONFIG_INVALID.*tictactoe knobs/);
      expect(catalog.games.create('calc', { ...math, knobs: { tool: false } }).defaultTask).toBe('multiplication');
      expect(() => catalog.games.create('calc', { ...math, knobs: { tools: true } })).toThrow(/CONFIG_INVALID.*calc knobs/);
    });

    it('should hold every advantage estimator under its config name', async () => {
      const catalog = await composePlugins();
      expect(catalog.advantageEstimators.names).toEqual([...Object.keys(advantageEstimators), 'rae']);
      expect(catalog.advantageEstimators.create('rloo')).toBe(advantageEstimators.rloo);
    });

    it('should refuse an unknown game and name the known ones', async () => {
      const catalog = await composePlugins();
      expect(() => catalog.games.create('chess', math)).toThrow(/no game "chess" \(known: tandem, grpo, kl-reg, tango, agon, tictactoe, kuhn-poker, kuhn-poker-match, negotiation, calc, leduc-holdem, liars-dice, connect-four, trade\)/);
    });
  });

  describe("having a user's plugin module", () => {
    it('should resolve its game beside the built-in ones, tagged with where it came from', async () => {
      const catalog = await composePlugins([await loadPluginFile(fixture('solo-boxed.ts'))]);
      expect(catalog.games.names).toContain('solo-boxed');
      expect(catalog.games.create('solo-boxed', math).trainable).toEqual(['policy']);
      expect(catalog.games.get('solo-boxed').source).toMatch(/solo-boxed-plugin \(.*solo-boxed\.ts\)/);
    });

    it('should take the same module given twice once', async () => {
      expect(await loadPluginFiles([fixture('solo-boxed.ts'), fixture('solo-boxed.ts')])).toHaveLength(1);
    });

    it('should refuse a game name that is already taken, naming both sources', async () => {
      const error = await rejection(composePlugins([await loadPluginFile(fixture('clash.ts'))]));
      expect(error).toMatchObject({ code: 'PLUGIN_CLASH', message: expect.stringMatching(/two game plugins are named "tandem" \(from ludus-games and clash \(.*clash\.ts\)\)/) });
    });

    it('should refuse a file that is missing, throws, exports something else, or wants another ludus, naming the file', async () => {
      for (const [file, code, message] of [
        ['nowhere.ts', 'PLUGIN_LOAD_FAILED', /nowhere\.ts: no such file/],
        ['throws.ts', 'PLUGIN_LOAD_FAILED', /throws\.ts: loading it failed: this plugin is broken on purpose/],
        ['not-a-plugin.ts', 'PLUGIN_INVALID', /not-a-plugin\.ts: "games" must be a list/],
        ['future-ludus.ts', 'PLUGIN_INVALID', /future-ludus\.ts: works with ludus >=9\.0\.0, this is 0\./],
      ] as const) {
        expect(await rejection(loadPluginFile(fixture(file)))).toMatchObject({ code, message: expect.stringMatching(message) });
      }
    });

    it('should also take a raw inversify ContainerModule binding to the same tokens', async () => {
      const halves: Plugin<AdvantageEstimator> = {
        name: 'halves',
        create: () => fromGroupAdvantages('halves', (groups) => ({ advantages: groups.map((g) => g.map(() => 0.5)), zeroVarianceGroups: 0 })),
      };
      const catalog = await composePlugins([new ContainerModule(({ bind }) => void bind(PLUGIN_TOKENS.advantageEstimators).toConstantValue(halves))]);
      const rollouts = [{ outcome: 1, tokens: 1, steps: [], labels: {} }, { outcome: 0, tokens: 1, steps: [], labels: {} }];
      expect(catalog.advantageEstimators.create('halves').estimate([rollouts], { role: 'r', step: 0, totalSteps: 1 }, null).result.advantages).toEqual([[0.5, 0.5]]);
      expect(() => catalog.advantageEstimators.create('ppo')).toThrow(/CONFIG_INVALID.*no advantage estimator "ppo"/);
    });

    it('should take a definePlugin object directly (the programmatic form of --plugin)', async () => {
      const catalog = await composePlugins([definePlugin({ name: 'inline', graders: [{ name: 'always', create: () => () => ({ answer_present: true, correct: true }) }] })]);
      expect(catalog.graders.create('always')('1', 'x').correct).toBe(true);
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

  it('should build rotations by name, a warm-up included, and refuse one that seats a role twice', async () => {
    const { rotations } = await composePlugins();
    expect(rotations.create('fixed', { roles: ['senior', 'junior'], trains: ['senior'] }).at(5)).toEqual({ seats: { senior: 'senior', junior: 'junior' }, trains: ['senior'] });
    expect(rotations.create('alternate-every-step', { roles: ['drafter', 'challenger'], policies: ['a', 'b'] }).at(1).seats).toEqual({ drafter: 'b', challenger: 'a' });
    const tango = rotations.create('interleave', { roles: ['generator', 'verifier'], phases: [{ policy: 'generator', steps: 3 }, { policy: 'verifier', steps: 1 }], warmupSteps: 2, warmupTrains: ['verifier'] });
    expect([0, 1, 2, 5].map((step) => tango.at(step).trains[0])).toEqual(['verifier', 'verifier', 'generator', 'verifier']);
    expect(() => rotations.create('fixed', { roles: ['senior', 'senior'], policies: ['a', 'b'] })).toThrow(/CONFIG_INVALID.*seats role "senior" twice/);
  });

  it('should build graders and reward rules by name; the team reward judges the final turn, decoded whole', async () => {
    const catalog = await composePlugins();
    const grader = catalog.graders.create('math');
    const exact = catalog.graders.create('exact');
    expect(grader('0.5', 'so \\boxed{1/2}').correct).toBe(true);
    expect(exact('0.5', 'so \\boxed{1/2}').correct).toBe(false);
    expect(exact('yes', 'so \\boxed{ yes }').correct).toBe(true);
    const full = catalog.graders.create('math-full');
    expect(grader('0.5', 'The final answer is $\\frac{1}{2}$.')).toMatchObject({ answer_present: false, correct: false });
    expect(full('0.5', 'The final answer is $\\frac{1}{2}$.')).toMatchObject({ answer_present: true, correct: true });
    const rule = catalog.rewardRules.create('team-boxed-answer', { roles: ['senior', 'junior'], grader });
    const match = { problem: { id: 'p', prompt: '1+1', answer: '2' }, transcript: [{ turn: 0, role: 'senior', tokens: [], text: 'it is \\boxed{2}' }] };
    expect(await rule(match as never)).toEqual({
      outcome: { senior: 1, junior: 1 },
      verdicts: [{ role: 'senior', judge: 'grader', turn: 0, answer_present: true, correct: true }],
    });
  });

  it('should build a game whose reward pays by the grader the config names', async () => {
    const catalog = await composePlugins();
    const game = catalog.games.create('grpo', { grader: catalog.graders.create('exact'), knobs: {} });
    const match = { problem: { id: 'p', prompt: '?', answer: '0.5' }, transcript: [{ turn: 0, role: 'senior', tokens: [], text: '\\boxed{1/2}' }] };
    expect((await game.rewards(match as never)).outcome).toEqual({ senior: 0 });
    expect((await catalog.games.create('grpo', math).rewards(match as never)).outcome).toEqual({ senior: 1 });
  });
});
