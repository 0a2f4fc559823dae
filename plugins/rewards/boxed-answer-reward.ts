import type { RewardRule } from '../../core/game/rewards.ts';
import { GRADER_JUDGE, type Grader } from '../../core/grading/verdict.ts';
import type { Problem } from '../../core/tasks/task.ts';

/**
 * The team is paid as one: 1 to every role when the match's final turn (a co-decoded response: the whole of it,
 * decoded once) boxes the gold answer, else 0. The grader's verdict is recorded as judging `roles[0]`.
 */
export function boxedAnswerReward<const Role extends string>(roles: readonly Role[], grade: Grader): RewardRule<Role, Problem> {
  return (match) => {
    const final = match.transcript[match.transcript.length - 1];
    const verdict = grade(match.problem.answer, final?.text ?? '');
    const reward = verdict.correct ? 1 : 0;
    return {
      outcome: Object.fromEntries(roles.map((role) => [role, reward])) as Record<Role, number>,
      verdicts: [{ role: roles[0], judge: GRADER_JUDGE, turn: final?.turn ?? 0, answer_present: verdict.answer_present, correct: verdict.correct }],
    };
  };
}
