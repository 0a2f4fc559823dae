import type { AdvantageResult } from './estimator.ts';
import { checkGroups, hasNoVariance, mean, std } from './group-stats.ts';

export interface ReinforcePlusPlusOptions {
  /**
   * `batch` (REINFORCE++): returns are whitened over the whole batch, with no per-group baseline, so a group whose
   * rollouts all failed still learns from how the batch did. `group` (REINFORCE++-baseline): the group mean is
   * subtracted first, then the batch std divides; zero-variance groups get exactly 0.
   */
  readonly baseline?: 'batch' | 'group';
  readonly eps?: number;
  /** Divide by n − 1 (torch.std); population std when false. */
  readonly unbiased?: boolean;
}

/**
 * REINFORCE++ (Hu, 2025) on outcome rewards: batch-level normalization of returns. Zero-variance groups are counted
 * in both modes; a batch without variance gets 0 everywhere.
 */
export function reinforcePlusPlus(groups: readonly (readonly number[])[], options: ReinforcePlusPlusOptions = {}): AdvantageResult {
  const baseline = options.baseline ?? 'batch';
  const eps = options.eps ?? 1e-6;
  const unbiased = options.unbiased ?? true;
  checkGroups('reinforce++', groups);
  const zeroVariance = groups.map(hasNoVariance);
  const zeroVarianceGroups = zeroVariance.filter(Boolean).length;

  const returns = baseline === 'group' ? groups.map((group) => group.map((reward) => reward - mean(group))) : groups.map((group) => [...group]);
  const flat = returns.flat();
  if (hasNoVariance(flat)) return { advantages: groups.map((group) => group.map(() => 0)), zeroVarianceGroups };

  const m = mean(flat);
  const s = std(flat, unbiased);
  const advantages = returns.map((group, g) => (baseline === 'group' && zeroVariance[g] ? group.map(() => 0) : group.map((value) => (value - m) / (s + eps))));
  return { advantages, zeroVarianceGroups };
}
