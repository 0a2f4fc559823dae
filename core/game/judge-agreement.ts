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
  /** ProcessBench's two accuracies: on erroneous work (the first wrong step found) and on correct work (no step flagged). */
  readonly processBench: ProcessBenchCounts;
}

export interface ProcessBenchCounts {
  readonly erroneous: number;
  readonly erroneousRight: number;
  readonly correct: number;
  readonly correctRight: number;
}

const key = (v: MatchVerdict) => `${v.role}\u0000${v.turn}\u0000${v.step ?? ''}`;

/**
 * Compares every verdict `judge` gave in each match with the grader's verdict on the same role, turn and step (a
 * reward rule publishes the grader's step verdicts where gold step labels exist). "Positive" is "correct". A verdict
 * the judge gave no readable answer for (`answer_present` false) counts as "incorrect", as RL Tango's authors count
 * an unextractable final judgment (y_final = 0). Each match also scores ProcessBench-style (`processBenchOf`).
 */
export function judgeAgreement(matches: readonly (readonly MatchVerdict[])[], judge: string): JudgeAgreement {
  const outcome = emptyConfusion();
  const steps = emptyConfusion();
  let judged = 0;
  let readable = 0;
  const processBench = { erroneous: 0, erroneousRight: 0, correct: 0, correctRight: 0 };
  for (const verdicts of matches) {
    const scored = processBenchOf(verdicts, judge);
    if (scored) {
      const kind = scored.erroneous ? 'erroneous' : 'correct';
      processBench[kind]++;
      if (scored.right) processBench[`${kind}Right`]++;
    }
    const truth = new Map(verdicts.filter((v) => v.judge === GRADER_JUDGE).map((v) => [key(v), v.correct]));
    for (const verdict of verdicts) {
      if (verdict.judge !== judge) continue;
      const gold = truth.get(key(verdict));
      if (gold === undefined) continue;
      judged++;
      if (verdict.answer_present) readable++;
      addJudgment(verdict.step === undefined ? outcome : steps, gold, verdict.answer_present && verdict.correct);
    }
  }
  return { outcome, steps, judged, readable, processBench };
}

/** The index of the first wrong step, -1 when every step is right; null when a step verdict is unreadable. */
function firstError(steps: readonly MatchVerdict[]): number | null {
  if (steps.some((v) => !v.answer_present)) return null;
  const sorted = [...steps].sort((a, b) => (a.step ?? 0) - (b.step ?? 0));
  return sorted.find((v) => !v.correct)?.step ?? -1;
}

/**
 * One match scored as ProcessBench scores a critic (Zheng et al., 2024; RL Tango Table 3): with gold step labels, the
 * work is erroneous when a step is wrong, and the judge is right when the first step it flags is the first wrong one
 * (or, on correct work, when it flags none); without them, the outcome decides and the judge is right when its final
 * verdict matches. Unreadable verdicts are never right on erroneous work and count as "incorrect" on correct work.
 * Undefined when the judge gave no verdict on graded work.
 */
export function processBenchOf(verdicts: readonly MatchVerdict[], judge: string): { erroneous: boolean; right: boolean } | undefined {
  const goldOutcome = verdicts.find((v) => v.judge === GRADER_JUDGE && v.step === undefined);
  const said = verdicts.find((v) => v.judge === judge && v.step === undefined);
  if (!goldOutcome || !said) return undefined;
  const goldSteps = verdicts.filter((v) => v.judge === GRADER_JUDGE && v.step !== undefined && v.role === goldOutcome.role && v.turn === goldOutcome.turn);
  if (goldSteps.length === 0) {
    const erroneous = !goldOutcome.correct;
    // Only a readable verdict finds an error: an unreadable one on erroneous work found nothing, whatever the outcome
    // metrics count it as.
    return { erroneous, right: said.answer_present && said.correct === !erroneous };
  }
  const goldFirst = firstError(goldSteps)!;
  const judgedSteps = verdicts.filter((v) => v.judge === judge && v.step !== undefined && v.role === goldOutcome.role && v.turn === goldOutcome.turn);
  const judgedFirst = judgedSteps.length === goldSteps.length ? firstError(judgedSteps) : null;
  return { erroneous: goldFirst >= 0, right: judgedFirst === goldFirst };
}

/**
 * ProcessBench's F1: the harmonic mean of the accuracy on erroneous work and the accuracy on correct work (RL Tango
 * Table 3: "the F1 score of the respective accuracies on erroneous and correct samples"); null when either class is
 * absent, 0 when either accuracy is.
 */
export function processBenchF1(counts: ProcessBenchCounts): number | null {
  if (counts.erroneous === 0 || counts.correct === 0) return null;
  const a = counts.erroneousRight / counts.erroneous;
  const b = counts.correctRight / counts.correct;
  return a + b === 0 ? 0 : (2 * a * b) / (a + b);
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
    processbench_f1: processBenchF1(agreement.processBench),
    verdicts_readable: agreement.readable / agreement.judged,
  };
}
