import type { PLUGIN_KINDS } from '../core/plugin-module.ts';

/** What the container collects, one token per plugin kind: every plugin module binds its pieces to these. */
export const PLUGIN_TOKENS: Readonly<Record<(typeof PLUGIN_KINDS)[number], symbol>> = {
  games: Symbol.for('ludus.game'),
  advantageEstimators: Symbol.for('ludus.advantage-estimator'),
  protocols: Symbol.for('ludus.protocol'),
  rewardRules: Symbol.for('ludus.reward-rule'),
  rotations: Symbol.for('ludus.rotation'),
  graders: Symbol.for('ludus.grader'),
};
