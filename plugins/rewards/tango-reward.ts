import type { MatchVerdict, MatchRewards, RewardRule } from '../../core/game/rewards.ts';
import { GRADER_JUDGE, type Grader } from '../../core/grading/verdict.ts';
import type { Problem } from '../../core/tasks/task.ts';
import { formatScore } from '../verdicts/format-score.ts';
import { goldPathLabels } from '../verdicts/gold-path.ts';
import { parseVerification } from '../verdicts/step-verdicts.ts';
import { solutionSteps } from '../verdicts/verifier-prompt.ts';

export type TangoRole = 'generator' | 'verifier';

/** The rollout label the verifier's class weights read: whether the solution it judged was correct. */
export const SOLUTION_CORRECT_LABEL = 'solution_correct';

export interface TangoRewardOptions {
  readonly grade: Grader;
  /** γ, the weight of the format score in the verifier's reward (§4: 0.8). */
  readonly formatWeight: number;
  /** What each unmet formatting criterion takes off the format score. */
  readonly formatPenalty: number;
}

/**
 * Tango's rewards (§3.2). The generator: 1 when the grader finds the gold answer (Eq. 2), and step rewards y_k / K at
 * the last token of each of its K steps (Eq. 3), y_k = ±1 as the verifier judged step k — only when the verifier judged
 * exactly K steps, else none. The verifier: 1 when its final verdict matches the solution's true correctness, plus
 * γ × its format score (Eq. 8); no readable final verdict is a wrong one. Verdicts: the grader's on the answer and,
 * where the task has gold steps, on every step (gold-path labels); the verifier's on the whole and on each step.
 */
export function tangoReward(options: TangoRewardOptions): RewardRule<TangoRole, Problem> {
  return ({ problem, transcript }) => {
    const solution = transcript.find((turn) => turn.role === 'generator');
    const verification = transcript.find((turn) => turn.role === 'verifier');
    const text = solution?.text ?? '';
    const turn = solution?.turn ?? 0;
    const graded = options.grade(problem.answer, text);
    const steps = solutionSteps(text);
    const verdicts: MatchVerdict<TangoRole>[] = [{ role: 'generator', judge: GRADER_JUDGE, turn, answer_present: graded.answer_present, correct: graded.correct }];
    const gold = problem.stepLabels ? goldPathLabels(problem.steps, steps) : undefined;
    gold?.forEach((correct, step) => verdicts.push({ role: 'generator', judge: GRADER_JUDGE, turn, step, answer_present: true, correct }));
    const generatorOutcome = graded.correct ? 1 : 0;
    if (!verification) return { outcome: { generator: generatorOutcome, verifier: 0 }, verdicts };

    const parsed = parseVerification(verification.text);
    const said = parsed.final;
    const verifierOutcome = (said === graded.correct ? 1 : 0) + options.formatWeight * formatScore(parsed, steps.length, options.formatPenalty);
    verdicts.push({ role: 'generator', judge: 'verifier', turn, answer_present: said !== undefined, correct: said ?? false });
    const judgedEvery = parsed.steps.length === steps.length;
    if (judgedEvery) parsed.steps.forEach((judgment, step) => verdicts.push({ role: 'generator', judge: 'verifier', turn, step, answer_present: true, correct: judgment.correct }));
    else gold?.forEach((_, step) => verdicts.push({ role: 'generator', judge: 'verifier', turn, step, answer_present: false, correct: false }));

    const ends = solution?.stepEnds ?? [];
    const placed = judgedEvery && ends.length === steps.length;
    const rewards: MatchRewards<TangoRole> = {
      outcome: { generator: generatorOutcome, verifier: verifierOutcome },
      labels: { verifier: { [SOLUTION_CORRECT_LABEL]: generatorOutcome } },
      verdicts,
      ...(placed ? { steps: { generator: parsed.steps.map((judgment, k) => ({ position: ends[k], value: (judgment.correct ? 1 : -1) / steps.length })) } } : {}),
    };
    return rewards;
  };
}
