import type { StepReward } from '../advantages/estimator.ts';
import type { MatchState } from './match-state.ts';

/** A judge's word on a role's work in a match: the grader on a final answer, or a verifier on one reasoning step. */
export interface MatchVerdict<Role extends string = string> {
  /** The role whose work is judged. */
  readonly role: Role;
  /** Who judged: `grader` for the gold-answer check, else the judging role's name. */
  readonly judge: string;
  /** The transcript turn judged. */
  readonly turn: number;
  /** The reasoning step judged within that turn (0-based); absent when the verdict is on the whole turn. */
  readonly step?: number;
  readonly answer_present: boolean;
  readonly correct: boolean;
}

/** What a finished match pays each role. */
export interface MatchRewards<Role extends string = string> {
  readonly outcome: Readonly<Record<Role, number>>;
  /** Per role: rewards at token positions of its response tokens, its turns concatenated in order (Tango's ±1/K). */
  readonly steps?: Readonly<Partial<Record<Role, readonly StepReward[]>>>;
  /** Per role: numbers an advantage estimator may read (Tango: the judged solution's true correctness). */
  readonly labels?: Readonly<Partial<Record<Role, Readonly<Record<string, number>>>>>;
  /** Judgments made while scoring, published beside the turn or step they judge. */
  readonly verdicts?: readonly MatchVerdict<Role>[];
}

/** Scores a finished match. Graders may run with time limits, hence the promise. */
export type RewardRule<Role extends string, Problem> = (match: MatchState<Role, Problem>) => MatchRewards<Role> | Promise<MatchRewards<Role>>;
