import { fail } from '../errors.ts';
import type { AdvantageResult } from './estimator.ts';

export function mean(values: readonly number[]): number {
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
}

/** Standard deviation; `unbiased` divides by n − 1 (as torch.std does), else by n. */
export function std(values: readonly number[], unbiased: boolean): number {
  const m = mean(values);
  let sum = 0;
  for (const value of values) sum += (value - m) ** 2;
  return Math.sqrt(sum / (unbiased ? values.length - 1 : values.length));
}

/** A group with one rollout, or with every reward equal, carries no within-group signal. */
export function hasNoVariance(group: readonly number[]): boolean {
  return group.length < 2 || group.every((reward) => reward === group[0]);
}

/** Rewards must be finite numbers and groups non-empty: a NaN would poison every advantage of the batch. */
export function checkGroups(estimator: string, groups: readonly (readonly number[])[]): void {
  groups.forEach((group, g) => {
    if (group.length === 0) fail('INPUT_INVALID', `${estimator}: group ${g} is empty`, { group: g });
    group.forEach((reward, i) => {
      if (!Number.isFinite(reward)) fail('NON_FINITE', `${estimator}: reward ${i} of group ${g} is ${reward}`, { group: g, index: i });
    });
  });
}

/** Applies a group-relative estimator to each group; zero-variance groups get 0 and are counted. */
export function perGroup(estimator: string, groups: readonly (readonly number[])[], advantage: (group: readonly number[]) => number[]): AdvantageResult {
  checkGroups(estimator, groups);
  let zeroVarianceGroups = 0;
  const advantages = groups.map((group) => {
    if (!hasNoVariance(group)) return advantage(group);
    zeroVarianceGroups++;
    return group.map(() => 0);
  });
  return { advantages, zeroVarianceGroups };
}
