import type { Weights } from '../../native/model/weights.ts';
import type { AdamWState, AdamWStepResult } from '../../native/train/adamw.ts';
import type { ForwardBackwardOptions, ForwardBackwardStats, LearnBatch, OptimStepOptions, StepOptions, StepStats } from '../../native/train/learner.ts';

/**
 * What trains one policy, whichever backend does: the in-process ORT learner (native/train/learner.ts) or a trainer
 * API server (engine/remote/remote-learner.ts). Batches, masks, advantages and loss weights are built by the trainer
 * in TypeScript either way; a backend only accumulates gradients and applies updates.
 */
export interface TrainingBackend {
  /** The policy's weights, current once an update resolves (the in-process learner's own; a remote one's copy, refreshed after each update). */
  readonly weights: Weights;
  /** Gradients of `batch` added to those accumulated since the last update. */
  forwardBackward(batch: LearnBatch, options?: ForwardBackwardOptions): Promise<ForwardBackwardStats>;
  /** One AdamW update from the accumulated gradients; NON_FINITE leaves the weights as they were. */
  optimStep(options?: OptimStepOptions): Promise<AdamWStepResult>;
  /** forwardBackward then optimStep. */
  step(batch: LearnBatch, options?: StepOptions): Promise<StepStats>;
  /** The AdamW moments, for a checkpoint. */
  optimizerState(): AdamWState | Promise<AdamWState>;
  /** Bytes of the JSON bodies on the link to a trainer server so far, both ways (remote learners only). */
  readonly linkBytes?: number;
  /** Present when the trained weights stay with a trainer server (remote rollouts): `weights` are then the starting ones. */
  readonly kept?: KeptWeights;
  release(): Promise<void>;
}

/**
 * Weights that stay where they are trained: the trainer server writes them for the samplers and into checkpoints, on
 * storage both sides see, and only paths and fingerprints cross to this process.
 */
export interface KeptWeights {
  /** The current weights as a directory the rollout servers load (a model, or an adapter in PEFT's layout). */
  writeForSamplers(dir: string): Promise<void>;
  /** The policy's checkpoint directory (weights, AdamW moments, tokenizer) at `target`. */
  writeState(target: string): Promise<void>;
  /** Brings the current weights into `weights` (once, for what runs here after training: the final comparison). */
  fetch(): Promise<void>;
}
