import type { TrainConfig } from './train-config.ts';

/** The JSON half of a training checkpoint (the weights and AdamW moments are the other half). */
export interface TrainerState extends Record<string, unknown> {
  /** Optimizer steps taken, skipped ones included. */
  step: number;
  /** Index of the next training problem. */
  cursor: number;
  /** Match seeds are derived from (seed, step): no RNG stream to carry beyond these. */
  seed: number;
  config: TrainConfig;
  nonFinite: { consecutive: number; skipped: number };
  best: { step: number; accuracy: number } | null;
  eventSeq: number;
}
