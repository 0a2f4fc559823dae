import type { PayoffTable } from '../../core/tournament/payoff.ts';
import type { Skill } from '../../core/tournament/skill-ratings.ts';
import type { EntrantRecord } from './entrants.ts';
import type { TournamentConfig } from './tournament-config.ts';

/** Skills or payoffs overall and per game. */
export interface Scoped<T> {
  overall: T;
  games: Record<string, T>;
}

/**
 * The JSON half of a tournament's checkpoint (the trainable entrants' weights and AdamW moments are the other half):
 * everything the next round depends on. Random choices come from streams derived from (seed, round), so the seed and
 * the round are the whole random state.
 */
export interface LeagueState extends Record<string, unknown> {
  /** Rounds finished. */
  round: number;
  /** Index of the next training problem. */
  cursor: number;
  config: TournamentConfig;
  /** The pool: configured entrants and snapshots, in the order they joined. */
  pool: EntrantRecord[];
  skills: Scoped<Record<string, Skill>>;
  payoff: Scoped<PayoffTable>;
  /** Per entrant: the outcomes its sides scored, summed, and how many matches (its mean score, overall and per game). */
  scores: Scoped<Record<string, { total: number; count: number }>>;
  /** Format state: match points, every pairing played (first seat first), byes. */
  points: Record<string, number>;
  played: [string, string][];
  byes: string[];
  /** Per trainable entrant: non-finite updates in a row and in all. */
  nonFinite: Record<string, { consecutive: number; skipped: number }>;
  /** Per trainable entrant, per game, per role: its advantage estimator's state. */
  estimators: Record<string, Record<string, Record<string, unknown>>>;
  /** Updates taken so far, all entrants together (the viewer's step axis). */
  updates: number;
  /** Per game: the `seq` its event stream continues from. */
  eventSeq: Record<string, number>;
}

export const LEAGUE_STATE_FILE = 'league.json';
