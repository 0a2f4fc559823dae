import { describe, expect, it } from 'vitest';
import { collapseAlarms, collapseWarning, fixedOpponentsOf, meanScore, type FixedOpponentResult } from '../../../engine/trainer/fixed-opponents.ts';
import type { Game } from '../../../core/game/define-game.ts';
import { ticTacToeGame } from '../../../games/tictactoe.ts';
import { tangoGame } from '../../../games/tango.ts';

const result = (drawOrWin: number, win = drawOrWin / 2): FixedOpponentResult => ({ matches: 40, win, draw: drawOrWin - win, loss: 1 - drawOrWin, draw_or_win: drawOrWin, score: win + (drawOrWin - win) / 2, forfeit: 0, payoff: 0 });

describe('the collapse alarm', () => {
  describe('having a constructed run that learns to hold minimax, then collapses (as Tinker documents at steps 80-110)', () => {
    it('should warn at the first evaluation more than the threshold below the best so far, and not while it only wobbles', () => {
      const run = [0.1, 0.3, 0.45, 0.4, 0.3, 0.2, 0.5];
      const best: Record<string, { rate: number; step: number }> = {};
      const alarms = run.map((rate, i) => collapseAlarms({ minimax: result(rate), random: result(0.8) }, best, (i + 1) * 16, 0.2));
      expect(alarms.map((a) => a.length)).toEqual([0, 0, 0, 0, 0, 1, 0]);
      expect(alarms[5][0]).toEqual({ series: 'minimax', best: 0.45, bestStep: 48, now: 0.2 });
      expect(collapseWarning(96, alarms[5][0])).toBe('WARNING step 96: collapse against minimax: draw-or-win 20.0%, down from its best 45.0% at step 48\n');
      expect(best.minimax).toEqual({ rate: 0.5, step: 112 });
    });
  });

  it('should choose best/ by the mean score over the opponents', () => {
    expect(meanScore({ random: result(1, 1), minimax: result(0.5, 0) })).toBeCloseTo((1 + 0.25) / 2, 12);
  });

  it("should take a world game's reference opponents and its base, refuse a name it lacks, and refuse a game without a world", () => {
    const game = ticTacToeGame({}) as unknown as Game;
    expect(fixedOpponentsOf(game, undefined)).toEqual(['random', 'minimax', 'base']);
    expect(fixedOpponentsOf(game, ['minimax'])).toEqual(['minimax']);
    expect(() => fixedOpponentsOf(game, ['alphazero'])).toThrow(/no fixed opponent "alphazero" \(it has: random, minimax, base\)/);
    expect(() => fixedOpponentsOf(tangoGame({}, () => ({ answer_present: false, correct: false })) as never, undefined)).toThrow(/not a world game/);
  });
});
