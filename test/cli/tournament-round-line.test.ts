import { describe, expect, it } from 'vitest';
import { roundLine } from '../../cli/commands/tournament.ts';
import type { Standing } from '../../lab/tournament/standings.ts';

const standing = (rank: number, entrant: string, record: Standing['record'], score: number | null): Standing =>
  ({ rank, entrant, trainable: false, overall: { ordinal: 1 - rank / 2 }, games: {}, record, points: 0, score, gameScores: {} }) as unknown as Standing;

describe('roundLine (ludus tournament, a line per round)', () => {
  describe('having decided matches', () => {
    it('should label the rating, the record and the mean score of the top three, and say nothing of draws', () => {
      const line = roundLine(2, 5, [standing(1, 'a', { wins: 3, draws: 1, losses: 0 }, 0.625), standing(2, 'b', { wins: 1, draws: 1, losses: 2 }, 0.4), standing(3, 'c', { wins: 0, draws: 0, losses: 2 }, null), standing(4, 'd', { wins: 0, draws: 0, losses: 0 }, null)]);
      expect(line).toBe('round 2/5, top 3 by rating (openskill μ − 3σ): 1. a rating 0.50 (won 3, drawn 1, lost 0; mean score 0.625); 2. b rating 0.00 (won 1, drawn 1, lost 2; mean score 0.400); 3. c rating -0.50 (won 0, drawn 0, lost 2; mean score none yet)\n');
    });
  });

  describe('having only draws so far', () => {
    it('should explain that the ratings cannot separate the entrants yet', () => {
      const line = roundLine(1, 4, [standing(1, 'a', { wins: 0, draws: 2, losses: 0 }, 0), standing(2, 'b', { wins: 0, draws: 2, losses: 0 }, 0)]);
      expect(line).toContain('\n  every match so far is a draw: in each pairing both sides scored the same');
    });
  });
});
