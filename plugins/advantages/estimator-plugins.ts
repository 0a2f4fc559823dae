import type { AdvantageEstimator } from '../../core/advantages/estimator.ts';
import { advantageEstimators } from '../../core/advantages/estimators.ts';
import type { Plugin } from '../../core/plugin.ts';

/** GRPO, Dr. GRPO, RLOO, REINFORCE++ and its group baseline, each with its defaults. */
export const ESTIMATOR_PLUGINS: readonly Plugin<AdvantageEstimator>[] = Object.entries(advantageEstimators).map(([name, estimator]) => ({ name, create: () => estimator }));
