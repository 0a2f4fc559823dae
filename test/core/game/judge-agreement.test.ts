import { describe, expect, it } from 'vitest';
import { judgeAgreement, judgeMetrics, processBenchF1 } from '../../../core/game/judge-agreement.ts';
import type { MatchVerdict } from '../../../core/game/rewards.ts';
import { f1, precision, recall } from '../../../core/metrics/binary-f1.ts';

const v = (judge: string, correct: boolean, step?: number, answer_present = true): MatchVerdict => ({ role: 'generator', judge, turn: 0, ...(step === undefined ? {} : { step }), answer_present, correct });

describe('judgeAgreement', () => {
  // Match 1: a right solution the verifier calls right (TP); steps right, right / judged right, wrong.
  // Match 2: a wrong solution called right (FP); steps right, wrong / judged right, wrong.
  // Match 3: a right solution with no readable verdict: counted as "incorrect", as the Tango authors count it (FN).
  // Match 4: a wrong solution called wrong (TN).
  // Match 5: a wrong solution with no readable verdict: "incorrect" again, so here the right call (TN).
  const matches = [
    [v('grader', true), v('grader', true, 0), v('grader', true, 1), v('verifier', true), v('verifier', true, 0), v('verifier', false, 1)],
    [v('grader', false), v('grader', true, 0), v('grader', false, 1), v('verifier', true), v('verifier', true, 0), v('verifier', false, 1)],
    [v('grader', true), v('verifier', false, undefined, false)],
    [v('grader', false), v('verifier', false)],
    [v('grader', false), v('verifier', true, undefined, false)],
  ];

  it('should count outcome and step calls against the grader, an unreadable call as "incorrect"', () => {
    const agreement = judgeAgreement(matches, 'verifier');
    expect(agreement.outcome).toEqual({ tp: 1, fp: 1, fn: 1, tn: 2 });
    expect(agreement.steps).toEqual({ tp: 2, fp: 0, fn: 1, tn: 1 });
    expect(agreement.judged).toBe(9);
    expect(agreement.readable).toBe(7);
  });

  it('should score each match as ProcessBench does: the first wrong step found on erroneous work, no step flagged on correct work', () => {
    // 1: correct steps, the verifier flags step 1: wrong. 2: first wrong step 1, flagged 1: right. 3: correct, unreadable:
    // wrong. 4 (no step labels): erroneous, called "incorrect": right. 5 (no step labels): erroneous, unreadable: an
    // unreadable verdict finds no error, so wrong, though the outcome counts above take it as "incorrect".
    expect(judgeAgreement(matches, 'verifier').processBench).toEqual({ erroneous: 3, erroneousRight: 2, correct: 2, correctRight: 0 });
  });

  it('should report precision, recall and F1 of the outcome calls and F1 of the step calls', () => {
    expect(judgeMetrics(matches, 'verifier')).toEqual({ outcome_precision: 0.5, outcome_recall: 0.5, outcome_f1: 0.5, step_f1: 0.8, processbench_f1: 0, verdicts_readable: 7 / 9 });
    expect(judgeMetrics(matches, 'generator')).toEqual({});
  });

  it('should never score an unreadable verdict right on erroneous work without step labels, and score a readable "incorrect" right', () => {
    const unreadable = [[v('grader', false), v('verifier', false, undefined, false)]];
    const readable = [[v('grader', false), v('verifier', false)]];
    expect(judgeAgreement(unreadable, 'verifier').processBench).toEqual({ erroneous: 1, erroneousRight: 0, correct: 0, correctRight: 0 });
    expect(judgeAgreement(readable, 'verifier').processBench).toEqual({ erroneous: 1, erroneousRight: 1, correct: 0, correctRight: 0 });
  });

  it('should give ProcessBench F1 as the harmonic mean of the two accuracies: 3/4 and 1/2 give 0.6', () => {
    expect(processBenchF1({ erroneous: 4, erroneousRight: 3, correct: 2, correctRight: 1 })).toBeCloseTo(0.6, 15);
    expect(processBenchF1({ erroneous: 4, erroneousRight: 3, correct: 0, correctRight: 0 })).toBeNull();
  });

  it('should leave precision, recall and F1 undefined (null) when they have no positive to count', () => {
    const none = { tp: 0, fp: 0, fn: 0, tn: 3 };
    expect([precision(none), recall(none), f1(none)]).toEqual([null, null, null]);
  });
});
