import { ContainerModule } from 'inversify';
import type { RewardRule } from '../../core/game/rewards.ts';
import { boxedAnswerReward } from '../../plugins/rewards/boxed-answer-reward.ts';
import type { Grader } from '../../core/grading/verdict.ts';
import type { Problem } from '../../core/tasks/task.ts';
import type { Plugin } from '../../core/plugin.ts';
import { REWARD_RULE_PLUGIN } from './tokens.ts';

export interface RewardRuleOptions {
  /** The roles paid. */
  readonly roles: readonly string[];
  readonly grade: Grader;
}

export type RewardRulePlugin = Plugin<RewardRule<string, Problem>, RewardRuleOptions>;

/** `team-boxed-answer`: every role is paid 1 when the shared response boxes the gold answer (Tandem RL, GRPO). */
export const REWARD_RULE_PLUGINS: readonly RewardRulePlugin[] = [{ name: 'team-boxed-answer', create: ({ roles, grade }) => boxedAnswerReward(roles, grade) }];

export const rewardRulesModule = new ContainerModule(({ bind }) => {
  for (const plugin of REWARD_RULE_PLUGINS) bind(REWARD_RULE_PLUGIN).toConstantValue(plugin);
});
