/** Advantages for groups of rollouts of the same prompt: `advantages[g][i]` belongs to reward `groups[g][i]`. */
export interface AdvantageResult {
  readonly advantages: number[][];
  /**
   * Groups whose rewards are all equal (or that hold one rollout): no within-group signal. Every group-baselined
   * estimator gives them advantage 0; batch-baselined REINFORCE++ counts them but keeps their batch-whitened return.
   */
  readonly zeroVarianceGroups: number;
}

/** Outcome rewards grouped by prompt → per-rollout advantages. */
export type AdvantageEstimator = (groups: readonly (readonly number[])[]) => AdvantageResult;
