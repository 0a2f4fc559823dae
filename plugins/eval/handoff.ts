import type { ScheduleSpec } from '../../core/schedules/spec.ts';
import type { GradedRollout } from './sample-rollouts.ts';
import type { HandoffVariant, ShareStats } from './report-types.ts';

/**
 * The reasoning-step handoff schedule of tandem RL §4.3 (`alternate`: strict round-robin at every `\n\n` step end)
 * and appendix B.3 (`bernoulli`: a Bernoulli(p) draw at every step end). Author 0 is the senior (the evaluated
 * model), author 1 the junior; the first author is drawn by Bernoulli(p) in both variants, so with p = 0.5 neither
 * model always opens.
 */
export function stepHandoffSchedule(variant: HandoffVariant, p: number, boundary: readonly number[]): (seed: number) => ScheduleSpec {
  return (seed) => ({ kind: 'step', mode: variant, p, seed, boundary: [...boundary] });
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
