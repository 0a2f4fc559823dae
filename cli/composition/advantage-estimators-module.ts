import { ContainerModule } from 'inversify';
import type { AdvantageEstimator } from '../../core/advantages/estimator.ts';
import { advantageEstimators } from '../../core/advantages/estimators.ts';
import type { Plugin } from '../../core/plugin.ts';
import { ADVANTAGE_ESTIMATOR_PLUGIN } from './tokens.ts';

/** GRPO, Dr. GRPO, RLOO, REINFORCE++ and its group baseline, each with its defaults. */
export const advantageEstimatorsModule = new ContainerModule(({ bind }) => {
  for (const [name, estimator] of Object.entries(advantageEstimators)) {
    bind(ADVANTAGE_ESTIMATOR_PLUGIN).toConstantValue({ name, create: () => estimator } satisfies Plugin<AdvantageEstimator>);
  }
});
