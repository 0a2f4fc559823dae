import { fail } from '../../core/errors.ts';
import type { Game } from '../../core/game/define-game.ts';
import { distinctSteps } from '../../core/game/rotations.ts';
import type { LrSchedule } from '../../native/train/lr-schedule.ts';
import type { PolicySpec } from '../policies/policy-pool.ts';
import type { LearnerSettingsInput, TrainConfig } from './train-config.ts';

/** How a trainable policy learns, every field resolved (its own setting, else the run's). */
export interface LearnerSettings {
  readonly schedule: LrSchedule;
  readonly clipLow: number;
  readonly clipHigh: number;
  readonly weightDecay: number;
  readonly maxGradNorm: number;
  readonly normalization: TrainConfig['normalization'];
}

export interface PlannedPolicy {
  readonly spec: PolicySpec;
  /** Present for trainable policies. */
  readonly learner?: LearnerSettings;
}

/**
 * The game's policy slots bound by the run config, checked before anything is loaded or written: the config names
 * only the game's policies, and a policy the rotation trains may not be frozen (nor one it never trains be trainable).
 */
export function planPolicies(game: Game, config: TrainConfig): PlannedPolicy[] {
  const known = new Set(game.policies);
  for (const name of Object.keys(config.policies)) {
    if (!known.has(name)) fail('CONFIG_INVALID', `policies: game "${game.id}" has no policy "${name}" (its policies: ${game.policies.join(', ')})`, { field: `policies.${name}`, policy: name });
  }
  const trained = new Set(distinctSteps(game.rotation).flatMap((step) => game.rotation.at(step).trains));
  return game.policies.map((name) => {
    const own = config.policies[name] ?? {};
    const rotationTrains = trained.has(name);
    if (own.trainable === false && rotationTrains) {
      fail('CONFIG_INVALID', `policies.${name}: the rotation "${game.rotation.name}" of game "${game.id}" trains "${name}", so it cannot be frozen`, { field: `policies.${name}.trainable`, policy: name });
    }
    if (own.trainable === true && !rotationTrains) {
      fail('CONFIG_INVALID', `policies.${name}: the rotation "${game.rotation.name}" of game "${game.id}" never trains "${name}"`, { field: `policies.${name}.trainable`, policy: name });
    }
    const spec: PolicySpec = { name, init: own.init ?? config.model, trainable: rotationTrains };
    if (!rotationTrains) return { spec };
    return { spec, learner: learnerSettings(own, config) };
  });
}

/** A trainable policy's learner settings: each its own where it sets one, else the run's. */
export function learnerSettings(own: LearnerSettingsInput, run: Pick<TrainConfig, 'schedule' | 'clipLow' | 'clipHigh' | 'weightDecay' | 'maxGradNorm' | 'normalization'>): LearnerSettings {
  return {
    schedule: own.schedule ?? run.schedule,
    clipLow: own.clipLow ?? run.clipLow,
    clipHigh: own.clipHigh ?? run.clipHigh,
    weightDecay: own.weightDecay ?? run.weightDecay,
    maxGradNorm: own.maxGradNorm ?? run.maxGradNorm,
    normalization: own.normalization ?? run.normalization,
  };
}
