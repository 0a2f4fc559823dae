import { describe, expect, it } from 'vitest';
import { compareVerifiers, randomJudgeF1, summarizeVerifierComparison } from '../../cli/verifier-axis.ts';
import type { VerifierEvalResult } from '../../lab/eval/verifier-eval.ts';

describe('randomJudgeF1 (the chance line printed beside a verifier\'s outcome F1)', () => {
  it('should be 2aq / (a + q) for a share a of solutions right and a share q called right (hand-computed)', () => {
    // The shipped judging base's counts: 52 of 256 right, 215 called right: 2 · 52 · 215 / (256 · 267) = 22360 / 68352.
    expect(randomJudgeF1({ tp: 41, fp: 174, fn: 11, tn: 30 })).toBeCloseTo(22360 / 68352, 12);
    // Half right, all called right: precision 1/2, recall 1, F1 2/3.
    expect(randomJudgeF1({ tp: 5, fp: 5, fn: 0, tn: 0 })).toBeCloseTo(2 / 3, 12);
  });

  it('should be 0 where nothing is right or nothing is called right, and undefined (null) with no verdict counted', () => {
    expect(randomJudgeF1({ tp: 0, fp: 0, fn: 0, tn: 8 })).toBe(0);
    expect(randomJudgeF1({ tp: 0, fp: 0, fn: 3, tn: 5 })).toBe(0);
    expect(randomJudgeF1({ tp: 0, fp: 0, fn: 0, tn: 0 })).toBeNull();
  });
});

/** A verifier result carrying only what the comparison reads: per-problem accuracies. */
function judged(outcome: readonly number[], step: readonly (number | null)[]): VerifierEvalResult {
  return { per_problem: outcome.map((o, i) => ({ id: `p${i}`, outcome_accuracy: o, step_accuracy: step[i], solution_accuracy: 0.5 })) } as unknown as VerifierEvalResult;
}

describe('compareVerifiers (ludus eval --axes verifier --compare)', () => {
  it('should pair the problems, decide by the exact sign test where few differ, and Holm-correct both metrics (hand-computed)', () => {
    // Outcome: higher on 6 problems, lower on none, 2 ties: one-sided sign test p = 2^-6 = 0.015625.
    // Step: higher on 3, lower on 1, one problem without step verdicts: p = P(X >= 3 | n = 4) = 5/16 = 0.3125.
    const model = judged([1, 1, 1, 1, 1, 1, 1, 0], [1, 1, 1, 0, null, 1, 1, 1]);
    const other = judged([0, 0, 0, 0, 0, 0, 1, 0], [0, 0, 0, 1, 1, 1, 1, 1]);
    const tests = compareVerifiers({ arithmetic: model }, { arithmetic: other });
    expect(tests.map((t) => [t.metric, t.decided_by, t.sign?.wins, t.sign?.losses, t.family])).toEqual([
      ['outcome accuracy', 'sign test', 6, 0, 2],
      ['step accuracy', 'sign test', 3, 1, 2],
    ]);
    expect(tests[0].p_test).toBeCloseTo(1 / 64, 12);
    expect(tests[1].p_test).toBeCloseTo(5 / 16, 12);
    // Holm: the smaller p times 2, the larger times 1 (and no smaller than the first).
    expect(tests.map((t) => t.p_holm)).toEqual([2 / 64, 5 / 16]);
    const text = summarizeVerifierComparison('TRAINED', 'BASE', tests);
    expect(text).toContain('Holm over a family of 2');
    expect(text).toMatch(/outcome accuracy: Δ \+0\.750 \(6 problems higher, 0 lower; sign test p 0\.0156, Holm 0\.0313: significant\)/);
    expect(text).toMatch(/step accuracy: .*: not significant\)/);
  });
});
