import type { AdvantageEstimator } from '../../core/advantages/estimator.ts';
import type { AnyGame, Catalog } from '../../core/catalog.ts';
import type { TrainConfig } from './train-config.ts';

/** The config's game from the catalog, built with the config's grader and the game's knobs. */
export function gameFor(catalog: Catalog, config: Pick<TrainConfig, 'game' | 'grader' | 'knobs'>): AnyGame {
  return catalog.games.create(config.game, { grader: catalog.graders.create(config.grader), knobs: config.knobs });
}

/** The config's base advantage estimator from the catalog. */
export function advantageFor(catalog: Catalog, config: Pick<TrainConfig, 'advantage'>): AdvantageEstimator {
  return catalog.advantageEstimators.create(config.advantage);
}
