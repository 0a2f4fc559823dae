import type { AdvantageResult } from './estimator.ts';
import { perGroup } from './group-stats.ts';

/**
 * RLOO (Ahmadian et al., 2024): each rollout's baseline is the mean reward of the OTHER rollouts of its group,
 * A_i = r_i − (Σ_j r_j − r_i) / (n − 1). Zero-variance groups, and groups of one (no others), get 0.
 */
export function rloo(groups: readonly (readonly number[])[]): AdvantageResult {
  return perGroup('rloo', groups, (group) => {
    const total = group.reduce((sum, reward) => sum + reward, 0);
    return group.map((reward) => reward - (total - reward) / (group.length - 1));
  });
}
