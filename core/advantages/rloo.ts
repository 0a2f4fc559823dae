import type { AdvantageResult } from './estimator.ts';
import { checkGroups, hasNoVariance } from './group-stats.ts';

/**
 * RLOO (Ahmadian et al., 2024): each rollout's baseline is the mean reward of the OTHER rollouts of its group,
 * A_i = r_i − (Σ_j r_j − r_i) / (n − 1). Zero-variance groups, and groups of one (no others), get 0.
 */
export function rloo(groups: readonly (readonly number[])[]): AdvantageResult {
  checkGroups('rloo', groups);
  let zeroVarianceGroups = 0;
  const advantages = groups.map((group) => {
    if (hasNoVariance(group)) {
      zeroVarianceGroups++;
      return group.map(() => 0);
    }
    const total = group.reduce((sum, reward) => sum + reward, 0);
    return group.map((reward) => reward - (total - reward) / (group.length - 1));
  });
  return { advantages, zeroVarianceGroups };
}
