import { describe, expect, it } from 'vitest';
import { benchWorldGame } from '../../../engine/bench/world-game-bench.ts';
import { ticTacToeGame } from '../../../games/tictactoe.ts';
import { resolveModelDir } from '../../../plugins/policies/default-model.ts';

describe('benchWorldGame', () => {
  it('should decode every move to its whole budget on both sides, so the two rates are over the same tokens', async () => {
    const game = ticTacToeGame({});
    const report = await benchWorldGame({ game, modelDir: resolveModelDir('default', 'world'), matches: 4, repeats: 1, threads: 1 });
    const budget = game.protocol.family === 'world' ? game.protocol.maxTokens : 0;
    expect(report.tokens).toBe(Math.round(report.meanTurns * report.matches) * budget);
    expect(report.meanTurns).toBeGreaterThanOrEqual(1);
    expect(report.meanTurns).toBeLessThanOrEqual(9);
    expect(report.worldOverSolo).toBeCloseTo(report.worldTokS / report.soloTokS, 12);
  }, 300_000);
});
