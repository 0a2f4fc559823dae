import type { RewardRule } from '../../core/game/rewards.ts';
import type { Problem } from '../../core/tasks/task.ts';
import type { Verdict } from '../../core/grading/verdict.ts';

/** The team is paid as one: 1 to every role when the whole response boxes the gold answer, else 0. */
export function boxedAnswerReward<Role extends string>(roles: readonly Role[], grade: (gold: string, response: string) => Verdict): RewardRule<Role, Problem> {
  return (match) => {
    const response = match.transcript.map((ply) => ply.text).join('');
    const reward = grade(match.problem.answer, response).correct ? 1 : 0;
    return { outcome: Object.fromEntries(roles.map((role) => [role, reward])) as Record<Role, number> };
  };
}
