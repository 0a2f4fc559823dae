import type { RewardRule } from '../../core/game/rewards.ts';
import { GRADER_JUDGE, type Grader } from '../../core/grading/verdict.ts';
import type { Problem } from '../../core/tasks/task.ts';

/** What a boxed answer earns: `correct` when it is right, plus `format` when a box is there at all. */
export interface BoxedAnswerWeights {
  readonly correct: number;
  readonly format: number;
}

/**
 * Which text is the team's answer: the match's final turn (a co-decoded response: the whole of it, decoded once), or
 * every turn's text joined in order (partners who wrote one answer a step each, in turns of their own).
 */
export type AnswerText = 'final' | 'joined';

/**
 * The team is paid as one: to every role, `weights.correct` when its answer (`read`) boxes the gold answer, plus
 * `weights.format` when it boxes any answer (default 1 and 0: correctness alone). The grader's verdict is recorded as
 * judging `roles[0]`, on the final turn.
 */
export function boxedAnswerReward<const Role extends string>(
  roles: readonly Role[],
  grade: Grader,
  { read = 'final', weights = { correct: 1, format: 0 } }: { readonly read?: AnswerText; readonly weights?: BoxedAnswerWeights } = {},
): RewardRule<Role, Problem> {
  return (match) => {
    const final = match.transcript[match.transcript.length - 1];
    const text = read === 'joined' ? match.transcript.map((turn) => turn.text).join('') : (final?.text ?? '');
    const verdict = grade(match.problem.answer, text);
    const reward = weights.correct * Number(verdict.correct) + weights.format * Number(verdict.answer_present);
    return {
      outcome: Object.fromEntries(roles.map((role) => [role, reward])) as Record<Role, number>,
      verdicts: [{ role: roles[0], judge: GRADER_JUDGE, turn: final?.turn ?? 0, answer_present: verdict.answer_present, correct: verdict.correct }],
    };
  };
}
