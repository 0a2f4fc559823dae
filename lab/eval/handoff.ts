import type { ScheduleSpec } from '../../core/schedules/spec.ts';
import type { GradedRollout } from './sample-rollouts.ts';
import { perProblemMeans, problemMeanEstimates } from './problem-means.ts';
import type { HandoffBenchmark, HandoffResult, HandoffVariant, ShareStats } from './report-types.ts';

/**
 * The reasoning-step handoff schedule of tandem RL §4.3 (`alternate`: strict round-robin at every `\n\n` step end)
 * and appendix B.3 (`bernoulli`: a Bernoulli(p) draw at every step end). Author 0 is the senior (the evaluated
 * model), author 1 the junior; the first author is drawn by Bernoulli(p) in both variants, so with p = 0.5 neither
 * model always opens.
 */
export function stepHandoffSchedule(variant: Exclude<HandoffVariant, 'word'>, p: number, boundary: readonly number[]): (seed: number) => ScheduleSpec {
  return (seed) => ({ kind: 'step', mode: variant, p, seed, boundary: [...boundary] });
}

/**
 * The tandem paper's training schedule as an evaluation (§3.3, appendix A.1.2): the senior (author 0) and the junior
 * (author 1) redrawn by Bernoulli(p) at every word-initial token and after K tokens without one. The team's pass@1
 * under it is tandem accuracy.
 */
export function wordHandoffSchedule(p: number, K: number, boundary: readonly number[]): (seed: number) => ScheduleSpec {
  return (seed) => ({ kind: 'word', p, K, seed, boundary: [...boundary], senior: 0, junior: 1 });
}

/** Fraction of a rollout's tokens written by the senior (author 0); 0 for an empty rollout. */
export function seniorShare(rollout: Pick<GradedRollout, 'authors'>): number {
  if (rollout.authors.length === 0) return 0;
  return rollout.authors.filter((a) => a === 0).length / rollout.authors.length;
}

/** Author changes inside one rollout. */
export function handoffCount(rollout: Pick<GradedRollout, 'authors'>): number {
  let changes = 0;
  for (let t = 1; t < rollout.authors.length; t++) if (rollout.authors[t] !== rollout.authors[t - 1]) changes++;
  return changes;
}

/** Mean and population standard deviation. */
export function meanStd(values: readonly number[]): ShareStats {
  if (values.length === 0) return { mean: 0, std: 0 };
  const mean = values.reduce((a, v) => a + v, 0) / values.length;
  return { mean, std: Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / values.length) };
}

/** What the handoff statistics read of a team rollout. */
export type TeamRollout = Pick<GradedRollout, 'authors' | 'answerPresent'>;

/** The per-rollout statistics of the handoff axis that get a bootstrap SE (besides pass@k). */
export type TeamStatistic = 'senior_share' | 'handoffs_per_rollout' | 'answer_present_rate';

export interface TeamStats {
  per_benchmark: Record<string, Omit<HandoffBenchmark, 'pass_at_k'>>;
  macro: Omit<HandoffResult['macro'], 'pass_at_k'>;
}

/**
 * The handoff axis's per-rollout statistics of team rollouts (given per benchmark, per problem, per sample): the
 * senior's share of the tokens (mean and std over rollouts), author changes per rollout and the answer-present rate,
 * per benchmark and (share, handoffs) as a macro average over benchmarks. Every mean gets its bootstrap SE over
 * problems (per-problem means resampled; within each benchmark for the macro). `seed(statistic, b)` seeds benchmark
 * b's bootstrap of that statistic, b = -1 the macro's.
 */
export function teamStats(team: readonly (readonly (readonly TeamRollout[])[])[], names: readonly string[], resamples: number, seed: (statistic: TeamStatistic, benchmark: number) => number): TeamStats {
  const estimate = (statistic: TeamStatistic, f: (rollout: TeamRollout) => number) => problemMeanEstimates(perProblemMeans(team, f), resamples, (b) => seed(statistic, b));
  const share = estimate('senior_share', seniorShare);
  const handoffs = estimate('handoffs_per_rollout', handoffCount);
  const present = estimate('answer_present_rate', (r) => (r.answerPresent ? 1 : 0));
  const rows = names.map((_, b) => {
    const all = team[b].flat();
    return {
      senior_share: { ...meanStd(all.map(seniorShare)), mean_se: share.per_benchmark[b].se },
      handoffs_per_rollout: all.reduce((a, r) => a + handoffCount(r), 0) / all.length,
      handoffs_per_rollout_se: handoffs.per_benchmark[b].se,
      answer_present_rate: all.filter((r) => r.answerPresent).length / all.length,
      answer_present_rate_se: present.per_benchmark[b].se,
    };
  });
  return {
    per_benchmark: Object.fromEntries(names.map((name, b) => [name, rows[b]])),
    macro: {
      senior_share: { mean: meanStd(rows.map((row) => row.senior_share.mean)).mean, std: meanStd(team.flat(2).map(seniorShare)).std, mean_se: share.macro.se },
      handoffs_per_rollout: meanStd(rows.map((row) => row.handoffs_per_rollout)).mean,
      handoffs_per_rollout_se: handoffs.macro.se,
    },
  };
}
