/** What the container collects, one token per plugin kind: every module binds its plugins to these. */
export const GAME_PLUGIN = Symbol.for('ludus.game');
export const ADVANTAGE_ESTIMATOR_PLUGIN = Symbol.for('ludus.advantage-estimator');
export const PROTOCOL_PLUGIN = Symbol.for('ludus.protocol');
export const REWARD_RULE_PLUGIN = Symbol.for('ludus.reward-rule');
export const ROTATION_PLUGIN = Symbol.for('ludus.rotation');
export const GRADER_PLUGIN = Symbol.for('ludus.grader');
