import { beforeAll, describe, expect, it } from 'vitest';
import { composePlugins } from '../../../composition/compose.ts';
import type { Catalog } from '../../../core/catalog.ts';
import type { PlayedMatch } from '../../../engine/match/played-match.ts';
import { pairingResult, roundContests, type PlayedLineup } from '../../../lab/tournament/contests.ts';
import { sidesOf, type TournamentGame } from '../../../lab/tournament/entrants.ts';
import { roundLineups } from '../../../lab/tournament/lineups.ts';

let catalog: Catalog;
beforeAll(async () => {
  catalog = await composePlugins([]);
});

const gameOf = (id: string, options: { sides?: string[][]; swapSeats?: boolean } = {}): TournamentGame => {
  const game = catalog.games.create(id, { grader: catalog.graders.create('exact'), knobs: {} });
  return { id, game, sides: sidesOf(game, options.sides), swapSeats: options.swapSeats ?? true };
};
const everyone = () => true;

describe('roundLineups', () => {
  describe('having a solo game', () => {
    it('should seat each entrant alone once, however many pairings name it, with its pairings\' opponents', () => {
      const lineups = roundLineups(gameOf('grpo'), [['a', 'b'], ['a', 'c'], ['b', 'c']], everyone);
      expect(lineups.map((l) => [l.key, l.opponents])).toEqual([
        ['senior=a', ['b', 'c']],
        ['senior=b', ['a', 'c']],
        ['senior=c', ['a', 'b']],
      ]);
    });
  });

  describe('having a co-writing game (one side of two roles)', () => {
    it('should seat the pair in both orders when seats swap, once when they do not', () => {
      expect(roundLineups(gameOf('tandem'), [['a', 'b']], everyone).map((l) => l.key)).toEqual(['senior=a,junior=b', 'senior=b,junior=a']);
      expect(roundLineups(gameOf('tandem', { swapSeats: false }), [['a', 'b']], everyone).map((l) => l.key)).toEqual(['senior=a,junior=b']);
    });
  });

  describe('having a game of two sides', () => {
    it('should put each entrant on each side once', () => {
      const lineups = roundLineups(gameOf('tandem', { sides: [['senior'], ['junior']] }), [['a', 'b']], everyone);
      expect(lineups.map((l) => l.seats)).toEqual([
        { senior: 'a', junior: 'b' },
        { senior: 'b', junior: 'a' },
      ]);
    });
  });

  it('should skip a pairing with an entrant that does not enter the game', () => {
    expect(roundLineups(gameOf('grpo'), [['a', 'b']], (entrant) => entrant !== 'b')).toEqual([]);
  });
});

/** A finished match with `tokens[role]` tokens written by each role in one co-decoded turn, and these outcomes. */
function match(seats: Record<string, string>, outcome: Record<string, number>, tokens: Record<string, number>): PlayedMatch {
  const roles = Object.keys(tokens);
  const authorIds = roles.flatMap((role, r) => Array.from({ length: tokens[role] }, () => r));
  return { matchId: 'm', problem: { id: 'p', prompt: '', answer: '' } as PlayedMatch['problem'], seed: 0, index: 0, seats, rewards: { outcome }, turns: [{ turn: 0, role: roles[0], tokens: authorIds, text: '', authorIds, authorRoles: roles } as unknown as PlayedMatch['turns'][number]] };
}

describe('roundContests', () => {
  it("should rank one side's lineups against each other on the same match, weighting co-writers by their share", () => {
    const tandem = gameOf('tandem');
    const played: PlayedLineup[] = [
      { lineup: { game: 'tandem', seats: { senior: 'a', junior: 'b' }, key: 'ab', opponents: [] }, matches: [match({ senior: 'a', junior: 'b' }, { senior: 1, junior: 1 }, { senior: 3, junior: 1 })] },
      { lineup: { game: 'tandem', seats: { senior: 'c', junior: 'b' }, key: 'cb', opponents: [] }, matches: [match({ senior: 'c', junior: 'b' }, { senior: 0, junior: 0 }, { senior: 2, junior: 2 })] },
    ];
    const [contest] = roundContests(tandem, played);
    expect(contest.sides).toEqual([
      { members: [{ entrant: 'a', weight: 0.75 }, { entrant: 'b', weight: 0.25 }], score: 1 },
      { members: [{ entrant: 'c', weight: 0.5 }, { entrant: 'b', weight: 0.5 }], score: 0 },
    ]);
    expect(pairingResult([contest], 'a', 'c')).toBe(1);
    expect(pairingResult([contest], 'a', 'b')).toBe(0);
  });

  it('should rank the two sides within each match of a two-sided game', () => {
    const duel = gameOf('tandem', { sides: [['senior'], ['junior']] });
    const seats = { senior: 'a', junior: 'b' };
    const contests = roundContests(duel, [{ lineup: { game: 'tandem', seats, key: 'ab', opponents: [] }, matches: [match(seats, { senior: 0, junior: 1 }, { senior: 1, junior: 1 })] }]);
    expect(contests).toEqual([{ game: 'tandem', sides: [{ members: [{ entrant: 'a', weight: 1 }], score: 0 }, { members: [{ entrant: 'b', weight: 1 }], score: 1 }] }]);
    expect(pairingResult(contests, 'a', 'b')).toBe(-1);
  });
});
