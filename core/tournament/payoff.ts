import type { RatedSide } from './skill-ratings.ts';

/** Results of one entrant against another: counts may be fractional (partial-play weights). */
export interface HeadToHead {
  wins: number;
  draws: number;
  losses: number;
}

/** `table[a][b]`: a's results against b. Plain JSON, kept with the league state. */
export type PayoffTable = Record<string, Record<string, HeadToHead>>;

const empty = (): HeadToHead => ({ wins: 0, draws: 0, losses: 0 });

/**
 * Adds one contest's pairwise results: every two sides, every member x of the one and y of the other (an entrant on
 * both is compared with neither), weighted w_x·w_y, so two sides whose weights sum to one make one game between them.
 */
export function recordContest(table: PayoffTable, sides: readonly RatedSide[]): void {
  for (let a = 0; a < sides.length; a++) {
    for (let b = a + 1; b < sides.length; b++) {
      const [first, second] = [sides[a], sides[b]];
      const inFirst = new Set(first.members.map((m) => m.entrant));
      const inSecond = new Set(second.members.map((m) => m.entrant));
      for (const x of first.members) {
        if (inSecond.has(x.entrant)) continue;
        for (const y of second.members) {
          if (inFirst.has(y.entrant)) continue;
          const weight = x.weight * y.weight;
          if (weight === 0) continue;
          const outcome = Math.sign(first.score - second.score);
          add(table, x.entrant, y.entrant, outcome, weight);
          add(table, y.entrant, x.entrant, -outcome, weight);
        }
      }
    }
  }
}

function add(table: PayoffTable, a: string, b: string, outcome: number, weight: number): void {
  const row = (table[a] ??= {});
  const cell = (row[b] ??= empty());
  if (outcome > 0) cell.wins += weight;
  else if (outcome < 0) cell.losses += weight;
  else cell.draws += weight;
}

export function headToHead(table: PayoffTable, a: string, b: string): HeadToHead {
  return table[a]?.[b] ?? empty();
}

export const gamesOf = (h: HeadToHead): number => h.wins + h.draws + h.losses;

/** a's score against b: wins plus half the draws, over the games (undefined when they never met). */
export function scoreRate(h: HeadToHead): number | undefined {
  const games = gamesOf(h);
  return games === 0 ? undefined : (h.wins + h.draws / 2) / games;
}

/** The table as Bradley–Terry win counts over `entrants` in order: wins[i][j] = i's wins over j plus half their draws. */
export function winMatrix(table: PayoffTable, entrants: readonly string[]): number[][] {
  return entrants.map((a) => entrants.map((b) => (a === b ? 0 : headToHead(table, a, b).wins + headToHead(table, a, b).draws / 2)));
}
