import type { MatchState } from './match-state.ts';

/** What a finished match pays each role. */
export interface MatchRewards<Role extends string> {
  readonly outcome: Readonly<Record<Role, number>>;
  /** Per-token rewards, aligned with that role's trajectory tokens. */
  readonly perToken?: Readonly<Partial<Record<Role, readonly number[]>>>;
  /** Per-step rewards, one per step end of that role's trajectory (Tango's ±1/K). */
  readonly perStep?: Readonly<Partial<Record<Role, readonly number[]>>>;
}

/** Scores a finished match. Graders may run with time limits, hence the promise. */
export type RewardRule<Role extends string, Problem> = (match: MatchState<Role, Problem>) => MatchRewards<Role> | Promise<MatchRewards<Role>>;
