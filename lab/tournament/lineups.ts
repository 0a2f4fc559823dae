import type { TournamentGame } from './entrants.ts';

/** Who sits where in one game's matches of a round, and the pairings that put them there. */
export interface Lineup {
  readonly game: string;
  readonly seats: Readonly<Record<string, string>>;
  /** `role=entrant` pairs in role order: the lineup's name in match ids and records. */
  readonly key: string;
  /** The entrants of the pairings this lineup came from that it does not seat (a solo game's other player). */
  readonly opponents: readonly string[];
}

/**
 * A round's lineups of one game, each played once however many pairings ask for it. A pair [a, b] with two sides
 * seats a on the first side and b on the second, and (swapping seats) b on the first and a on the second. With one
 * side of one role each plays it alone; with one side of several roles they fill its roles in turn (a, b, a, …), and
 * swapping seats adds (b, a, b, …). Pairs with an entrant that does not enter the game are skipped.
 */
export function roundLineups(game: TournamentGame, pairings: readonly (readonly [string, string])[], enters: (entrant: string, game: string) => boolean): Lineup[] {
  const byKey = new Map<string, { seats: Record<string, string>; opponents: Set<string> }>();
  const add = (seats: Record<string, string>, pair: readonly [string, string]) => {
    const key = keyOf(game, seats);
    const entry = byKey.get(key) ?? { seats, opponents: new Set<string>() };
    const seated = new Set(Object.values(seats));
    for (const entrant of pair) if (!seated.has(entrant)) entry.opponents.add(entrant);
    byKey.set(key, entry);
  };
  for (const pair of pairings) {
    if (!pair.every((entrant) => enters(entrant, game.id))) continue;
    for (const order of seatings(game, pair)) add(seat(game, order), pair);
  }
  return [...byKey].map(([key, { seats, opponents }]) => ({ game: game.id, seats, key, opponents: [...opponents].sort() }));
}

function seatings(game: TournamentGame, [a, b]: readonly [string, string]): (readonly string[])[] {
  const [first] = game.sides;
  if (game.sides.length === 1 && first.length === 1) return [[a], [b]];
  return game.swapSeats ? [[a, b], [b, a]] : [[a, b]];
}

/** Entrants in seating order onto the game's roles: side by side with two sides, role by role (alternating) with one. */
function seat(game: TournamentGame, order: readonly string[]): Record<string, string> {
  const seats: Record<string, string> = {};
  if (game.sides.length === 2) game.sides.forEach((side, s) => side.forEach((role) => (seats[role] = order[s])));
  else game.sides[0].forEach((role, r) => (seats[role] = order[r % order.length]));
  return seats;
}

function keyOf(game: TournamentGame, seats: Readonly<Record<string, string>>): string {
  return (game.game.roles as readonly string[]).map((role) => `${role}=${seats[role]}`).join(',');
}
