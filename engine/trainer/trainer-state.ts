import type { Split } from '../../core/tasks/task.ts';
import type { OpponentPoolState } from './opponent-pool.ts';
import type { TrainConfig } from './train-config.ts';

/** The JSON half of a training checkpoint (the policies' weights and AdamW moments are the other half). */
export interface TrainerState extends Record<string, unknown> {
  /** Optimizer steps taken, skipped ones included. */
  step: number;
  /** Index of the next training problem. */
  cursor: number;
  /** Match seeds are derived from (seed, step): no RNG stream to carry beyond these. */
  seed: number;
  config: TrainConfig;
  /** Per trainable policy: non-finite updates in a row and in all. */
  nonFinite: Record<string, { consecutive: number; skipped: number }>;
  /**
   * The best validation so far: its step, accuracy and split (absent in checkpoints made before it was recorded); or,
   * in a run chosen by its fixed opponents, the best mean score against them (split `eval`).
   */
  best: { step: number; accuracy: number; split?: Split | 'eval' } | null;
  /** Per fixed-opponent series: its best draw-or-win rate and step, for the collapse alarm. */
  evalBest?: Record<string, { rate: number; step: number }>;
  eventSeq: number;
  /** Per role: its advantage estimator's state (Tango's EMA of class counts); stateless estimators keep null. */
  estimators: Record<string, unknown>;
  /** With an opponent pool: its snapshots and the learner's results against each. */
  pool?: OpponentPoolState;
  /**
   * The run budget the local learners split their batches by (LearnerConfig.runBudgetBytes), chosen when the run
   * started, so a resumed run sums its gradients in the same order. Absent in checkpoints made before it was recorded:
   * they ran at RUN_BUDGET_BYTES.
   */
  runBudgetBytes?: number;
}
