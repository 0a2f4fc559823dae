import type { TurnRecord } from '../protocols/turn-record.ts';

/** One match as plain data: what views read, what reward rules score, what a replay restores. */
export interface MatchState<Role extends string, Problem> {
  readonly matchId: string;
  /** Derived from (run seed, match id); every coin of the match comes from it. */
  readonly seed: number;
  readonly problem: Problem;
  readonly transcript: readonly TurnRecord<Role>[];
  readonly finished: boolean;
}
