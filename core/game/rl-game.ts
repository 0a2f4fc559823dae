import type { Game } from './define-game.ts';
import type { Verdict } from '../grading/verdict.ts';
import type { Problem } from '../tasks/task.ts';

/** What the RL loop reads from a game beyond its definition: the papers' knobs. */
export interface RlKnobs {
  /** Each trainable author's share of a response must lie in [min, max]; outside it the run fails closed. */
  readonly shareBand: readonly [min: number, max: number];
  /** β of a per-token k3 KL toward the frozen base (KL-Reg); 0 for none. */
  readonly klToJunior: number;
  /** λ_jun of the original tandem objective: weight of −log π(token) on the tokens the frozen roles wrote; 0 for none. */
  readonly juniorImitation: number;
  /** Judges a whole response against the gold answer; the reward rule pays by it. */
  readonly grade: (gold: string, response: string) => Verdict;
}

/**
 * A game the RL loop can train: one co-decoded response per match, trainable roles played by the learner's policy
 * and every other role by a frozen copy of the base.
 */
export type RlGame<Role extends string> = Game<Role, Problem, RlKnobs>;
