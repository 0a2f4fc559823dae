import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { LudusError, type LudusErrorCode } from '../../core/errors.ts';
import type { AdamWState, AdamWStepResult } from '../../native/train/adamw.ts';
import type { ForwardBackwardOptions, ForwardBackwardStats, LearnBatch } from '../../native/train/learner.ts';
import { parseAnswer } from './dialect.ts';
import { tokenFrom, type TrainerServerConfig } from './remote-config.ts';
import { ServerPool } from './server-pool.ts';
import {
  CreateModelResultSchema,
  ForwardBackwardResultSchema,
  FutureAnswerSchema,
  LoadStateResultSchema,
  OptimStepResultSchema,
  OptimizerStateResultSchema,
  SaveStateResultSchema,
  SaveWeightsResultSchema,
  SubmittedSchema,
  TRAINER_API,
  decodeTensor,
  type Datum,
  type WireTensors,
} from './trainer-wire.ts';

/** A call's result, awaited (a Promise is the future: the call is submitted when made, its result fetched when awaited). */
export type TrainerFuture<T> = Promise<T>;

/** What create_model asks for: the base, an optional LoRA adapter over it, the learner's fixed settings. */
export interface CreateModelRequest {
  readonly baseModel: string;
  readonly task?: string;
  readonly lora?: { readonly rank: number; readonly alpha: number; readonly targetModules: readonly string[]; readonly initStdB: number; readonly seed: number };
  readonly learner: Record<string, unknown>;
}

/**
 * The trainer API's client (ludus's own API, engine/remote/trainer-wire.ts): every call is submitted under a fresh request id (so a retried submission
 * is one call) and returns a future; submissions go out one after another, so the server runs one model's calls in
 * the order they were made; the future polls `retrieve_future` until the call is done. Transport failures and 5xx are
 * retried with backoff (ServerPool), a 4xx is REMOTE_REJECTED, a call that failed on the server raises its own code.
 */
export class TrainerClient {
  private readonly server: ServerPool;
  private submitted: Promise<unknown> = Promise.resolve();

  /** `token`: the server's bearer token, when not the value of the config's `tokenEnv`. */
  constructor(readonly config: TrainerServerConfig, token = tokenFrom(config)) {
    this.server = new ServerPool([config.url], { maxConcurrency: 4, timeoutMs: config.timeoutMs, retries: config.retries, backoffMs: config.backoffMs, what: 'trainer server', ...(token !== undefined ? { token } : {}) });
  }

  checkHealth(): Promise<void> {
    return this.server.checkHealth('/health');
  }

  createModel(request: CreateModelRequest): TrainerFuture<z.output<typeof CreateModelResultSchema>> {
    const { lora } = request;
    return this.call('create_model', {
      base_model: request.baseModel,
      ...(request.task ? { task: request.task } : {}),
      ...(lora ? { lora: { rank: lora.rank, alpha: lora.alpha, target_modules: lora.targetModules, init_std_b: lora.initStdB, seed: lora.seed } } : {}),
      learner: request.learner,
    }, CreateModelResultSchema);
  }

  forwardBackward(modelId: string, data: readonly Datum[], lossFnConfig: Record<string, unknown>): TrainerFuture<z.output<typeof ForwardBackwardResultSchema>> {
    return this.call('forward_backward', { model_id: modelId, data, loss_fn: 'ppo', loss_fn_config: lossFnConfig }, ForwardBackwardResultSchema);
  }

  optimStep(modelId: string, learningRate?: number): TrainerFuture<z.output<typeof OptimStepResultSchema>> {
    return this.call('optim_step', { model_id: modelId, ...(learningRate !== undefined ? { adam_params: { learning_rate: learningRate } } : {}) }, OptimStepResultSchema);
  }

  /** `path`: a directory on storage both sides see, where the server writes instead of its own folder. */
  saveWeightsForSampler(modelId: string, name: string, returnWeights: boolean, path?: string): TrainerFuture<z.output<typeof SaveWeightsResultSchema>> {
    return this.call('save_weights_for_sampler', { model_id: modelId, name, return_weights: returnWeights, ...(path !== undefined ? { path } : {}) }, SaveWeightsResultSchema);
  }

  /** The model's checkpoint directory (weights, moments, tokenizer), written by the server at `path`. */
  saveState(modelId: string, path: string): TrainerFuture<z.output<typeof SaveStateResultSchema>> {
    return this.call('save_state', { model_id: modelId, path }, SaveStateResultSchema);
  }

  /** The trained tensors and moments read by the server from the checkpoint directory at `path`. */
  loadStateFrom(modelId: string, path: string): TrainerFuture<z.output<typeof LoadStateResultSchema>> {
    return this.call('load_state_from', { model_id: modelId, path }, LoadStateResultSchema);
  }

  /** Bytes of the JSON bodies sent to and received from the server so far. */
  get traffic(): { readonly sent: number; readonly received: number } {
    return this.server.traffic;
  }

  optimizerState(modelId: string): TrainerFuture<z.output<typeof OptimizerStateResultSchema>> {
    return this.call('get_optimizer_state', { model_id: modelId }, OptimizerStateResultSchema);
  }

  loadState(modelId: string, weights: WireTensors, optimizer: { step: number; m: WireTensors; v: WireTensors }): TrainerFuture<z.output<typeof LoadStateResultSchema>> {
    return this.call('load_state', { model_id: modelId, weights, optimizer }, LoadStateResultSchema);
  }

  async unloadModel(modelId: string): Promise<void> {
    await this.server.post(0, `${TRAINER_API}/unload_model`, { model_id: modelId }, () => undefined);
  }

  private call<S extends z.ZodType>(op: string, body: Record<string, unknown>, schema: S): TrainerFuture<z.output<S>> {
    const requestId = randomUUID();
    const submission = this.submitted.catch(() => undefined).then(() =>
      this.server.post(0, `${TRAINER_API}/${op}`, { request_id: requestId, ...body }, (json) => parseAnswer(SubmittedSchema, json, op)),
    );
    this.submitted = submission;
    return submission.then(() => this.result(op, requestId, schema));
  }

  private async result<S extends z.ZodType>(op: string, requestId: string, schema: S): Promise<z.output<S>> {
    const waitMs = Math.min(10_000, Math.floor(this.config.timeoutMs / 2));
    for (;;) {
      const answer = await this.server.post(0, `${TRAINER_API}/retrieve_future`, { request_id: requestId, wait_ms: waitMs }, (json) => parseAnswer(FutureAnswerSchema, json, `${op} future`));
      if (answer.status === 'done') return parseAnswer(schema, answer.result, `${op} result`);
      if (answer.status === 'failed') throw new LudusError(answer.error.code as LudusErrorCode, `trainer server, ${op}: ${answer.error.message}`, { op });
    }
  }
}

/** A learn batch's rows as Datums: each row whole (padding included, so the server's batch is this very batch), every per-token input as a plain array. */
export function datumsOf(batch: LearnBatch): Datum[] {
  const { rows, cols } = batch;
  const row = (values: ArrayLike<number> | BigInt64Array, r: number): number[] => Array.from({ length: cols }, (_, c) => Number(values[r * cols + c]));
  // Per-row advantages broadcast as the learner broadcasts them: each value as float32.
  const advantages = (a: ArrayLike<number>, r: number): number[] => (a.length === rows ? new Array<number>(cols).fill(Math.fround(a[r])) : row(a, r));
  return Array.from({ length: rows }, (_, r) => ({
    model_input: { chunks: [{ type: 'encoded_text' as const, tokens: row(batch.inputIds, r) }] },
    loss_fn_inputs: {
      target_tokens: row(batch.targets, r),
      weights: row(batch.lossMask, r),
      ...(batch.oldLogprobs ? { logprobs: row(batch.oldLogprobs, r) } : {}),
      ...(batch.advantages ? { advantages: advantages(batch.advantages, r) } : {}),
      ...(batch.refLogprobs ? { ref_logprobs: row(batch.refLogprobs, r) } : {}),
      ...(batch.imitationMask ? { imitation_weights: row(batch.imitationMask, r) } : {}),
    },
  }));
}

/** The wire's loss knobs of one forward-backward call. */
export function lossFnConfig(batch: LearnBatch, options: ForwardBackwardOptions): Record<string, unknown> {
  return {
    ...(options.clipLow !== undefined ? { clip_low: options.clipLow } : {}),
    ...(options.clipHigh !== undefined ? { clip_high: options.clipHigh } : {}),
    ...(options.klBeta !== undefined ? { kl_beta: options.klBeta } : {}),
    ...(options.imitationWeight !== undefined ? { imitation_weight: options.imitationWeight } : {}),
    ...(options.entropyCoef !== undefined ? { entropy_coef: options.entropyCoef } : {}),
    ...(batch.normalization ? { normalization: batch.normalization } : {}),
  };
}

export function forwardBackwardStats(result: z.output<typeof ForwardBackwardResultSchema>): ForwardBackwardStats {
  return { loss: result.loss, tokens: result.tokens, kl: result.kl, entropy: result.entropy, clipped: result.clipped, microBatches: result.micro_batches };
}

export function optimStepResult(result: z.output<typeof OptimStepResultSchema>): AdamWStepResult {
  return { step: result.step, gradNorm: result.grad_norm, clipped: result.clipped };
}

/** The AdamW state a get_optimizer_state answer carries. */
export function adamWState(result: z.output<typeof OptimizerStateResultSchema>): AdamWState {
  const decode = (tensors: WireTensors) => Object.fromEntries(Object.entries(tensors).map(([name, t]) => [name, decodeTensor(t)]));
  return { step: result.step, m: decode(result.m), v: decode(result.v) };
}

