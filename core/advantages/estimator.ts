/** Advantages for groups of rollouts of the same prompt: `advantages[g][i]` belongs to reward `groups[g][i]`. */
export interface AdvantageResult {
  readonly advantages: number[][];
  /**
   * Groups whose rewards are all equal (or that hold one rollout): no within-group signal. Every group-baselined
   * estimator gives them advantage 0; batch-baselined REINFORCE++ counts them but keeps their batch-whitened return.
   */
  readonly zeroVarianceGroups: number;
}

/** Outcome rewards grouped by prompt → per-rollout advantages (GRPO, Dr. GRPO, RLOO, REINFORCE++). */
export type GroupAdvantages = (groups: readonly (readonly number[])[]) => AdvantageResult;

/** A reward at one token of a role's trajectory (the last token of a reasoning step, in Tango). */
export interface StepReward {
  /** Index into the role's response tokens in this match, its turns concatenated in order. */
  readonly position: number;
  readonly value: number;
}

/** One rollout of a group, as an estimator sees it: what the role earned in one match. */
export interface RolloutRewards {
  readonly outcome: number;
  /** How many response tokens the role wrote in the match (all its turns). */
  readonly tokens: number;
  readonly steps: readonly StepReward[];
  /** Numbers the reward rule attached to the role's rollout (Tango: whether the judged solution was correct). */
  readonly labels: Readonly<Record<string, number>>;
}

/** Where in the run the estimate is made: for schedules (Tango's α) and per-role state. */
export interface AdvantageContext {
  readonly role: string;
  /** The optimizer step, from 0. */
  readonly step: number;
  readonly totalSteps: number;
}

export interface Advantages {
  /** Per group, per rollout: one advantage for all its tokens, or one per token (`tokens` long). */
  readonly advantages: readonly (readonly (number | readonly number[])[])[];
  /**
   * Per group, per rollout: true where the rollout leaves the loss and its normalisation (Agon drops zero-variance
   * groups). Distinct from an advantage of 0, which still counts in a token-mean's denominator. Absent: none.
   */
  readonly dropped?: readonly (readonly boolean[])[];
  readonly zeroVarianceGroups: number;
  /** Extra numbers for the run's metrics (Tango: α, class weights). */
  readonly metrics?: Readonly<Record<string, number>>;
}

/**
 * The advantage contract of the trainer: groups of rollouts of one role (with outcome and step rewards) → per-token
 * advantages, possibly dropping rollouts. `State` is plain JSON carried from step to step and checkpointed with the
 * run (Tango's EMA of class counts); a stateless estimator keeps `null`.
 */
// biome-ignore lint/suspicious/noExplicitAny: State is read and written by estimate, so no narrower default admits every estimator.
export interface AdvantageEstimator<State = any> {
  readonly name: string;
  readonly initialState: () => State;
  readonly estimate: (groups: readonly (readonly RolloutRewards[])[], context: AdvantageContext, state: State) => { readonly result: Advantages; readonly state: State };
}

/** An outcome-only estimator as the trainer's contract: advantages from the outcome rewards, no state, nothing dropped. */
export function fromGroupAdvantages(name: string, advantages: GroupAdvantages): AdvantageEstimator<null> {
  return {
    name,
    initialState: () => null,
    estimate: (groups) => ({ result: advantages(groups.map((group) => group.map((rollout) => rollout.outcome))), state: null }),
  };
}
