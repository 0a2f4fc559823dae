import type { Transferable } from 'node:worker_threads';
import { siblingModule } from '../io/package-root.ts';
import type { ModelConfig } from '../model/config.ts';
import type { Weights } from '../model/weights.ts';
import type { DecoderOptions } from '../runtime/decoder.ts';
import type { Rollout } from '../runtime/generate.ts';
import type { Policy } from '../runtime/policy.ts';
import type { LearnerConfigInput } from '../train/learner-config.ts';
import type { LearnBatch, ScoreBatch, StepStats } from '../train/learner.ts';
import type { DecoderHandle, EngineDefaults, EngineGenerateOptions, EngineHandle, EngineMethods, LearnerHandle } from './engine-methods.ts';
import { WorkerRpc, type CallOptions } from './worker-rpc.ts';
import type { ArgsOf, EventOf, ResultOf } from './protocol.ts';

export type { DecoderHandle, EngineGenerateOptions, EngineHandle, LearnerHandle, StepEvent } from './engine-methods.ts';

export interface EngineStartOptions {
  /** ORT intra-op threads for decoders and learners that do not set their own; 0 lets ORT choose. */
  threads?: number;
}

export interface ClientGenerateOptions extends Omit<EngineGenerateOptions, 'stream'> {
  /** Streamer: called on this thread after each step, as generate's onStep is in-process. */
  onStep?: (step: number, tokens: Int32Array, authors: Int32Array) => void;
  signal?: AbortSignal;
}

export interface WeightPassing {
  /**
   * Move the weight buffers to the worker instead of copying them. Saves a copy of the model's memory, but the
   * caller's weight arrays become empty: only for weights nothing on this thread reads again.
   */
  transfer?: boolean;
}

/**
 * The tensor engine behind a worker thread, so onnxruntime runs never block this thread. Decoders and learners live
 * in the worker and are named by handles. By default weights cross by copy (structured clone): the caller keeps its
 * arrays, which it usually still needs (for a learner, a checkpoint, another decoder); the copy costs about as much
 * as the graph build that follows it, which copies the weights again. Weights in SharedArrayBuffers are shared.
 */
export class EngineClient {
  private constructor(private readonly rpc: WorkerRpc<EngineMethods>) {}

  static async start(options: EngineStartOptions = {}): Promise<EngineClient> {
    const defaults: EngineDefaults = { threads: options.threads };
    const rpc = await WorkerRpc.spawn<EngineMethods>(siblingModule(import.meta.url, 'engine-worker'), { label: 'engine worker', data: defaults });
    return new EngineClient(rpc);
  }

  /** Any method of the engine worker's table, typed from it. */
  call<K extends keyof EngineMethods & string>(method: K, args: ArgsOf<EngineMethods[K]>, options?: CallOptions<EventOf<EngineMethods[K]>>): Promise<ResultOf<EngineMethods[K]>> {
    return this.rpc.call(method, args, options);
  }

  createDecoder(policies: readonly Policy[], options: DecoderOptions, passing: WeightPassing = {}): Promise<DecoderHandle> {
    return this.call('createDecoder', [[...policies], options], { transfer: transferList(policies.map((p) => p.weights), passing) });
  }

  generate(handle: DecoderHandle, prompts: readonly (readonly number[])[], options: ClientGenerateOptions): Promise<Rollout[]> {
    const { onStep, signal, ...wire } = options;
    return this.call('generate', [handle, prompts, { ...wire, stream: onStep !== undefined }], {
      signal,
      onEvent: onStep && ((event) => onStep(event.step, event.tokens, event.authors)),
    });
  }

  updatePolicy(handle: DecoderHandle, index: number, policy: Policy, passing: WeightPassing = {}): Promise<void> {
    return this.call('updatePolicy', [handle, index, policy], { transfer: transferList([policy.weights], passing) });
  }

  createLearner(config: ModelConfig, weights: Weights, learnerConfig: LearnerConfigInput = {}, passing: WeightPassing = {}): Promise<LearnerHandle> {
    return this.call('createLearner', [config, weights, learnerConfig], { transfer: transferList([weights], passing) });
  }

  learnerStep(handle: LearnerHandle, batch: LearnBatch): Promise<StepStats> {
    return this.call('learnerStep', [handle, batch]);
  }

  learnerScore(handle: LearnerHandle, batch: ScoreBatch): Promise<Float32Array> {
    return this.call('learnerScore', [handle, batch]);
  }

  learnerWeights(handle: LearnerHandle): Promise<Weights> {
    return this.call('learnerWeights', [handle]);
  }

  /** Loads the learner's current weights into a decoder's policy `index`, inside the worker. */
  syncPolicy(decoder: DecoderHandle, index: number, learner: LearnerHandle): Promise<void> {
    return this.call('syncPolicy', [decoder, index, learner]);
  }

  release(handle: EngineHandle): Promise<void> {
    return this.call('release', [handle]);
  }

  /** Releases every decoder and learner, then stops the worker. Calls still running are aborted. */
  async close(): Promise<void> {
    if (this.rpc.failed) return this.rpc.terminate();
    this.rpc.abortPending();
    try {
      await this.call('releaseAll', []);
    } finally {
      await this.rpc.terminate();
    }
  }
}

function transferList(weights: readonly Weights[], passing: WeightPassing): Transferable[] | undefined {
  if (!passing.transfer) return undefined;
  const buffers = new Set<ArrayBuffer>();
  for (const map of weights) for (const t of map.values()) if (t.data.buffer instanceof ArrayBuffer) buffers.add(t.data.buffer);
  return [...buffers];
}
