import { injectable, multiInject } from 'inversify';
import type { AdvantageEstimator } from '../../core/advantages/estimator.ts';
import type { RewardRule } from '../../core/game/rewards.ts';
import type { Rotation } from '../../core/game/rotations.ts';
import type { Protocol } from '../../core/protocols/protocol.ts';
import type { GameKnobs, RlGamePlugin } from '../../games/registry.ts';
import type { Grader } from '../../core/grading/verdict.ts';
import type { Problem } from '../../core/tasks/task.ts';
import type { RlGame } from '../../core/game/rl-game.ts';
import type { GraderPlugin } from './graders-module.ts';
import { PluginSet, type Plugin } from '../../core/plugin.ts';
import type { ProtocolOptions, ProtocolPlugin } from './protocols-module.ts';
import type { RewardRuleOptions, RewardRulePlugin } from './reward-rules-module.ts';
import type { RotationOptions, RotationPlugin } from './rotations-module.ts';
import { ADVANTAGE_ESTIMATOR_PLUGIN, GAME_PLUGIN, GRADER_PLUGIN, PROTOCOL_PLUGIN, REWARD_RULE_PLUGIN, ROTATION_PLUGIN } from './tokens.ts';

/** Every plugin the loaded modules bound, by kind and name: what a config's names resolve against. */
@injectable()
export class PluginCatalog {
  readonly games: PluginSet<RlGame<string>, GameKnobs>;
  readonly advantageEstimators: PluginSet<AdvantageEstimator>;
  readonly protocols: PluginSet<Protocol<string, Problem>, ProtocolOptions>;
  readonly rewardRules: PluginSet<RewardRule<string, Problem>, RewardRuleOptions>;
  readonly rotations: PluginSet<Rotation<string>, RotationOptions>;
  readonly graders: PluginSet<Grader>;

  constructor(
    @multiInject(GAME_PLUGIN) games: RlGamePlugin[],
    @multiInject(ADVANTAGE_ESTIMATOR_PLUGIN) estimators: Plugin<AdvantageEstimator>[],
    @multiInject(PROTOCOL_PLUGIN) protocols: ProtocolPlugin[],
    @multiInject(REWARD_RULE_PLUGIN) rewardRules: RewardRulePlugin[],
    @multiInject(ROTATION_PLUGIN) rotations: RotationPlugin[],
    @multiInject(GRADER_PLUGIN) graders: GraderPlugin[],
  ) {
    this.games = new PluginSet('game', games);
    this.advantageEstimators = new PluginSet('advantage estimator', estimators);
    this.protocols = new PluginSet('protocol', protocols);
    this.rewardRules = new PluginSet('reward rule', rewardRules);
    this.rotations = new PluginSet('rotation', rotations);
    this.graders = new PluginSet('grader', graders);
  }
}
