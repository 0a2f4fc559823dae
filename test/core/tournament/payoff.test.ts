import { describe, expect, it } from 'vitest';
import { headToHead, recordContest, scoreRate, winMatrix, type PayoffTable } from '../../../core/tournament/payoff.ts';

describe('the payoff table', () => {
  describe('having two co-writing pairs, one won, sharing an entrant', () => {
    const table: PayoffTable = {};
    recordContest(table, [
      { members: [{ entrant: 'a', weight: 0.75 }, { entrant: 'b', weight: 0.25 }], score: 1 },
      { members: [{ entrant: 'c', weight: 0.5 }, { entrant: 'b', weight: 0.5 }], score: 0 },
    ]);
    it('should credit each cross pair w_x·w_y, leave out the shared entrant, and mirror it', () => {
      expect(headToHead(table, 'a', 'c')).toEqual({ wins: 0.375, draws: 0, losses: 0 });
      expect(headToHead(table, 'c', 'a')).toEqual({ wins: 0, draws: 0, losses: 0.375 });
      expect(headToHead(table, 'a', 'b')).toEqual({ wins: 0, draws: 0, losses: 0 });
      expect(headToHead(table, 'b', 'c')).toEqual({ wins: 0, draws: 0, losses: 0 });
    });
  });

  describe('having a win and a draw between two entrants', () => {
    const table: PayoffTable = {};
    const solo = (entrant: string, score: number) => ({ members: [{ entrant, weight: 1 }], score });
    recordContest(table, [solo('a', 1), solo('b', 0)]);
    recordContest(table, [solo('a', 0.5), solo('b', 0.5)]);
    it('should give a the score rate 0.75 and a Bradley–Terry count of 1.5 wins to 0.5', () => {
      expect(scoreRate(headToHead(table, 'a', 'b'))).toBe(0.75);
      expect(winMatrix(table, ['a', 'b'])).toEqual([
        [0, 1.5],
        [0.5, 0],
      ]);
    });
  });
});
