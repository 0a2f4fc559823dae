import { GRADER_JUDGE } from '../grading/verdict.ts';
import { addJudgment, emptyConfusion, f1, precision, recall, type Confusion } from '../metrics/binary-f1.ts';
import type { MatchVerdict } from './rewards.ts';

/** How a judging role's verdicts agree with the grader's on the same work: whole turns and single steps apart. */
export interface JudgeAgreement {
  readonly outcome: Confusion;
  readonly steps: Confusion;
  /** Verdicts of the judge that had a grader verdict to compare with, and how many of them were readable. */
  readonly judged: number;
  readonly readable: number;
}

const key = (v: MatchVerdict) => `${v.role}\u0000${v.turn}\u0000${v.step ?? ''}`;

/**
 * Compares every verdict `judge` gave in each match with the grader's verdict on the same role, turn and step (a
 * reward rule publishes the grader's step verdicts where gold step labels exist). "Positive" is "correct". A verdict
 * the judge gave no readable answer for (`answer_present` false) counts as the wrong call: it never helps the judge.
 */
export function judgeAgreement(matches: readonly (readonly MatchVerdict[])[], judge: string): JudgeAgreement {
  const outcome = emptyConfusion();
  const steps = emptyConfusion();
  let judged = 0;
  let readable = 0;
  for (const verdicts of matches) {
    const truth = new Map(verdicts.filter((v) => v.judge === GRADER_JUDGE).map((v) => [key(v), v.correct]));
    for (const verdict of verdicts) {
      if (verdict.judge !== judge) continue;
      const gold = truth.get(key(verdict));
      if (gold === undefined) continue;
      judged++;
      if (verdict.answer_present) readable++;
      addJudgment(verdict.step === undefined ? outcome : steps, gold, verdict.answer_present ? verdict.correct : !gold);
    }
  }
  return { outcome, steps, judged, readable };
}

/** The judge's metrics as a role reports them: outcome precision, recall and F1, step F1, the readable share; none when it judged nothing. */
export function judgeMetrics(matches: readonly (readonly MatchVerdict[])[], judge: string): Record<string, number | null> {
  const agreement = judgeAgreement(matches, judge);
  if (agreement.judged === 0) return {};
  const hasSteps = agreement.steps.tp + agreement.steps.fp + agreement.steps.fn + agreement.steps.tn > 0;
  return {
    outcome_precision: precision(agreement.outcome),
    outcome_recall: recall(agreement.outcome),
    outcome_f1: f1(agreement.outcome),
    ...(hasSteps ? { step_f1: f1(agreement.steps) } : {}),
    verdicts_readable: agreement.readable / agreement.judged,
  };
}
