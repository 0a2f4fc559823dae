import { injectable, multiInject } from 'inversify';
import type { AdvantageEstimator } from '../../core/advantages/estimator.ts';
import type { GameKnobs, RlGamePlugin } from '../../games/registry.ts';
import type { RlGame } from '../training/rl-game.ts';
import { PluginSet, type Plugin } from './plugin.ts';
import { ADVANTAGE_ESTIMATOR_PLUGIN, GAME_PLUGIN } from './tokens.ts';

/** Every plugin the loaded modules bound, by kind and name: what a config's names resolve against. */
@injectable()
export class PluginCatalog {
  readonly games: PluginSet<RlGame<string>, GameKnobs>;
  readonly advantageEstimators: PluginSet<AdvantageEstimator>;

  constructor(@multiInject(GAME_PLUGIN) games: RlGamePlugin[], @multiInject(ADVANTAGE_ESTIMATOR_PLUGIN) estimators: Plugin<AdvantageEstimator>[]) {
    this.games = new PluginSet('game', games);
    this.advantageEstimators = new PluginSet('advantage estimator', estimators);
  }
}
