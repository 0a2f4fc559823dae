import { EVAL_REPORT_VERSION, type EvalReport, type HandoffResult } from '../../../lab/eval/report-types.ts';

const e = (value: number, se: number) => ({ value, se });

/** A hand-made report on one benchmark with every axis filled; `scale` shifts its numbers so models differ. */
export function fixtureReport(model: string, scale: number, overrides: Partial<EvalReport> = {}): EvalReport {
  const handoff = (variant: HandoffResult['variant']): HandoffResult => ({
    variant,
    p: 0.5,
    samples: 4,
    boundary_tokens: 3,
    per_benchmark: { arithmetic: { pass_at_k: { '1': e(0.3 * scale, 0.05), '2': e(0.4 * scale, 0.05) }, senior_share: { mean: 0.5, std: 0.07 }, handoffs_per_rollout: 2.5, answer_present_rate: 0.9 } },
    macro: { pass_at_k: { '1': e(0.3 * scale, 0.05), '2': e(0.4 * scale, 0.05) }, senior_share: { mean: 0.5, std: 0.07 }, handoffs_per_rollout: 2.5 },
  });
  return {
    version: EVAL_REPORT_VERSION,
    model,
    junior: 'default:arithmetic',
    benchmarks: [{ name: 'arithmetic', split: 'test', problems: 10 }],
    capability: {
      samples: 4,
      per_benchmark: { arithmetic: { pass_at_k: { '1': e(0.43 * scale, 0.021), '2': e(0.5 * scale, 0.02), '4': e(0.6 * scale, 0.03) }, answer_present_rate: 0.95, mean_response_tokens: 61.25 } },
      macro: { pass_at_k: { '1': e(0.43 * scale, 0.021), '2': e(0.5 * scale, 0.02), '4': e(0.6 * scale, 0.03) } },
    },
    handoff: [handoff('alternate'), handoff('bernoulli')],
    drift: {
      smoothing: 0.5,
      tokens: { model: 1000, junior: 1000 },
      kl: e(0.0123 * scale, 0.001),
      min_junior_count: 5,
      log_ratio: [{ id: 7, text: ' the', log_ratio: 0.4 * scale }],
      survival: [{ threshold: 0, fraction: 1 }, { threshold: 0.5, fraction: 0.5 * scale }, { threshold: 1, fraction: 0.1 }],
      over_emitted: [
        { id: 7, text: ' the', model_count: 40, junior_count: 20, log_ratio: 0.69 },
        { id: 9, text: 'a|b\n', model_count: 11, junior_count: 2, log_ratio: 1.7 },
      ],
    },
    legibility: {
      per_benchmark: { arithmetic: { cross_entropy: e(0.25 * scale, 0.01), overlap: e(0.96, 0.002), tokens: 612 } },
      macro: { cross_entropy: e(0.25 * scale, 0.01), overlap: e(0.96, 0.002) },
    },
    per_problem: [],
    config: {
      axes: ['capability', 'handoff', 'drift', 'legibility'],
      samples: 4,
      problems: 10,
      temperature: 1,
      top_p: 1,
      max_new_tokens: 96,
      batch: 16,
      ks: [1, 2, 4],
      bootstrap: 10000,
      handoff_variants: ['alternate', 'bernoulli'],
      handoff_p: 0.5,
      displaced_top: 500,
      over_emitted_top: 20,
      drift_smoothing: 0.5,
      drift_min_junior_count: 5,
    },
    seed: 0,
    created: '2026-11-29T00:00:00.000Z',
    wall_seconds: 12.4,
    ...overrides,
  };
}
