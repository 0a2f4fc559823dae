import { definePlugin } from '../core/plugin-module.ts';
import { ESTIMATOR_PLUGINS } from './advantages/estimator-plugins.ts';
import { GRADER_PLUGINS } from './graders/grader-plugins.ts';
import { PROTOCOL_PLUGINS } from './protocols/protocol-plugins.ts';
import { REWARD_RULE_PLUGINS } from './rewards/reward-rule-plugins.ts';
import { ROTATION_PLUGINS } from './rotations/rotation-plugins.ts';

/** ludus's own swappable pieces, as a plugin module of the same shape a user's `--plugin` file exports. */
export const builtInPieces = definePlugin({
  name: 'ludus',
  advantageEstimators: ESTIMATOR_PLUGINS,
  protocols: PROTOCOL_PLUGINS,
  rewardRules: REWARD_RULE_PLUGINS,
  rotations: ROTATION_PLUGINS,
  graders: GRADER_PLUGINS,
});
