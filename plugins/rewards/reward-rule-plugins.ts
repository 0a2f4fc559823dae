import type { RewardRuleOptions } from '../../core/catalog.ts';
import type { RewardRule } from '../../core/game/rewards.ts';
import type { Plugin } from '../../core/plugin.ts';
import type { Problem } from '../../core/tasks/task.ts';
import { boxedAnswerReward } from './boxed-answer-reward.ts';

export type RewardRulePlugin = Plugin<RewardRule<string, Problem>, RewardRuleOptions>;

/** `team-boxed-answer`: every role is paid 1 when the final turn boxes the gold answer (Tandem RL, GRPO). */
export const REWARD_RULE_PLUGINS: readonly RewardRulePlugin[] = [{ name: 'team-boxed-answer', create: ({ roles, grader }) => boxedAnswerReward(roles, grader) }];
