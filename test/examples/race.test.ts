import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { composePlugins } from '../../composition/compose.ts';
import racePlugin, { raceWorld } from '../../examples/race/race.ts';
import { cfrPolicy } from '../../core/world/cfr.ts';
import { exploitability, uniformPolicy } from '../../core/world/exploitability.ts';
import { gameTree } from '../../core/world/game-tree.ts';
import { randomLegal } from '../../core/world/random-legal.ts';
import { playScriptedMatch, playWorldTurn, replayWorld, startWorld, worldPayoffs, worldPrompt } from '../../core/world/world-match.ts';
import { SPIRAL_FORFEIT } from '../../core/world/world.ts';
import { expectPromptsEqualWithinInformationSets } from '../support/world-checks.ts';

describe('examples/race (a user\'s world game with mid-game chance, written against the public package)', () => {
  it('should fit in 80 lines', () => {
    expect(readFileSync(new URL('../../examples/race/race.ts', import.meta.url), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(80);
  });

  it('should prompt with the total and the moves that do not pass the target, and read a digit with the default parser', () => {
    const match = startWorld('race', raceWorld, 0);
    expect(worldPrompt(raceWorld, match, 'first', SPIRAL_FORFEIT)).toBe('Race to 10: add 1, 2 or 3 to the total; whoever reaches 10 wins. A gust may add 1 after a move. You are first.\nTotal: 0.\nLegal moves: 1, 2, 3\nYour move:');
    expect(playWorldTurn(raceWorld, match, ' 2', SPIRAL_FORFEIT).note).toMatchObject({ verdict: 'legal', move: '2' });
    expect(playWorldTurn(raceWorld, match, 'four', SPIRAL_FORFEIT).note.verdict).toBe('unparseable');
  });

  it('should blow gusts from the match seed mid-game, replayed exactly, a gust to the target winning for the mover', () => {
    const seeds = Array.from({ length: 40 }, (_, seed) => playScriptedMatch(raceWorld, { first: randomLegal, second: randomLegal }, seed));
    expect(seeds.some((m) => m.chance.includes('gust'))).toBe(true);
    for (const [seed, match] of seeds.entries()) {
      expect(replayWorld('race', raceWorld, seed, match.notes, SPIRAL_FORFEIT)).toEqual(match);
      expect(Object.values(worldPayoffs(raceWorld, match, SPIRAL_FORFEIT)).sort()).toEqual([-1, 1]);
    }
    const [calm, gust] = raceWorld.chanceOutcomes!({ total: 9, next: 'second', gust: true });
    expect(calm.state).toEqual({ total: 9, next: 'second', gust: false });
    expect(gust.state).toMatchObject({ total: 10, winner: 'first' });
  });

  it('should get exact exploitability and an equilibrium opponent from the contract alone', () => {
    const tree = gameTree(raceWorld);
    expectPromptsEqualWithinInformationSets(raceWorld, tree);
    expect(exploitability(tree, uniformPolicy(tree)).exploitability).toBeCloseTo(0.7493, 4);
    expect(exploitability(tree, cfrPolicy(tree, 200)).exploitability).toBeLessThan(0.05);
  });

  it('should register as a game with random and equilibrium opponents', async () => {
    const catalog = await composePlugins([racePlugin]);
    const game = catalog.games.create('race', { grader: () => ({ answer_present: false, correct: false }), knobs: {} });
    expect(game.protocol.family === 'world' && Object.keys(game.protocol.scripted ?? {})).toEqual(['random', 'equilibrium']);
  });
});
