import { fail } from '../errors.ts';
import type { AdvantageContext, AdvantageEstimator, RolloutRewards } from './estimator.ts';
import { hasNoVariance, mean, std } from './group-stats.ts';

export interface StepBlendOptions {
  /** α at this estimate, from the run's position (Tango's schedule over the generator's updates). */
  readonly alpha: (context: AdvantageContext) => number;
  /**
   * Over what the step rewards are normalised: each group's steps together (§3.2, Eq. 5–6, GRPO and RLOO) or the whole
   * batch's (ours for the batch-baselined REINFORCE++, whose outcome advantages are batch-whitened too).
   */
  readonly normalization: 'group' | 'batch';
  /** Added to the standard deviation (as GRPO's). */
  readonly eps?: number;
  /** n − 1 in the standard deviation (torch.std), as GRPO's. */
  readonly unbiased?: boolean;
}

/**
 * Step advantages per token (§3.2, Eq. 5–6): the step rewards of the scope (a group, or the batch) are normalised
 * together, (r − mean)/(std + eps), and each token gets the sum of the normalised rewards of the steps that end at or
 * after it. Rollouts without step rewards get 0 on every token; so does a scope with fewer than two step rewards or no
 * spread among them.
 */
export function stepAdvantages(groups: readonly (readonly RolloutRewards[])[], options: Pick<StepBlendOptions, 'normalization' | 'eps' | 'unbiased'>): number[][][] {
  const eps = options.eps ?? 1e-6;
  const unbiased = options.unbiased ?? true;
  groups.forEach((group, g) => group.forEach((rollout, i) => checkSteps(rollout, g, i)));
  const scopes = options.normalization === 'batch' ? [groups.flat()] : groups;
  const stats = new Map<RolloutRewards, { m: number; s: number } | undefined>();
  for (const scope of scopes) {
    const values = scope.flatMap((rollout) => rollout.steps.map((step) => step.value));
    const flat = hasNoVariance(values) ? undefined : { m: mean(values), s: std(values, unbiased) };
    for (const rollout of scope) stats.set(rollout, flat);
  }
  return groups.map((group) =>
    group.map((rollout) => {
      const perToken = new Array<number>(rollout.tokens).fill(0);
      const norm = stats.get(rollout);
      if (!norm || rollout.steps.length === 0) return perToken;
      const byEnd = [...rollout.steps].sort((a, b) => b.position - a.position);
      let suffix = 0;
      let next = 0;
      for (let t = rollout.tokens - 1; t >= 0; t--) {
        while (next < byEnd.length && byEnd[next].position >= t) suffix += (byEnd[next++].value - norm.m) / (norm.s + eps);
        perToken[t] = suffix;
      }
      return perToken;
    }),
  );
}

function checkSteps(rollout: RolloutRewards, group: number, index: number): void {
  for (const step of rollout.steps) {
    if (!(Number.isInteger(step.position) && step.position >= 0 && step.position < rollout.tokens)) {
      fail('INPUT_INVALID', `step reward at position ${step.position} of rollout ${index} in group ${group} lies outside its ${rollout.tokens} tokens`, { group, index, position: step.position });
    }
    if (!Number.isFinite(step.value)) fail('NON_FINITE', `step reward ${step.value} of rollout ${index} in group ${group}`, { group, index });
  }
}

/**
 * Tango's generator advantages (§3.2, Eq. 7): the base estimator's outcome advantages and the step advantages, each
 * normalised on its own, blended per token as (1 − α)·A_out + α·A_step. Works over any outcome estimator (GRPO, RLOO,
 * REINFORCE++); what the base drops stays dropped, its state and zero-variance count pass through. Metrics: `alpha`
 * and `step_rewarded`, the share of rollouts that carried step rewards.
 */
export function blendStepAdvantages<State>(base: AdvantageEstimator<State>, options: StepBlendOptions): AdvantageEstimator<State> {
  return {
    name: `${base.name}+tango-steps`,
    initialState: base.initialState,
    estimate: (groups, context, state) => {
      const alpha = options.alpha(context);
      if (!(alpha >= 0 && alpha <= 1)) fail('CONFIG_INVALID', `tango blend: α must lie in [0, 1], got ${alpha}`, { alpha });
      const { result, state: next } = base.estimate(groups, context, state);
      const steps = stepAdvantages(groups, options);
      const advantages = groups.map((group, g) =>
        group.map((rollout, i) => {
          const outcome = result.advantages[g][i];
          return steps[g][i].map((step, t) => (1 - alpha) * (typeof outcome === 'number' ? outcome : outcome[t]) + alpha * step);
        }),
      );
      const rollouts = groups.flat();
      const rewarded = rollouts.filter((rollout) => rollout.steps.length > 0).length;
      return {
        result: { ...result, advantages, metrics: { ...result.metrics, alpha, step_rewarded: rollouts.length === 0 ? 0 : rewarded / rollouts.length } },
        state: next,
      };
    },
  };
}
