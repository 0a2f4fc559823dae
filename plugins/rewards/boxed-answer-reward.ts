import type { RewardRule } from '../../core/game/rewards.ts';
import { GRADER_JUDGE, type Grader } from '../../core/grading/verdict.ts';
import type { Problem } from '../../core/tasks/task.ts';

/** What a boxed answer earns: `correct` when it is right, plus `format` when a box is there at all. */
export interface BoxedAnswerWeights {
  readonly correct: number;
  readonly format: number;
}

/**
 * The team is paid as one: to every role, `weights.correct` when the match's final turn (a co-decoded response: the
 * whole of it, decoded once) boxes the gold answer, plus `weights.format` when it boxes any answer (default 1 and 0:
 * correctness alone). The grader's verdict is recorded as judging `roles[0]`.
 */
export function boxedAnswerReward<const Role extends string>(roles: readonly Role[], grade: Grader, weights: BoxedAnswerWeights = { correct: 1, format: 0 }): RewardRule<Role, Problem> {
  return (match) => {
    const final = match.transcript[match.transcript.length - 1];
    const verdict = grade(match.problem.answer, final?.text ?? '');
    const reward = weights.correct * Number(verdict.correct) + weights.format * Number(verdict.answer_present);
    return {
      outcome: Object.fromEntries(roles.map((role) => [role, reward])) as Record<Role, number>,
      verdicts: [{ role: roles[0], judge: GRADER_JUDGE, turn: final?.turn ?? 0, answer_present: verdict.answer_present, correct: verdict.correct }],
    };
  };
}
