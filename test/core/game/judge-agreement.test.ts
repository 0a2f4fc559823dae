import { describe, expect, it } from 'vitest';
import { judgeAgreement, judgeMetrics } from '../../../core/game/judge-agreement.ts';
import type { MatchVerdict } from '../../../core/game/rewards.ts';
import { f1, precision, recall } from '../../../core/metrics/binary-f1.ts';

const v = (judge: string, correct: boolean, step?: number, answer_present = true): MatchVerdict => ({ role: 'generator', judge, turn: 0, ...(step === undefined ? {} : { step }), answer_present, correct });

describe('judgeAgreement', () => {
  // Match 1: a right solution the verifier calls right (TP); steps right, right / judged right, wrong.
  // Match 2: a wrong solution called right (FP); steps right, wrong / judged right, wrong.
  // Match 3: a right solution with no readable verdict: counted as the wrong call (FN).
  // Match 4: a wrong solution called wrong (TN).
  const matches = [
    [v('grader', true), v('grader', true, 0), v('grader', true, 1), v('verifier', true), v('verifier', true, 0), v('verifier', false, 1)],
    [v('grader', false), v('grader', true, 0), v('grader', false, 1), v('verifier', true), v('verifier', true, 0), v('verifier', false, 1)],
    [v('grader', true), v('verifier', false, undefined, false)],
    [v('grader', false), v('verifier', false)],
  ];

  it('should count outcome and step calls against the grader, an unreadable call as wrong', () => {
    const agreement = judgeAgreement(matches, 'verifier');
    expect(agreement.outcome).toEqual({ tp: 1, fp: 1, fn: 1, tn: 1 });
    expect(agreement.steps).toEqual({ tp: 2, fp: 0, fn: 1, tn: 1 });
    expect(agreement.judged).toBe(8);
    expect(agreement.readable).toBe(7);
  });

  it('should report precision, recall and F1 of the outcome calls and F1 of the step calls', () => {
    expect(judgeMetrics(matches, 'verifier')).toEqual({ outcome_precision: 0.5, outcome_recall: 0.5, outcome_f1: 0.5, step_f1: 0.8, verdicts_readable: 7 / 8 });
    expect(judgeMetrics(matches, 'generator')).toEqual({});
  });

  it('should leave precision, recall and F1 undefined (null) when they have no positive to count', () => {
    const none = { tp: 0, fp: 0, fn: 0, tn: 3 };
    expect([precision(none), recall(none), f1(none)]).toEqual([null, null, null]);
  });
});
