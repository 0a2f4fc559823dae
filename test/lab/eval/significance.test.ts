import { describe, expect, it } from 'vitest';
import { compareReports } from '../../../lab/eval/significance.ts';
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
