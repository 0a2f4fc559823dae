import type { Device } from '../../native/ort.ts';
import type { AdvantageEstimator } from '../../core/advantages/estimator.ts';
import type { AnyGame } from '../../core/catalog.ts';
import type { Policy } from '../../native/runtime/policy.ts';
import type { AdamWState } from '../../native/train/adamw.ts';
import { fail } from '../../core/errors.ts';
import { Learner } from '../../native/train/learner.ts';
import type { LearnerConfigInput } from '../../native/train/learner-config.ts';
import type { TrainerServerConfig } from '../remote/remote-config.ts';
import { RemoteLearner } from '../remote/remote-learner.ts';
import type { PolicyLearner } from './learn-policy.ts';
import { NonFiniteGuard } from './non-finite-guard.ts';
import type { LearnerSettings } from './policy-plan.ts';

export interface PolicyLearnerOptions {
  /** The sampling temperature: the learner recomputes log-probabilities at it. */
  readonly temperature: number;
  readonly threads?: number;
  readonly device?: Device;
  /** Rows per forward+backward run (the whole batch in one when absent). */
  readonly microBatchRows?: number;
  /** The run budget of an in-process learner (LearnerConfig.runBudgetBytes); a trainer server chooses its own. */
  readonly runBudgetBytes?: number;
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

/** A policy learning in-process: its learner is the ORT learner itself. */
export interface LocalPolicyLearner extends PolicyLearner {
  readonly learner: Learner;
}

/** Where a policy trained through a trainer API starts: its base as the server finds it, and its adapter's seed. */
export interface RemoteStart {
  readonly server: TrainerServerConfig;
  readonly baseModel: string;
  readonly task: string;
  readonly adapterSeed?: number;
  /** Keep the trained weights on the server (remote rollouts; RemoteLearnerRequest.keep). */
  readonly keep?: { readonly checkpoint?: string };
}

/** A trainable policy's learner: clipped policy gradient with AdamW on the policy's weights (updated in place), guarded against non-finite steps. */
export async function createPolicyLearner(policy: Policy, settings: LearnerSettings, options: PolicyLearnerOptions): Promise<LocalPolicyLearner> {
  const learner = await Learner.create(
    policy.config,
    policy.weights,
    { ...learnerConfig(settings, options), ...(options.runBudgetBytes ? { runBudgetBytes: options.runBudgetBytes } : {}) },
    options.klReference?.weights,
  );
  if (options.optimizer) learner.loadOptimizerState(options.optimizer);
  return { name: policy.name, learner, guard: guardOf(options) };
}

/** The policy's learner in-process, or on a trainer server when `remote` names one (the trainer cannot tell them apart). */
export async function openPolicyLearner(policy: Policy, settings: LearnerSettings, options: PolicyLearnerOptions, remote: RemoteStart | undefined): Promise<PolicyLearner> {
  if (!remote) return createPolicyLearner(policy, settings, options);
  if (options.klReference) {
    fail('CONFIG_INVALID', `trainerServer: policy "${policy.name}" has an exact KL term, which reads a reference model inside the learner's graph; the trainer API carries per-token reference log-probabilities only (use the k3 estimator)`, { field: 'trainerServer', policy: policy.name });
  }
  const learner = await RemoteLearner.open(remote.server, {
    policy,
    baseModel: remote.baseModel,
    task: remote.task,
    ...(remote.adapterSeed !== undefined ? { adapterSeed: remote.adapterSeed } : {}),
    learner: learnerConfig(settings, options),
    ...(options.optimizer ? { optimizer: options.optimizer } : {}),
    ...(remote.keep ? { keep: remote.keep } : {}),
  });
  return { name: policy.name, learner, guard: guardOf(options) };
}

function learnerConfig(settings: LearnerSettings, options: PolicyLearnerOptions): LearnerConfigInput {
  return {
    objective: 'policy-gradient',
    optimizer: { lr: settings.schedule.lr, weightDecay: settings.weightDecay, maxGradNorm: settings.maxGradNorm },
    clipLow: settings.clipLow,
    clipHigh: settings.clipHigh,
    temperature: options.temperature,
    normalization: settings.normalization,
    entropyCoef: options.entropyCoef ?? 0,
    threads: options.threads ?? 0,
    ...(options.device && options.device !== 'cpu' ? { device: options.device } : {}),
    ...(options.microBatchRows ? { microBatchRows: options.microBatchRows } : {}),
    ...(options.klReference ? { klEstimator: 'exact' as const } : {}),
  };
}

function guardOf(options: PolicyLearnerOptions): NonFiniteGuard {
  const counts = options.nonFinite ?? { consecutive: 0, skipped: 0 };
  return new NonFiniteGuard(options.maxConsecutiveNonFinite, counts.consecutive, counts.skipped);
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
