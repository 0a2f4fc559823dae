import { fail } from '../../core/errors.ts';
import type { Game } from '../../core/game/define-game.ts';
import { distinctSteps } from '../../core/game/rotations.ts';
import type { LrSchedule } from '../../native/train/lr-schedule.ts';
import { deriveSeed } from '../../core/rng.ts';
import type { PolicySpec } from '../policies/policy-pool.ts';
import { parseConfig } from '../../core/parse-config.ts';
import { PolicyConfigSchema, type LearnerSettingsInput, type PolicyConfig, type TrainConfig } from './train-config.ts';

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
  return game.policies.map((name, index) => {
    const own = { ...gameDefaults(game, name), ...config.policies[name] };
    const rotationTrains = trained.has(name);
    if (own.trainable === false && rotationTrains) {
      fail('CONFIG_INVALID', `policies.${name}: the rotation "${game.rotation.name}" of game "${game.id}" trains "${name}", so it cannot be frozen`, { field: `policies.${name}.trainable`, policy: name });
    }
    if (own.trainable === true && !rotationTrains) {
      fail('CONFIG_INVALID', `policies.${name}: the rotation "${game.rotation.name}" of game "${game.id}" never trains "${name}"`, { field: `policies.${name}.trainable`, policy: name });
    }
    if (own.endpoint) checkEndpointSeat(game, name, own, rotationTrains);
    const spec: PolicySpec = {
      name,
      init: own.init ?? config.model,
      trainable: rotationTrains,
      ...(own.adapter ? { adapter: { ...own.adapter, seed: own.adapter.seed ?? adapterSeed(config.seed, index) } } : {}),
      ...(own.endpoint ? { endpoint: own.endpoint } : {}),
    };
    if (!rotationTrains) return { spec };
    return { spec, learner: learnerSettings(own, config) };
  });
}

/**
 * A policy behind an endpoint answers text: it is frozen, has no weights here to start from or adapt, and cannot sit
 * where its tokens' log-probabilities are needed (a co-decoded turn, a KL term toward its seat). Each is refused by name.
 */
function checkEndpointSeat(game: Game, name: string, own: PolicyConfig, rotationTrains: boolean): void {
  const refuse = (field: string, why: string): never => fail('CONFIG_INVALID', `policies.${name}: a policy behind an endpoint ${why}`, { field: `policies.${name}.${field}`, policy: name });
  if (rotationTrains) refuse('endpoint', `is frozen, and the rotation "${game.rotation.name}" of game "${game.id}" trains "${name}"`);
  if (own.adapter) refuse('adapter', 'has no weights here to put an adapter on');
  if (own.init !== undefined) refuse('init', 'starts from no model directory (drop init)');
  const seated = distinctSteps(game.rotation).flatMap((step) => Object.entries<string>(game.rotation.at(step).seats).filter(([, policy]) => policy === name).map(([role]) => role));
  if (game.protocol.family === 'co-decoding' && seated.some((role) => (game.protocol as { authors: readonly string[] }).authors.includes(role))) {
    refuse('endpoint', `cannot co-write game "${game.id}"'s turns token by token: word handoff needs each author's log-probability of every token, which an endpoint does not give. Seat it in a game whose turns are whole (sequential, world${game.id === 'tandem' ? '; tandem with knobs.handoff "step"' : ''})`);
  }
  for (const [role, terms] of Object.entries(game.losses)) {
    if (terms?.kl && terms.kl.toward !== 'initial' && seated.includes(terms.kl.toward)) refuse('endpoint', `sits in "${terms.kl.toward}", which role "${role}" keeps a KL term toward: that needs its log-probabilities`);
    if (terms?.imitate && seated.includes(terms.imitate.role)) refuse('endpoint', `sits in "${terms.imitate.role}", whose tokens role "${role}" imitates inside one co-written turn`);
  }
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

const ADAPTER_SEED_TAG = 0x10ad;

/** The seed of a policy's adapter when its config gives none: the run's seed and the policy's place in the game (ours). */
export const adapterSeed = (runSeed: number, policyIndex: number): number => deriveSeed(runSeed, ADAPTER_SEED_TAG, policyIndex);

/** The game's own binding of a policy (policyDefaults), checked as a run config's policies entry is. */
function gameDefaults(game: Game, name: string): PolicyConfig {
  const defaults = game.policyDefaults[name];
  return defaults ? parseConfig(PolicyConfigSchema, defaults, `game "${game.id}" policyDefaults.${name}`) : {};
}
