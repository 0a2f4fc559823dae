import type { MatchRewards } from '../../core/game/rewards.ts';
import type { TurnRecord } from '../../core/protocols/turn-record.ts';
import type { ScheduleSpec } from '../../core/schedules/spec.ts';
import type { Problem } from '../../core/tasks/task.ts';

/** Where a turn's samples came from: with the seated policies, enough to generate it again. */
export interface TurnOrigin {
  /** The generation call's seed; row r sampled from (seed, r) unless `rowSeed` is set. */
  readonly seed: number;
  /** The turn's row in that call. */
  readonly row: number;
  /** The row's own sampling seed (sequential turns: derived from the match and the turn). */
  readonly rowSeed?: number;
  /** The co-decoding schedule, as data, with its hash (solo for a sequential turn). */
  readonly schedule: ScheduleSpec;
  readonly scheduleHash: string;
}

/**
 * One turn as played, with everything learning needs and nothing to re-score: the prompt ids it was sampled from,
 * the sampling log-probabilities of its author(s) (and of co-decoding partners), where its reasoning steps end.
 */
export interface PlayedTurn<Role extends string = string> extends TurnRecord<Role> {
  readonly promptIds: readonly number[];
  /** The author's log-probability of each token, at sampling time. */
  readonly logprobs: readonly number[];
  /** Co-decoding: every author's log-probability of each token, in protocol author order. */
  readonly partnerLogprobs?: readonly (readonly number[])[];
  /** The roles that could write this turn, in the order `authorIds` index them. */
  readonly authorRoles: readonly Role[];
  /** Per token: index into `authorRoles` of its writer. */
  readonly authorIds: readonly number[];
  readonly stepEnds: readonly number[];
  readonly origin: TurnOrigin;
}

/** One finished match: its turns, what the reward rule paid, and the seats and seed it was played with. */
export interface PlayedMatch<Role extends string = string> {
  readonly matchId: string;
  readonly problem: Problem;
  readonly seed: number;
  /** Position of the match in its batch (problem-major: a group is contiguous). */
  readonly index: number;
  readonly seats: Readonly<Record<Role, string>>;
  readonly turns: readonly PlayedTurn<Role>[];
  readonly rewards: MatchRewards<Role>;
}
