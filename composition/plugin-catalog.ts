import { injectable, multiInject } from 'inversify';
import type { AdvantageEstimator } from '../core/advantages/estimator.ts';
import type { AnyGame, Catalog, GameOptions, ProtocolOptions, RewardRuleOptions, RotationOptions } from '../core/catalog.ts';
import type { RewardRule } from '../core/game/rewards.ts';
import type { Rotation } from '../core/game/rotations.ts';
import type { Grader } from '../core/grading/verdict.ts';
import { PluginSet, type Plugin } from '../core/plugin.ts';
import type { Protocol } from '../core/protocols/protocol.ts';
import type { Problem } from '../core/tasks/task.ts';
import { PLUGIN_TOKENS } from './tokens.ts';
import { exampleGameHint } from './example-games.ts';

/** Every plugin the loaded modules bound, by kind and name: what a config's names resolve against. */
@injectable()
export class PluginCatalog implements Catalog {
  readonly games: PluginSet<AnyGame, GameOptions>;
  readonly advantageEstimators: PluginSet<AdvantageEstimator>;
  readonly protocols: PluginSet<Protocol<string, Problem>, ProtocolOptions>;
  readonly rewardRules: PluginSet<RewardRule<string, Problem>, RewardRuleOptions>;
  readonly rotations: PluginSet<Rotation<string>, RotationOptions>;
  readonly graders: PluginSet<Grader>;

  constructor(
    @multiInject(PLUGIN_TOKENS.games) games: Plugin<AnyGame, GameOptions>[],
    @multiInject(PLUGIN_TOKENS.advantageEstimators) estimators: Plugin<AdvantageEstimator>[],
    @multiInject(PLUGIN_TOKENS.protocols) protocols: Plugin<Protocol<string, Problem>, ProtocolOptions>[],
    @multiInject(PLUGIN_TOKENS.rewardRules) rewardRules: Plugin<RewardRule<string, Problem>, RewardRuleOptions>[],
    @multiInject(PLUGIN_TOKENS.rotations) rotations: Plugin<Rotation<string>, RotationOptions>[],
    @multiInject(PLUGIN_TOKENS.graders) graders: Plugin<Grader>[],
  ) {
    this.games = new PluginSet('game', games, exampleGameHint);
    this.advantageEstimators = new PluginSet('advantage estimator', estimators);
    this.protocols = new PluginSet('protocol', protocols);
    this.rewardRules = new PluginSet('reward rule', rewardRules);
    this.rotations = new PluginSet('rotation', rotations);
    this.graders = new PluginSet('grader', graders);
  }
}
