import type { ScheduleSpec } from '../schedules/spec.ts';

/**
 * The author of a turn's environment tokens (a tool's result or error line): never a role, never trained. A turn that
 * called a tool lists it among its roles.
 */
export const ENV_AUTHOR = 'env';

/**
 * One generation of one match, as the learner sees it: token ids only (never re-tokenized text), who wrote each
 * token, and what it earned. A sequential match gives one trajectory per turn (a solo schedule).
 */
export interface Trajectory {
  readonly matchId: string;
  /** The match's seed: the schedule's coins and the samplers' draws replay from it. */
  readonly seed: number;
  /** Which turn of the match this generation is (0 for co-decoding's single turn). */
  readonly turn: number;
  readonly promptIds: readonly number[];
  readonly responseIds: readonly number[];
  /** Per response token: index into `roles` of the author who wrote it. */
  readonly authors: readonly number[];
  /** `roles[i]` is the role name of author i. */
  readonly roles: readonly string[];
  /** Per response token: the author's log-probability of it, at sampling time. */
  readonly logprobs: readonly number[];
  /** [author][t]: each co-decoded policy's log-probability of token t, where asked. */
  readonly partnerLogprobs?: readonly (readonly number[])[];
  readonly schedule: ScheduleSpec;
  readonly scheduleHash: string;
  /** Indices of the response tokens that end a reasoning step, ascending. */
  readonly stepEnds: readonly number[];
  /** Outcome reward per role name. */
  readonly outcome: Readonly<Record<string, number>>;
  /** Per response token. */
  readonly tokenRewards?: readonly number[];
  /** One per entry of `stepEnds`. */
  readonly stepRewards?: readonly number[];
}
