import type { AdvantageEstimator } from './advantages/estimator.ts';
import type { AnyGame, GameOptions, ProtocolOptions, RewardRuleOptions, RotationOptions } from './catalog.ts';
import type { RewardRule } from './game/rewards.ts';
import type { Rotation } from './game/rotations.ts';
import type { Grader } from './grading/verdict.ts';
import type { Plugin } from './plugin.ts';
import type { Protocol } from './protocols/protocol.ts';
import type { Problem } from './tasks/task.ts';

/**
 * A plugin module: named pieces of every kind, registered together. ludus's built-in games and pieces are such
 * modules, and a user's `--plugin FILE` default-exports one (fastify-plugin's shape: a name, the host versions it
 * works with, its pieces).
 */
export interface LudusPlugin {
  readonly name: string;
  /** A semver range of ludus versions the module works with (e.g. "^0.1"); checked when it is loaded. */
  readonly ludus?: string;
  readonly games?: readonly Plugin<AnyGame, GameOptions>[];
  readonly advantageEstimators?: readonly Plugin<AdvantageEstimator>[];
  readonly protocols?: readonly Plugin<Protocol<string, Problem>, ProtocolOptions>[];
  readonly rewardRules?: readonly Plugin<RewardRule<string, Problem>, RewardRuleOptions>[];
  readonly rotations?: readonly Plugin<Rotation<string>, RotationOptions>[];
  readonly graders?: readonly Plugin<Grader>[];
}

/** The kinds of piece a plugin module can hold, as its keys. */
export const PLUGIN_KINDS = ['games', 'advantageEstimators', 'protocols', 'rewardRules', 'rotations', 'graders'] as const;

/** Types a plugin module and returns it unchanged: `export default definePlugin({ name, games: [...] })`. */
export function definePlugin<const P extends LudusPlugin>(plugin: P): P {
  return plugin;
}
