import { randomUUID } from 'node:crypto';
import { fail } from '../../core/errors.ts';
import type { CheckpointLayout } from '../io/checkpoint.ts';
import type { StoredTensor, TensorWriter, WriteOptions } from '../io/safetensors.ts';
import type { ModelConfig } from '../model/config.ts';
import { initAdapter, trainableShapes, withAdapter } from '../model/lora.ts';
import { ensureFits, trainRunBytes } from '../model/memory.ts';
import type { LoraConfig } from '../model/lora-config.ts';
import type { Weights } from '../model/weights.ts';
import type { AdamWState, AdamWStepResult } from '../train/adamw.ts';
import { checkSeqLen, perTokenInputs, validateLearnBatch } from '../train/learn-batch.ts';
import type { LearnerBackend, TensorFile } from '../train/learner-backend.ts';
import type { ForwardBackwardOptions, ForwardBackwardStats, LearnBatch, OptimStepOptions } from '../train/learner.ts';
import type { LearnerConfig } from '../train/learner-config.ts';
import type { Objective } from '../train/objectives.ts';
import type { ChannelTensor, Reply, TorchWorker } from './torch-worker.ts';

export interface TorchModelSpec {
  /** The base model's files (read by the worker itself: it must see the same paths). */
  readonly layout: CheckpointLayout;
  /** A LoRA adapter over the frozen base, its initial values drawn from `seed` as the in-process learner draws them. */
  readonly lora?: { readonly config: LoraConfig; readonly seed: number };
  readonly learner: LearnerConfig;
}

/** The model config fields the worker's module tree is built from. */
const ARCHITECTURE_FIELDS = ['vocabSize', 'hiddenSize', 'intermediateSize', 'numLayers', 'numHeads', 'numKvHeads', 'headDim', 'rmsNormEps', 'ropeTheta', 'tieWordEmbeddings', 'qkNorm', 'qkvBias', 'oBias', 'mlpBias'] as const;

/**
 * One model trained by a PyTorch worker: the door's side of it. Batches are checked and their per-token inputs
 * (loss weights normalized over the batch, advantages broadcast, the reference defaulting to the behaviour
 * log-probabilities) built here by the code the in-process learner uses, so both learners compute the one objective
 * from the same numbers; the worker runs the model, autograd and AdamW, and reads and writes its tensors' files.
 */
export class TorchLearner implements LearnerBackend, TensorWriter {
  readonly trainableShapes: ReadonlyMap<string, readonly number[]>;
  private steps = 0;

  private constructor(
    private readonly worker: TorchWorker,
    readonly id: string,
    readonly config: ModelConfig,
    readonly learnerConfig: LearnerConfig,
    /** The number of trained parameters and the fingerprint of their starting values, as the worker reported them. */
    readonly created: { readonly trainableParameters: number; readonly fingerprint: string },
  ) {
    this.trainableShapes = trainableShapes(config);
  }

  /** Loads the base in the worker (the worker reads its files), with a fresh adapter when asked. */
  static async create(worker: TorchWorker, spec: TorchModelSpec): Promise<TorchLearner> {
    const { layout } = spec;
    const config = spec.lora ? withAdapter(layout.config, spec.lora.config) : layout.config;
    const id = `torch-${randomUUID()}`;
    const adapter = spec.lora ? [...initAdapter(config, spec.lora.seed)].map(([name, t]): ChannelTensor => ({ name, dims: t.dims, data: t.data })) : [];
    const { optimizer, microBatchRows } = spec.learner;
    const reply = await worker.request(
      'create',
      {
        model: id,
        config: Object.fromEntries(ARCHITECTURE_FIELDS.map((field) => [field, config[field]])),
        reads: layout.files.map((file) => ({ file: file.path, names: file.names })),
        ...(spec.lora ? { lora: { r: spec.lora.config.r, alpha: spec.lora.config.alpha, targets: spec.lora.config.targetModules } } : {}),
        learner: { optimizer, ...(microBatchRows !== undefined ? { microBatchRows } : {}) },
      },
      adapter,
    );
    return new TorchLearner(worker, id, config, spec.learner, { trainableParameters: Number(reply.header.trainable_parameters), fingerprint: String(reply.header.fingerprint) });
  }

  get objective(): Objective {
    return this.learnerConfig.objective;
  }

  get step(): number {
    return this.steps;
  }

  get saved(): TensorWriter {
    return this;
  }

  private get maxSeqLen(): number {
    return this.learnerConfig.maxSeqLen ?? this.config.maxPositionEmbeddings;
  }

  /**
   * The length, and for a worker on this machine's CPU the memory of its largest run (each process takes its share of
   * the rows, in runs of `microBatchRows`) as the in-process learner's estimate counts it, refused before anything is
   * sent; a worker on a GPU answers for its own memory (an out-of-memory there is MEMORY_INSUFFICIENT).
   */
  ensureStepFits(rows: number, cols: number): void {
    checkSeqLen(cols, this.maxSeqLen);
    if (this.worker.info.device !== 'cpu') return;
    const perRun = Math.min(Math.ceil(rows / this.worker.info.world), this.learnerConfig.microBatchRows ?? rows);
    ensureFits(`a forward+backward run of the torch worker over ${perRun} rows × ${cols} tokens`, this.worker.info.world * trainRunBytes(this.config, perRun, cols), { rows: perRun, cols });
  }

  async forwardBackward(batch: LearnBatch, options: ForwardBackwardOptions = {}): Promise<ForwardBackwardStats> {
    const c = this.learnerConfig;
    const klBeta = options.klBeta ?? c.klBeta;
    const entropyCoef = options.entropyCoef ?? c.entropyCoef;
    if (entropyCoef !== 0 && c.entropyCoef === 0) fail('CONFIG_INVALID', 'learner: an entropy bonus needs a learner created with a nonzero entropyCoef (its graph has no entropy input)');
    validateLearnBatch(batch, { objective: c.objective, klBeta, vocabSize: this.config.vocabSize, maxSeqLen: this.maxSeqLen });
    const { rows, cols } = batch;
    const inputs = perTokenInputs(batch, batch.normalization ?? c.normalization, c.constantTokens ?? cols, options.imitationWeight ?? c.imitationWeight);
    const dims = [rows, cols];
    const tensor = (name: string, data: Float32Array | Int32Array): ChannelTensor => ({ name, dims, data });
    const tensors = [
      tensor('input_ids', Int32Array.from(batch.inputIds as ArrayLike<number>, Number)),
      tensor('targets', Int32Array.from(batch.targets as ArrayLike<number>, Number)),
      tensor('weights', inputs.weights),
      tensor('mask', Float32Array.from(batch.lossMask)),
      ...(inputs.advantages ? [tensor('advantages', inputs.advantages)] : []),
      ...(inputs.oldLogprobs ? [tensor('old_logprobs', inputs.oldLogprobs)] : []),
      ...(inputs.refLogprobs ? [tensor('ref_logprobs', inputs.refLogprobs)] : []),
      ...(inputs.imitation?.some((w) => w !== 0) ? [tensor('imitation', inputs.imitation)] : []),
    ];
    const knobs = {
      objective: c.objective === 'sft' ? 'sft' : 'policy-gradient',
      temperature: c.temperature,
      clip_low: options.clipLow ?? c.clipLow,
      clip_high: options.clipHigh ?? c.clipHigh,
      kl_beta: klBeta,
      entropy_coef: entropyCoef,
    };
    const { header } = await this.worker.request('forward_backward', { model: this.id, rows, cols, knobs }, tensors);
    const n = (key: string): number => Number(header[key]);
    return { loss: n('loss'), tokens: n('tokens'), kl: n('kl'), entropy: n('entropy'), clipped: n('clipped'), microBatches: n('micro_batches') };
  }

  async optimStep(options: OptimStepOptions = {}): Promise<AdamWStepResult> {
    const { header } = await this.worker.request('optim_step', { model: this.id, ...(options.lr !== undefined ? { lr: options.lr } : {}) });
    this.steps = Number(header.step);
    return { step: this.steps, gradNorm: Number(header.grad_norm), clipped: header.clipped === true };
  }

  async trainedWeights(): Promise<Weights> {
    return weightsOf(await this.worker.request('get', { model: this.id, kind: 'param' }));
  }

  async fingerprint(): Promise<string> {
    return String((await this.worker.request('fingerprint', { model: this.id })).header.fingerprint);
  }

  async optimizerState(): Promise<AdamWState> {
    const moments = async (kind: 'm' | 'v') => Object.fromEntries([...weightsOf(await this.worker.request('get', { model: this.id, kind }))].map(([name, t]) => [name, t.data]));
    return { step: this.steps, m: await moments('m'), v: await moments('v') };
  }

  async loadState(weights: Readonly<Record<string, Float32Array>>, optimizer: AdamWState): Promise<void> {
    const tensors: ChannelTensor[] = [];
    for (const [name, dims] of this.trainableShapes) {
      tensors.push({ name: `p.${name}`, dims, data: weights[name] }, { name: `m.${name}`, dims, data: optimizer.m[name] }, { name: `v.${name}`, dims, data: optimizer.v[name] });
    }
    await this.worker.request('set', { model: this.id, step: optimizer.step }, tensors);
    this.steps = optimizer.step;
  }

  async loadFiles(files: readonly TensorFile[], step: number): Promise<void> {
    const sent = files.map((file) => ({ path: file.path, entries: [...file.tensors].map(([stored, t]) => [stored, t.kind, t.name]) }));
    await this.worker.request('read', { model: this.id, files: sent, step });
    this.steps = step;
  }

  async writeTensors(path: string, tensors: ReadonlyMap<string, StoredTensor>, options: WriteOptions = {}): Promise<void> {
    if ((options.dtype ?? 'F32') !== 'F32') fail('INPUT_INVALID', `the torch worker writes float32 tensors; ${options.dtype} was asked for ${path}`);
    const entries = [...tensors].map(([stored, t]) => [stored, t.kind, t.name, t.flat === true]);
    await this.worker.request('write', { model: this.id, path, entries, ...(options.metadata ? { metadata: options.metadata } : {}) });
  }

  async release(): Promise<void> {
    if (this.worker.alive) await this.worker.request('unload', { model: this.id });
  }
}

function weightsOf(reply: Reply): Weights {
  return new Map([...reply.tensors].map(([name, t]) => [name, { dims: t.dims, data: t.data }]));
}
