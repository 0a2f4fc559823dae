import type { RatedSide } from '../../core/tournament/skill-ratings.ts';
import type { PlayedMatch } from '../../engine/match/played-match.ts';
import type { TournamentGame } from './entrants.ts';
import type { Lineup } from './lineups.ts';

/** A lineup's matches of a round: B problems × G copies, problem-major, in the same order for every lineup of a game. */
export interface PlayedLineup {
  readonly lineup: Lineup;
  readonly matches: readonly PlayedMatch[];
}

/** One rated contest: sides ranked by what they scored. */
export interface Contest {
  readonly game: string;
  readonly sides: readonly RatedSide[];
}

/**
 * The contests of a game's round. Two sides: every match ranks its own two sides. One side: the lineups of the round
 * played the same problems from the same seeds (duplicate play), so the i-th match of every lineup is one contest
 * between all of them. A side scores the mean outcome of its roles; its members are the entrants seated in it, each
 * weighted by its share of the side's response tokens (1 for an entrant alone on its side).
 */
export function roundContests(game: TournamentGame, played: readonly PlayedLineup[]): Contest[] {
  if (game.sides.length === 2) {
    return played.flatMap(({ matches }) => matches.map((match) => ({ game: game.id, sides: game.sides.map((side) => sideOf(match, side)) })));
  }
  if (played.length < 2) return [];
  const count = Math.min(...played.map((p) => p.matches.length));
  return Array.from({ length: count }, (_, i) => ({ game: game.id, sides: played.map(({ matches }) => sideOf(matches[i], game.sides[0])) }));
}

function sideOf(match: PlayedMatch, roles: readonly string[]): RatedSide {
  const score = roles.reduce((sum, role) => sum + match.rewards.outcome[role], 0) / roles.length;
  const tokens = new Map<string, number>();
  for (const role of roles) tokens.set(match.seats[role], (tokens.get(match.seats[role]) ?? 0) + tokensWritten(match, role));
  const total = [...tokens.values()].reduce((a, b) => a + b, 0);
  const members = [...tokens].map(([entrant, count]) => ({ entrant, weight: tokens.size === 1 ? 1 : total === 0 ? 1 / tokens.size : count / total }));
  return { members, score };
}

/** Tokens a role wrote in a match, over all its turns (co-decoded turns count the tokens it authored). */
function tokensWritten(match: PlayedMatch, role: string): number {
  let count = 0;
  for (const turn of match.turns) for (const author of turn.authorIds) if (turn.authorRoles[author] === role) count += 1;
  return count;
}

/**
 * A pairing's result from its contests: +1 when a's sides beat b's more often than not (where they sat on different
 * sides), −1 the other way, 0 for a draw or when they only ever sat on one side together (a cooperative game).
 */
export function pairingResult(contests: readonly Contest[], a: string, b: string): number {
  let balance = 0;
  for (const { sides } of contests) {
    for (const x of sides) {
      const holds = (side: RatedSide, name: string) => side.members.some((m) => m.entrant === name);
      if (!holds(x, a) || holds(x, b)) continue;
      for (const y of sides) if (y !== x && holds(y, b) && !holds(y, a)) balance += Math.sign(x.score - y.score);
    }
  }
  return Math.sign(balance);
}

/** What each entrant's side scored in every match of a game's round: the outcome of its side's roles, once per match. */
export function sideScores(game: TournamentGame, played: readonly PlayedLineup[]): { game: string; entrant: string; score: number }[] {
  return played.flatMap(({ matches }) =>
    matches.flatMap((match) =>
      game.sides.flatMap((roles) => {
        const side = sideOf(match, roles);
        return side.members.map(({ entrant }) => ({ game: game.id, entrant, score: side.score }));
      }),
    ),
  );
}
