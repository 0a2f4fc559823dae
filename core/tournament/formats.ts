import { RoundRobin, Swiss } from 'tournament-pairings';
import { fail } from '../errors.ts';
import type { Rng } from '../rng.ts';
import { gamesOf, headToHead, type PayoffTable } from './payoff.ts';
import { pfspProbabilities, sampleIndex, smoothedWinRate, type PfspWeighting } from './pfsp.ts';

/** Who is in the pool at a round: the configured entrants and the snapshots taken so far. */
export interface PoolEntrant {
  readonly name: string;
  readonly trainable: boolean;
  /** Snapshots join the pool as they are taken; some formats play only the entrants of the start. */
  readonly snapshot: boolean;
}

/** A round's pairings: the first entrant of a pair takes the first seat (side) when seats are not swapped. */
export interface RoundPairings {
  readonly pairings: readonly (readonly [string, string])[];
  readonly byes: readonly string[];
}

/** What a format may read when it pairs a round. Everything in it is recorded in the league state. */
export interface PairingContext {
  /** 0-based. */
  readonly round: number;
  readonly pool: readonly PoolEntrant[];
  /** Match points so far (a pairing won 1, drawn ½, a bye 1). */
  readonly points: Readonly<Record<string, number>>;
  /** Every pairing played so far, in order. */
  readonly played: readonly (readonly [string, string])[];
  readonly byes: readonly string[];
  /** Overall results between entrants so far. */
  readonly payoff: PayoffTable;
  /** The round's own random stream (derived from the tournament seed and the round). */
  readonly rng: Rng;
}

export interface TournamentFormat {
  readonly name: string;
  readonly rounds: number;
  /** The pairings of one round. */
  pair(context: PairingContext): RoundPairings;
}

/**
 * Round-robin: every two entrants meet once a cycle. `all` plays a whole cycle each round (every entrant meets every
 * other one, snapshots included as they join); `circle` spreads a cycle over rounds by the circle method
 * (`tournament-pairings`' RoundRobin, in configuration order), each entrant in at most one pairing a round, one bye a
 * round when the count is odd — for the entrants of the start only.
 */
export function roundRobin(options: { cycles: number; schedule: 'all' | 'circle' }, starting: readonly PoolEntrant[]): TournamentFormat {
  const names = starting.map((e) => e.name);
  requireEntrants('round-robin', names, 2);
  if (options.schedule === 'all') {
    return {
      name: 'round-robin',
      rounds: options.cycles,
      pair: ({ pool, round }) => ({
        pairings: pool.flatMap((a, i) => pool.slice(i + 1).map((b, d) => ((i + d + round) % 2 === 0 ? ([a.name, b.name] as const) : ([b.name, a.name] as const)))),
        byes: [],
      }),
    };
  }
  const schedule = RoundRobin(names, 1, true);
  const perCycle = Math.max(...schedule.map((m) => m.round));
  return {
    name: 'round-robin',
    rounds: options.cycles * perCycle,
    pair: ({ round }) => {
      const cycle = Math.floor(round / perCycle);
      const matches = schedule.filter((m) => m.round === (round % perCycle) + 1);
      const pairings = matches
        .filter((m) => m.player1 !== null && m.player2 !== null)
        .map((m): readonly [string, string] => (cycle % 2 === 0 ? [String(m.player1), String(m.player2)] : [String(m.player2), String(m.player1)]));
      const byes = matches.filter((m) => m.player1 === null || m.player2 === null).map((m) => String(m.player1 ?? m.player2));
      return { pairings, byes };
    },
  };
}

/**
 * Swiss: each round pairs entrants of equal points where it can (`tournament-pairings`' Swiss: a maximum-weight
 * matching over score groups), never the same two twice, at most one bye per entrant, first seats balanced. Only the
 * entrants of the start play. The library shuffles with Math.random; here that draws from the round's seeded stream.
 */
export function swiss(options: { rounds: number }, starting: readonly PoolEntrant[]): TournamentFormat {
  const names = starting.map((e) => e.name);
  requireEntrants('swiss', names, 2);
  const most = names.length % 2 === 0 ? names.length - 1 : names.length;
  if (options.rounds > most) fail('CONFIG_INVALID', `format swiss: ${options.rounds} rounds need more than ${names.length} entrants to avoid a repeated pairing (at most ${most})`, { field: 'format.rounds' });
  return {
    name: 'swiss',
    rounds: options.rounds,
    pair: ({ round, points, played, byes, rng }) => {
      const seating = seatHistory(played);
      const players = names.map((id) => ({
        id,
        score: points[id] ?? 0,
        avoid: played.filter((pair) => pair.includes(id)).map((pair) => (pair[0] === id ? pair[1] : pair[0])),
        receivedBye: byes.includes(id),
        seating: seating.get(id) ?? [],
      }));
      const matches = withRandom(rng, () => Swiss(players, round + 1, false, true));
      const pairings = matches.filter((m) => m.player2 !== null).map((m) => [String(m.player1), String(m.player2)] as const);
      const unpaired = matches.filter((m) => m.player2 === null).map((m) => String(m.player1));
      if (unpaired.length > names.length % 2) fail('DATA_INVALID', `format swiss: round ${round + 1} cannot pair ${unpaired.join(', ')} without repeating a pairing`, { round });
      return { pairings, byes: unpaired };
    },
  };
}

/**
 * Fixtures: the same listed pairings every round (first seat first) — an evaluation schedule: every listed entrant
 * meets exactly the opponents named for it.
 */
export function fixtures(options: { rounds: number; pairings: readonly (readonly [string, string])[] }, starting: readonly PoolEntrant[]): TournamentFormat {
  const names = new Set(starting.map((e) => e.name));
  for (const [i, pair] of options.pairings.entries()) {
    for (const name of pair) if (!names.has(name)) fail('CONFIG_INVALID', `format fixtures: pairing ${i} names "${name}", which is not an entrant`, { field: `format.pairings.${i}` });
    if (pair[0] === pair[1]) fail('CONFIG_INVALID', `format fixtures: pairing ${i} pairs "${pair[0]}" with itself`, { field: `format.pairings.${i}` });
  }
  return { name: 'fixtures', rounds: options.rounds, pair: () => ({ pairings: options.pairings.map(([a, b]) => [a, b] as const), byes: [] }) };
}

/** PFSP league settings (AlphaStar's prioritized fictitious self-play). */
export interface LeagueOptions {
  readonly rounds: number;
  /** Distinct opponents each trainable entrant meets a round (ours: 2). */
  readonly opponents: number;
  readonly weighting: PfspWeighting;
  /** p of f_hard(x) = (1 − x)^p (AlphaStar: 2). */
  readonly hardExponent: number;
  /** Games split evenly added to every win rate (ours: 1). */
  readonly winRatePrior: number;
}

/**
 * A league: every trainable entrant meets `opponents` distinct opponents a round, drawn one after another by PFSP over
 * its win rates against the whole pool (frozen entrants, the other learners and every snapshot taken so far — of
 * itself and of the others), without replacement. Frozen entrants only play when drawn.
 */
export function league(options: LeagueOptions, starting: readonly PoolEntrant[]): TournamentFormat {
  requireEntrants('league', starting.map((e) => e.name), 2);
  if (!starting.some((e) => e.trainable)) fail('CONFIG_INVALID', 'format league: needs at least one trainable entrant to choose opponents for', { field: 'entrants' });
  return {
    name: 'league',
    rounds: options.rounds,
    pair: ({ pool, payoff, rng }) => {
      const pairs = new Map<string, readonly [string, string]>();
      for (const learner of pool.filter((e) => e.trainable)) {
        const candidates = pool.filter((e) => e.name !== learner.name).map((e) => e.name);
        for (const opponent of pfspDraws(learner.name, candidates, options, payoff, rng)) {
          const key = [learner.name, opponent].sort().join('\u0000');
          if (!pairs.has(key)) pairs.set(key, [learner.name, opponent]);
        }
      }
      return { pairings: [...pairs.values()], byes: [] };
    },
  };
}

/** `count` distinct opponents for `learner`, each drawn by PFSP from those not drawn yet. */
export function pfspDraws(learner: string, candidates: readonly string[], options: Pick<LeagueOptions, 'opponents' | 'weighting' | 'hardExponent' | 'winRatePrior'>, payoff: PayoffTable, rng: Rng): string[] {
  const left = [...candidates];
  const drawn: string[] = [];
  while (drawn.length < options.opponents && left.length > 0) {
    const [chosen] = left.splice(sampleIndex(rng, pfspOpponentProbabilities(learner, left, options, payoff)), 1);
    drawn.push(chosen);
  }
  return drawn;
}

/** PFSP's probability of each candidate, in order: f of the learner's smoothed win rate against it (draws count half), normalised. */
export function pfspOpponentProbabilities(learner: string, candidates: readonly string[], options: Pick<LeagueOptions, 'weighting' | 'hardExponent' | 'winRatePrior'>, payoff: PayoffTable): number[] {
  const rates = candidates.map((opponent) => {
    const h = headToHead(payoff, learner, opponent);
    return smoothedWinRate(h.wins + h.draws / 2, gamesOf(h), options.winRatePrior);
  });
  return pfspProbabilities(options.weighting, rates, options.hardExponent);
}

function requireEntrants(format: string, names: readonly string[], least: number): void {
  if (names.length < least) fail('CONFIG_INVALID', `format ${format}: needs at least ${least} entrants, got ${names.length}`, { field: 'entrants', format });
}

/** +1 for each first seat an entrant took, −1 for each second, in order (the library's colour history). */
function seatHistory(played: readonly (readonly [string, string])[]): Map<string, (1 | -1)[]> {
  const history = new Map<string, (1 | -1)[]>();
  for (const [first, second] of played) {
    history.set(first, [...(history.get(first) ?? []), 1]);
    history.set(second, [...(history.get(second) ?? []), -1]);
  }
  return history;
}

/** Runs `fn` with Math.random drawing from `rng` (synchronously; restored after), for libraries that shuffle with it. */
function withRandom<T>(rng: Rng, fn: () => T): T {
  const original = Math.random;
  Math.random = () => rng.next();
  try {
    return fn();
  } finally {
    Math.random = original;
  }
}
