import type { AdvantageResult } from './estimator.ts';
import { mean, perGroup } from './group-stats.ts';

/** Dr. GRPO (Liu et al., 2025): A_i = r_i − mean(group), no division by the std; zero-variance groups get 0. */
export function drGrpo(groups: readonly (readonly number[])[]): AdvantageResult {
  return perGroup('dr-grpo', groups, (group) => {
    const m = mean(group);
    return group.map((reward) => reward - m);
  });
}
