import { drGrpo } from './dr-grpo.ts';
import type { AdvantageEstimator } from './estimator.ts';
import { grpo } from './grpo.ts';
import { reinforcePlusPlus } from './reinforce-plus-plus.ts';
import { rloo } from './rloo.ts';

export type AdvantageEstimatorName = 'grpo' | 'dr-grpo' | 'rloo' | 'reinforce++' | 'reinforce++-baseline';

/** The estimators by the names a config uses, each with its defaults. */
export const advantageEstimators: Readonly<Record<AdvantageEstimatorName, AdvantageEstimator>> = {
  grpo: (groups) => grpo(groups),
  'dr-grpo': drGrpo,
  rloo,
  'reinforce++': (groups) => reinforcePlusPlus(groups, { baseline: 'batch' }),
  'reinforce++-baseline': (groups) => reinforcePlusPlus(groups, { baseline: 'group' }),
};
