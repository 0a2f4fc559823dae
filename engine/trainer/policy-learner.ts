import type { AdvantageEstimator } from '../../core/advantages/estimator.ts';
import type { AnyGame } from '../../core/catalog.ts';
import type { Policy } from '../../native/runtime/policy.ts';
import type { AdamWState } from '../../native/train/adamw.ts';
import { Learner } from '../../native/train/learner.ts';
import type { PolicyLearner } from './learn-policy.ts';
import { NonFiniteGuard } from './non-finite-guard.ts';
import type { LearnerSettings } from './policy-plan.ts';

export interface PolicyLearnerOptions {
  /** The sampling temperature: the learner recomputes log-probabilities at it. */
  readonly temperature: number;
  readonly threads?: number;
  /** The largest entropy bonus the policy trains with (0 when absent: the learner's graph then has no such input). */
  readonly entropyCoef?: number;
  /** Non-finite updates in a row that abort the run. */
  readonly maxConsecutiveNonFinite: number;
  /** AdamW moments to continue from (a resumed run's). */
  readonly optimizer?: AdamWState;
  /** The reference an exact KL term reads (its weights, updated in place if that policy trains too). */
  readonly klReference?: Policy;
  /** Non-finite counts to continue from. */
  readonly nonFinite?: { readonly consecutive: number; readonly skipped: number };
}

/** A trainable policy's learner: clipped policy gradient with AdamW on the policy's weights (updated in place), guarded against non-finite steps. */
export async function createPolicyLearner(policy: Policy, settings: LearnerSettings, options: PolicyLearnerOptions): Promise<PolicyLearner> {
  const learner = await Learner.create(policy.config, policy.weights, {
    objective: 'policy-gradient',
    optimizer: { lr: settings.schedule.lr, weightDecay: settings.weightDecay, maxGradNorm: settings.maxGradNorm },
    clipLow: settings.clipLow,
    clipHigh: settings.clipHigh,
    temperature: options.temperature,
    normalization: settings.normalization,
    entropyCoef: options.entropyCoef ?? 0,
    threads: options.threads ?? 0,
    ...(options.klReference ? { klEstimator: 'exact' as const } : {}),
  }, options.klReference?.weights);
  if (options.optimizer) learner.loadOptimizerState(options.optimizer);
  const counts = options.nonFinite ?? { consecutive: 0, skipped: 0 };
  return { name: policy.name, learner, guard: new NonFiniteGuard(options.maxConsecutiveNonFinite, counts.consecutive, counts.skipped) };
}

/** Each role's advantage estimator: the run's base estimator, adapted by the game for that role, built once. */
export function roleEstimators(game: AnyGame, base: AdvantageEstimator): (role: string) => AdvantageEstimator {
  const estimators = new Map<string, AdvantageEstimator>();
  return (role) => {
    let estimator = estimators.get(role);
    if (!estimator) {
      estimator = game.advantages[role]?.(base) ?? base;
      estimators.set(role, estimator);
    }
    return estimator;
  };
}
