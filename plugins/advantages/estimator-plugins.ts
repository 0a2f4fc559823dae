import type { AdvantageEstimator } from '../../core/advantages/estimator.ts';
import { advantageEstimators } from '../../core/advantages/estimators.ts';
import { rae } from '../../core/advantages/rae.ts';
import type { Plugin } from '../../core/plugin.ts';

/** GRPO, Dr. GRPO, RLOO, REINFORCE++ and its group baseline, each with its defaults; SPIRAL's RAE (decay 0.95, zero advantages dropped). */
export const ESTIMATOR_PLUGINS: readonly Plugin<AdvantageEstimator>[] = [
  ...Object.entries(advantageEstimators).map(([name, estimator]) => ({ name, create: () => estimator })),
  { name: 'rae', create: () => rae() },
];
