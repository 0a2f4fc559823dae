import type { AdvantageResult } from './estimator.ts';
import { checkGroups, hasNoVariance, mean } from './group-stats.ts';

/** Dr. GRPO (Liu et al., 2025): A_i = r_i − mean(group), no division by the std; zero-variance groups get 0. */
export function drGrpo(groups: readonly (readonly number[])[]): AdvantageResult {
  checkGroups('dr-grpo', groups);
  let zeroVarianceGroups = 0;
  const advantages = groups.map((group) => {
    if (hasNoVariance(group)) {
      zeroVarianceGroups++;
      return group.map(() => 0);
    }
    const m = mean(group);
    return group.map((reward) => reward - m);
  });
  return { advantages, zeroVarianceGroups };
}
