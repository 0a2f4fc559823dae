import type { AdvantageEstimator } from './estimator.ts';
import { hasNoVariance } from './group-stats.ts';

/**
 * Agon's handling of groups without signal: a group whose outcome rewards are all equal leaves the loss and its
 * normalisation altogether, where GRPO keeps it with advantage 0 (its tokens still count in a token-mean).
 */
export function dropZeroVarianceGroups<State>(base: AdvantageEstimator<State>): AdvantageEstimator<State> {
  return {
    name: `${base.name}+drop-zero-variance`,
    initialState: base.initialState,
    estimate: (groups, context, state) => {
      const { result, state: next } = base.estimate(groups, context, state);
      const dropped = groups.map((group, g) => {
        const flat = hasNoVariance(group.map((rollout) => rollout.outcome));
        return group.map((_, i) => flat || (result.dropped?.[g]?.[i] ?? false));
      });
      return { result: { ...result, dropped }, state: next };
    },
  };
}
