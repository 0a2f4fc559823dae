import { drGrpo } from './dr-grpo.ts';
import { fromGroupAdvantages, type AdvantageEstimator, type GroupAdvantages } from './estimator.ts';
import { grpo } from './grpo.ts';
import { reinforcePlusPlus } from './reinforce-plus-plus.ts';
import { rloo } from './rloo.ts';

export type AdvantageEstimatorName = 'grpo' | 'dr-grpo' | 'rloo' | 'reinforce++' | 'reinforce++-baseline';

/** The outcome estimators by the names a config uses, each with its defaults. */
export const groupAdvantages: Readonly<Record<AdvantageEstimatorName, GroupAdvantages>> = {
  grpo: (groups) => grpo(groups),
  'dr-grpo': drGrpo,
  rloo,
  'reinforce++': (groups) => reinforcePlusPlus(groups, { baseline: 'batch' }),
  'reinforce++-baseline': (groups) => reinforcePlusPlus(groups, { baseline: 'group' }),
};

/** The same, as the trainer's advantage contract. */
export const advantageEstimators: Readonly<Record<AdvantageEstimatorName, AdvantageEstimator<null>>> = Object.fromEntries(
  Object.entries(groupAdvantages).map(([name, advantages]) => [name, fromGroupAdvantages(name, advantages)]),
) as Record<AdvantageEstimatorName, AdvantageEstimator<null>>;
