/** What the container collects, one token per plugin kind: every module binds its plugins to these. */
export const GAME_PLUGIN = Symbol.for('ludus.game');
export const ADVANTAGE_ESTIMATOR_PLUGIN = Symbol.for('ludus.advantage-estimator');
