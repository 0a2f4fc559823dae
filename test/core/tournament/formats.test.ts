import { describe, expect, it } from 'vitest';
import { deriveSeed, Rng } from '../../../core/rng.ts';
import { fixtures, league, roundRobin, swiss, type PairingContext, type PoolEntrant, type TournamentFormat } from '../../../core/tournament/formats.ts';
import { recordContest, type PayoffTable } from '../../../core/tournament/payoff.ts';

const entrants = (n: number, trainable: readonly string[] = []): PoolEntrant[] =>
  Array.from({ length: n }, (_, i) => ({ name: `e${i}`, trainable: trainable.includes(`e${i}`), snapshot: false }));

/** Plays every round of a format, each pairing won by the lower-numbered entrant; returns each round's pairings. */
function playOut(format: TournamentFormat, pool: readonly PoolEntrant[], seed = 1) {
  const played: (readonly [string, string])[] = [];
  const byes: string[] = [];
  const points: Record<string, number> = {};
  const payoff: PayoffTable = {};
  const rounds = [];
  for (let round = 0; round < format.rounds; round++) {
    const context: PairingContext = { round, pool, points, played, byes, payoff, rng: new Rng(deriveSeed(seed, round)) };
    const result = format.pair(context);
    rounds.push(result);
    for (const [a, b] of result.pairings) {
      played.push([a, b]);
      const winner = Number(a.slice(1)) < Number(b.slice(1)) ? a : b;
      points[winner] = (points[winner] ?? 0) + 1;
      recordContest(payoff, [
        { members: [{ entrant: winner, weight: 1 }], score: 1 },
        { members: [{ entrant: winner === a ? b : a, weight: 1 }], score: 0 },
      ]);
    }
    for (const bye of result.byes) {
      byes.push(bye);
      points[bye] = (points[bye] ?? 0) + 1;
    }
  }
  return rounds;
}

const key = ([a, b]: readonly [string, string]) => [a, b].sort().join('-');

describe('round-robin', () => {
  describe('having 5 entrants on the circle schedule', () => {
    const format = roundRobin({ cycles: 1, schedule: 'circle' }, entrants(5));
    const rounds = playOut(format, entrants(5));
    it('should take 5 rounds, each entrant in at most one pairing a round and one bye a round', () => {
      expect(format.rounds).toBe(5);
      for (const round of rounds) {
        const names = round.pairings.flat();
        expect(new Set(names).size).toBe(names.length);
        expect(round.byes).toHaveLength(1);
        expect(names).not.toContain(round.byes[0]);
      }
    });
    it('should pair every two entrants exactly once and give everyone one bye', () => {
      const keys = rounds.flatMap((r) => r.pairings.map(key));
      expect(keys).toHaveLength(10);
      expect(new Set(keys).size).toBe(10);
      expect(rounds.flatMap((r) => r.byes).sort()).toEqual(['e0', 'e1', 'e2', 'e3', 'e4']);
    });
  });

  describe('having 4 entrants and two cycles', () => {
    const rounds = playOut(roundRobin({ cycles: 2, schedule: 'circle' }, entrants(4)), entrants(4));
    it('should replay the first cycle with the seats swapped', () => {
      expect(rounds).toHaveLength(6);
      rounds.slice(0, 3).forEach((round, r) => expect(rounds[r + 3].pairings).toEqual(round.pairings.map(([a, b]) => [b, a])));
    });
  });

  describe('having the all schedule', () => {
    it('should pair every two entrants of the pool in every round, first seats alternating', () => {
      const pool = entrants(4);
      const rounds = playOut(roundRobin({ cycles: 2, schedule: 'all' }, pool), pool);
      for (const round of rounds) expect(new Set(round.pairings.map(key)).size).toBe(6);
      const firsts = (r: number) => rounds[r].pairings.map(([a, b]) => `${a}>${b}`);
      expect(firsts(0)).not.toEqual(firsts(1));
    });
  });

  it('should refuse a single entrant', () => {
    expect(() => roundRobin({ cycles: 1, schedule: 'all' }, entrants(1))).toThrow(/CONFIG_INVALID.*at least 2 entrants/);
  });
});

describe('swiss', () => {
  describe('having 7 entrants over 5 rounds', () => {
    const pool = entrants(7);
    const rounds = playOut(swiss({ rounds: 5 }, pool), pool);
    it('should never pair the same two entrants twice', () => {
      const keys = rounds.flatMap((r) => r.pairings.map(key));
      expect(new Set(keys).size).toBe(keys.length);
    });
    it('should give one bye a round, never twice to the same entrant', () => {
      for (const round of rounds) expect(round.byes).toHaveLength(1);
      const byes = rounds.flatMap((r) => r.byes);
      expect(new Set(byes).size).toBe(byes.length);
    });
    it('should keep first seats balanced: nobody more than two seats off even, nobody three times in a row on one side', () => {
      const history = new Map<string, number[]>();
      for (const round of rounds) {
        for (const [a, b] of round.pairings) {
          history.set(a, [...(history.get(a) ?? []), 1]);
          history.set(b, [...(history.get(b) ?? []), -1]);
        }
      }
      for (const seats of history.values()) {
        expect(Math.abs(seats.reduce((s, x) => s + x, 0))).toBeLessThanOrEqual(2);
        for (let i = 2; i < seats.length; i++) expect(Math.abs(seats[i] + seats[i - 1] + seats[i - 2])).toBeLessThan(3);
      }
    });
  });

  describe('having 8 entrants', () => {
    it('should pair the second round within score groups (winners with winners)', () => {
      const pool = entrants(8);
      const [first, second] = playOut(swiss({ rounds: 2 }, pool), pool);
      const winners = new Set(first.pairings.map(([a, b]) => (Number(a.slice(1)) < Number(b.slice(1)) ? a : b)));
      for (const [a, b] of second.pairings) expect(winners.has(a)).toBe(winners.has(b));
    });
  });

  describe('having the same seed', () => {
    it('should pair the same way (the library shuffles from the round stream, not Math.random)', () => {
      const pool = entrants(8);
      expect(playOut(swiss({ rounds: 4 }, pool), pool, 5)).toEqual(playOut(swiss({ rounds: 4 }, pool), pool, 5));
    });
  });

  it('should refuse more rounds than distinct opponents', () => {
    expect(() => swiss({ rounds: 4 }, entrants(4))).toThrow(/CONFIG_INVALID.*repeated pairing/);
  });
});

describe('league', () => {
  const options = { rounds: 3, opponents: 2, weighting: 'hard' as const, hardExponent: 2, winRatePrior: 1 };
  it('should pair each trainable entrant with distinct opponents from the pool, never itself', () => {
    const pool = entrants(5, ['e3', 'e4']);
    for (const round of playOut(league(options, pool), pool)) {
      for (const learner of ['e3', 'e4']) {
        const opponents = round.pairings.filter((p) => p[0] === learner).map((p) => p[1]);
        expect(opponents.length).toBeGreaterThan(0);
        expect(opponents).not.toContain(learner);
        expect(new Set(opponents).size).toBe(opponents.length);
      }
      expect(new Set(round.pairings.map(key)).size).toBe(round.pairings.length);
    }
  });
  it('should draw the opponents a learner loses to more often under hard weighting', () => {
    const pool = entrants(3, ['e1']);
    const payoff: PayoffTable = {};
    for (let i = 0; i < 9; i++) {
      recordContest(payoff, [solo('e0', 1), solo('e1', 0)]);
      recordContest(payoff, [solo('e1', 1), solo('e2', 0)]);
    }
    const format = league({ ...options, opponents: 1 }, pool);
    const counts: Record<string, number> = {};
    for (let round = 0; round < 4000; round++) {
      const [[, opponent]] = format.pair({ round, pool, points: {}, played: [], byes: [], payoff, rng: new Rng(deriveSeed(9, round)) }).pairings;
      counts[opponent] = (counts[opponent] ?? 0) + 1;
    }
    // Win rates with one split game added: 0.5/10 against e0, 9.5/10 against e2 → weights 0.9025 and 0.0025.
    expect(counts.e0 / 4000).toBeCloseTo(0.9025 / 0.905, 1);
  });
  it('should refuse a league with no trainable entrant', () => {
    expect(() => league(options, entrants(3))).toThrow(/CONFIG_INVALID.*trainable/);
  });
});

function solo(entrant: string, score: number) {
  return { members: [{ entrant, weight: 1 }], score };
}

describe('fixtures', () => {
  it('should play the listed pairings every round, and refuse a name that is not an entrant or a pairing with itself', () => {
    const pool = entrants(3);
    const rounds = playOut(fixtures({ rounds: 2, pairings: [['e2', 'e0'], ['e1', 'e0']] }, pool), pool);
    expect(rounds.map((r) => r.pairings)).toEqual([
      [['e2', 'e0'], ['e1', 'e0']],
      [['e2', 'e0'], ['e1', 'e0']],
    ]);
    expect(() => fixtures({ rounds: 1, pairings: [['e0', 'x']] }, pool)).toThrow(/CONFIG_INVALID.*"x"/);
    expect(() => fixtures({ rounds: 1, pairings: [['e0', 'e0']] }, pool)).toThrow(/CONFIG_INVALID.*itself/);
  });
});
