import { describe, expect, it } from 'vitest';
import { compareReports, correctFamily, EXACT_TEST_BELOW, pairedTest, seedLevelTest } from '../../../lab/eval/significance.ts';
import { EVAL_REPORT_VERSION, type EvalReport, type ProblemStats } from '../../../lab/eval/report-types.ts';
import { LudusError } from '../../../core/errors.ts';

function report(model: string, perProblem: ProblemStats[]): EvalReport {
  return {
    version: EVAL_REPORT_VERSION,
    model,
    benchmarks: [{ name: 'b', split: 'test', problems: perProblem.length }],
    capability: { samples: 4, per_benchmark: {}, macro: { pass_at_k: {} } },
    per_problem: perProblem,
    config: {
      axes: ['capability', 'legibility'],
      samples: 4,
      problems: perProblem.length,
      temperature: 1,
      top_p: 1,
      max_new_tokens: 8,
      batch: 4,
      ks: [1, 2, 4],
      bootstrap: 10,
      handoff_variants: ['alternate'],
      handoff_p: 0.5,
      displaced_top: 500,
      over_emitted_top: 20,
      drift_smoothing: 0.5,
      drift_min_junior_count: 5,
    },
    seed: 0,
    created: '',
    wall_seconds: 0,
  };
}

const stats = (id: string, correct: number, ce: number) => ({ benchmark: 'b', id, capability_correct: correct, cross_entropy: ce });

describe('compareReports', () => {
  // Model correct 4, 3, 2 of 4 against 2, 2, 1 (listed in another order): pass@1 differences 1/2, 1/4, 1/4,
  // mean 1/3, sd sqrt(1/48), t = 4 on 2 df, one-sided p = 1/2 - (4/sqrt(18))/2 by the df-2 closed form.
  const model = report('trl', [stats('p0', 4, 0.5), stats('p1', 3, 0.4), stats('p2', 2, 0.6)]);
  const other = report('grpo', [stats('p2', 1, 0.7), stats('p0', 2, 0.6), stats('p1', 2, 0.6)]);
  const result = compareReports(model, other);
  const get = (metric: string) => result.tests.find((t) => t.metric === metric)!;

  it('should pair per-problem pass@1 by problem id and test it one-sided, greater', () => {
    expect(result.other).toBe('grpo');
    const t = get('capability pass@1');
    expect(t.alternative).toBe('greater');
    expect(t.n).toBe(3);
    expect(t.mean_diff).toBeCloseTo(1 / 3, 12);
    expect(t.statistic!).toBeCloseTo(4, 10);
    expect(t.df).toBe(2);
    expect(t.p).toBeCloseTo(0.5 - 4 / Math.sqrt(18) / 2, 8);
  });

  it('should test cross-entropy as lower-is-better: differences -0.1, -0.2, -0.1 give t = -4', () => {
    const t = get('legibility cross_entropy');
    expect(t.alternative).toBe('less');
    expect(t.statistic!).toBeCloseTo(-4, 8);
    expect(t.p).toBeCloseTo(0.5 - 4 / Math.sqrt(18) / 2, 8);
  });

  it('should report pass@4, where both always succeed, as zero variance with p = 1', () => {
    expect(get('capability pass@4')).toMatchObject({ statistic: null, p: 1, mean_diff: 0 });
  });

  it('should leave out metrics a report lacks and refuse reports with under two shared problems', () => {
    expect(result.tests.some((t) => t.metric.startsWith('handoff') || t.metric === 'legibility overlap')).toBe(false);
    expect(() => compareReports(model, report('x', [stats('q0', 1, 0.1), stats('q1', 1, 0.1)]))).toThrow(LudusError);
  });
});

describe('pairedTest', () => {
  describe('having 3 of 100 problems solved by one side only, all by the model (TRL against GRPO at pass@8)', () => {
    const model = Array.from({ length: 100 }, (_, i) => (i < 91 ? 1 : 0));
    const other = Array.from({ length: 100 }, (_, i) => (i < 88 ? 1 : 0));
    const test = pairedTest('handoff word pass@8', 'greater', model, other);

    it('should keep the t-test p (0.042) beside the exact sign test, and let the exact test (0.125) decide', () => {
      expect(test.p).toBeCloseTo(0.0417, 3);
      expect(test.sign).toEqual({ wins: 3, losses: 0, p: 0.125 });
      expect(test.decided_by).toBe('sign test');
      expect(test.p_test).toBe(0.125);
    });
  });

  describe(`having ${EXACT_TEST_BELOW} or more problems that differ`, () => {
    it('should let the t-test decide', () => {
      const model = Array.from({ length: 60 }, (_, i) => (i < 40 ? 1 : 0));
      const other = Array.from({ length: 60 }, (_, i) => (i < 40 ? 0 : i < 50 ? 1 : 0));
      const test = pairedTest('pass@1', 'greater', model, other);
      expect(test.sign).toMatchObject({ wins: 40, losses: 10 });
      expect(test.decided_by).toBe('t-test');
      expect(test.p_test).toBe(test.p);
    });
  });
});

describe('correctFamily', () => {
  it('should Holm-correct the deciding p-values of every test together and give each the family size', () => {
    const base = { alternative: 'greater' as const, mean_diff: 0, statistic: null, df: 1, n: 2 };
    const corrected = correctFamily([
      { ...base, metric: 'a', p: 0.2, p_test: 0.01 },
      { ...base, metric: 'b', p: 0.04 },
      { ...base, metric: 'c', p: 0.03, p_test: 0.03 },
    ]);
    // Sorted 0.01 · 3 = 0.03, 0.03 · 2 = 0.06, 0.04 · 1 → raised to 0.06; a test without p_test is decided by its t-test p.
    expect(corrected.map((t) => t.p_holm)).toEqual([0.03, 0.06, 0.06].map((x) => expect.closeTo(x, 12)));
    expect(corrected.map((t) => t.family)).toEqual([3, 3, 3]);
    expect(corrected[1].p_test).toBe(0.04);
  });

  it('should keep untested members of a fixed family at p = 1: two tests in a family of four', () => {
    const base = { alternative: 'greater' as const, mean_diff: 0, statistic: null, df: 1, n: 2 };
    const corrected = correctFamily([{ ...base, metric: 'a', p: 0.01 }, { ...base, metric: 'b', p: 0.02 }], 2);
    // Sorted 0.01 · 4 = 0.04, 0.02 · 3 = 0.06; the two untested at 1 come last.
    expect(corrected.map((t) => t.p_holm)).toEqual([0.04, 0.06].map((x) => expect.closeTo(x, 12)));
    expect(corrected.map((t) => t.family)).toEqual([4, 4]);
  });
});

describe('seedLevelTest', () => {
  // With df = 2 Student's t has a closed form: P(T > t) = (1 − t / √(t² + 2)) / 2.
  describe('having three seeds whose differences are +2, +10 and −2 points (the fixed verifier against GRPO)', () => {
    it('should give t = 0.945 and the one-sided p (1 − 5/9) / 2 = 2/9 across seeds, with 2 of 3 seeds higher (sign p 4/8)', () => {
      const test = seedLevelTest('pass@1', 'greater', [0.92, 0.9, 0.9], [0.9, 0.8, 0.92]);
      // Mean 10/3 points, sample variance 112/3, SE √(112/9): t² = (100/9) / (112/9) = 100/112, t / √(t² + 2) = 10/18.
      expect(test.n).toBe(3);
      expect(test.df).toBe(2);
      expect(test.mean_diff).toBeCloseTo(1 / 30, 12);
      expect(test.statistic).toBeCloseTo(Math.sqrt(100 / 112), 10);
      expect(test.p).toBeCloseTo(2 / 9, 10);
      expect(test.sign).toEqual({ wins: 2, losses: 1, p: 0.5 });
      expect(test.decided_by).toBe('t-test');
      expect(test.p_test).toBe(test.p);
    });
  });

  describe('having three seeds at +27, −32 and +32 points (Agon against the base → base cascade)', () => {
    it('should give p = (1 − √(243/2777)) / 2 = 0.352, far from the pooled test of the same models', () => {
      const test = seedLevelTest('pass@1', 'greater', [0.77, 0.38, 0.72], [0.5, 0.7, 0.4]);
      // Mean 9, deviations 18, −41, 23: variance 2534/2; t² = 81 / (1267/3) = 243/1267, t² + 2 = 2777/1267.
      expect(test.p).toBeCloseTo((1 - Math.sqrt(243 / 2777)) / 2, 10);
      expect(test.sign).toEqual({ wins: 2, losses: 1, p: 0.5 });
    });
  });

  describe('having five seeds, every one higher', () => {
    it('should give the exact sign test across seeds its floor 1/32, and the t-test its own p', () => {
      const test = seedLevelTest('pass@1', 'greater', [0.5, 0.6, 0.7, 0.8, 0.9], [0.4, 0.4, 0.4, 0.4, 0.4]);
      // Differences 0.1 … 0.5: mean 0.3, sample variance 0.025, t = 0.3 / √(0.025 / 5) = 4.243 on 4 df.
      expect(test.sign).toEqual({ wins: 5, losses: 0, p: 1 / 32 });
      expect(test.statistic).toBeCloseTo(0.3 / Math.sqrt(0.025 / 5), 10);
      expect(test.p).toBeLessThan(0.01);
    });
  });

  describe('having every seed differ by the same amount', () => {
    it('should let the sign test across seeds decide, since the t statistic is undefined: 3 of 3 gives 1/8', () => {
      const test = seedLevelTest('pass@1', 'greater', [0.6, 0.7, 0.8], [0.5, 0.6, 0.7]);
      expect(test.statistic).toBeNull();
      expect(test.decided_by).toBe('sign test');
      expect(test.p_test).toBe(0.125);
    });
  });

  it('should refuse a single seed', () => {
    expect(() => seedLevelTest('pass@1', 'greater', [0.5], [0.4])).toThrow(LudusError);
  });
});
