import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { composePlugins } from '../../composition/compose.ts';
import nimPlugin, { nimWorld, perfect } from '../../examples/nim/nim.ts';
import { randomLegal } from '../../core/world/random-legal.ts';
import { playScriptedMatch, worldPayoffs, worldPrompt, startWorld } from '../../core/world/world-match.ts';
import { SPIRAL_FORFEIT } from '../../core/world/world.ts';

describe('examples/nim (a world game written against the public package)', () => {
  it('should fit in 80 lines', () => {
    expect(readFileSync(new URL('../../examples/nim/nim.ts', import.meta.url), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(80);
  });

  it('should let the perfect player win every deal whose heaps do not XOR to 0 when it moves first', () => {
    let checked = 0;
    for (let seed = 0; seed < 60; seed++) {
      const heaps = (startWorld('nim', nimWorld, seed).state as { heaps: number[] }).heaps;
      if (heaps.reduce((a, b) => a ^ b, 0) === 0) continue;
      checked++;
      expect(worldPayoffs(nimWorld, playScriptedMatch(nimWorld, { first: perfect, second: randomLegal }, seed), SPIRAL_FORFEIT).first).toBe(1);
    }
    expect(checked).toBeGreaterThan(30);
  });

  it('should prompt with the heaps and the move format, and register as a game a run can name', async () => {
    const prompt = worldPrompt(nimWorld, startWorld('nim', nimWorld, 1), 'first', SPIRAL_FORFEIT);
    expect(prompt).toMatch(/^Nim: .*\nHeaps: A=\d B=\d C=\d\nLegal moves: take N from A, B or C \(e\.g\. "B 2"\)\nYour move:$/s);
    const catalog = await composePlugins([nimPlugin]);
    const game = catalog.games.create('nim', { grader: () => ({ answer_present: false, correct: false }), knobs: {} });
    expect(game.protocol.family).toBe('world');
    expect(game.rotation.at(0).seats).toEqual({ first: 'player', second: 'player' });
  });
});
