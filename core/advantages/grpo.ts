import type { AdvantageResult } from './estimator.ts';
import { mean, perGroup, std } from './group-stats.ts';

export interface GrpoOptions {
  /** Added to the group's standard deviation. */
  readonly eps?: number;
  /** Divide by n − 1 (torch.std, as verl and TRL do); population std when false. */
  readonly unbiased?: boolean;
}

/** GRPO (Shao et al., 2024): A_i = (r_i − mean(group)) / (std(group) + eps); zero-variance groups get 0. */
export function grpo(groups: readonly (readonly number[])[], options: GrpoOptions = {}): AdvantageResult {
  const eps = options.eps ?? 1e-6;
  const unbiased = options.unbiased ?? true;
  return perGroup('grpo', groups, (group) => {
    const m = mean(group);
    const s = std(group, unbiased);
    return group.map((reward) => (reward - m) / (s + eps));
  });
}
