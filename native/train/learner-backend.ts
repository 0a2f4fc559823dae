import { fail } from '../../core/errors.ts';
import { readSafetensors, type SavedTensors, type StoredTensor } from '../io/safetensors.ts';
import { fingerprint } from '../model/fingerprint.ts';
import { tensorOf, type Weights } from '../model/weights.ts';
import type { AdamWState, AdamWStepResult } from './adamw.ts';
import type { ForwardBackwardOptions, ForwardBackwardStats, LearnBatch, Learner, OptimStepOptions } from './learner.ts';
import type { Objective } from './objectives.ts';

/**
 * One model a trainer server trains, whichever engine computes it: the in-process onnxruntime learner
 * (`OrtLearnerBackend`) or a PyTorch worker (native/torch/torch-learner.ts). Both take the same batches (masks,
 * advantages and loss weights built in TypeScript) and compute the same objective with the same AdamW.
 */
export interface LearnerBackend {
  readonly objective: Objective;
  /** Optimizer steps taken. */
  readonly step: number;
  /** The trained tensors' names and shapes (every weight, or an adapter's alone). */
  readonly trainableShapes: ReadonlyMap<string, readonly number[]>;
  /** Refuses, before anything runs, a forward-backward over `rows` × `cols` that cannot fit (MEMORY_INSUFFICIENT). */
  ensureStepFits(rows: number, cols: number): void;
  forwardBackward(batch: LearnBatch, options?: ForwardBackwardOptions): Promise<ForwardBackwardStats>;
  optimStep(options?: OptimStepOptions): Promise<AdamWStepResult>;
  /** The model's tensors as a save writes them (every weight of the model, the base's included). */
  readonly saved: SavedTensors;
  /** The trained tensors' current values. */
  trainedWeights(): Promise<Weights>;
  fingerprint(): Promise<string>;
  optimizerState(): Promise<AdamWState>;
  /** Sets the trained tensors and AdamW (checked by the caller against `trainableShapes`). */
  loadState(weights: Readonly<Record<string, Float32Array>>, optimizer: AdamWState): Promise<void>;
  /**
   * Sets the trained tensors and AdamW from safetensors files (a checkpoint's), read where the tensors are held: every
   * trained tensor and both its moments must be among `files`' stored tensors.
   */
  loadFiles(files: readonly TensorFile[], step: number): Promise<void>;
  release(): Promise<void>;
}

/** A safetensors file, and what each stored tensor of it to read is. */
export interface TensorFile {
  readonly path: string;
  readonly tensors: ReadonlyMap<string, StoredTensor>;
}

/** Bytes of a backend's trained tensors in float32. */
export const trainableBytes = (backend: LearnerBackend): number => [...backend.trainableShapes.values()].reduce((n, dims) => n + 4 * dims.reduce((a, b) => a * b, 1), 0);

/** The in-process onnxruntime learner as a trainer server's backend. */
export class OrtLearnerBackend implements LearnerBackend {
  readonly trainableShapes: ReadonlyMap<string, readonly number[]>;

  constructor(readonly learner: Learner) {
    this.trainableShapes = new Map([...learner.trainable].map(([name, t]) => [name, t.dims]));
  }

  get objective(): Objective {
    return this.learner.config.objective;
  }

  get step(): number {
    return this.learner.optimizer.step;
  }

  get saved(): SavedTensors {
    return this.learner.weights;
  }

  ensureStepFits(rows: number, cols: number): void {
    this.learner.ensureStepFits(rows, cols);
  }

  forwardBackward(batch: LearnBatch, options?: ForwardBackwardOptions): Promise<ForwardBackwardStats> {
    return this.learner.forwardBackward(batch, options);
  }

  optimStep(options?: OptimStepOptions): Promise<AdamWStepResult> {
    return this.learner.optimStep(options);
  }

  async trainedWeights(): Promise<Weights> {
    return this.learner.trainable;
  }

  async fingerprint(): Promise<string> {
    return fingerprint(this.learner.trainable);
  }

  async optimizerState(): Promise<AdamWState> {
    return this.learner.optimizerState();
  }

  async loadState(weights: Readonly<Record<string, Float32Array>>, optimizer: AdamWState): Promise<void> {
    this.learner.loadOptimizerState(optimizer);
    for (const [name, t] of this.learner.trainable) t.data.set(weights[name]);
  }

  async loadFiles(files: readonly TensorFile[], step: number): Promise<void> {
    const read = { param: {} as Record<string, Float32Array>, m: {} as Record<string, Float32Array>, v: {} as Record<string, Float32Array> };
    for (const file of files) {
      const { tensors } = await readSafetensors(file.path, { include: (name) => file.tensors.has(name) });
      for (const [stored, target] of file.tensors) read[target.kind][target.name] = tensorOf(tensors, stored, file.path).data;
    }
    for (const [name, t] of this.learner.trainable) {
      for (const kind of ['param', 'm', 'v'] as const) {
        const data = read[kind][name];
        if (data?.length !== t.data.length) fail('CHECKPOINT_TENSOR_SHAPE', `${kind === 'param' ? 'tensor' : `moment ${kind} of`} "${name}": ${data ? `${data.length} values, expected ${t.data.length}` : 'not stored'}`, { tensor: name });
      }
    }
    await this.loadState(read.param, { step, m: read.m, v: read.v });
  }

  release(): Promise<void> {
    return this.learner.release();
  }
}
