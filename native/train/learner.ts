import { entryOf, fail } from '../../core/errors.ts';
import type { ModelConfig } from '../model/config.ts';
import { tensorOf, validateTensors, validateWeights, weightsBytes, type Weights } from '../model/weights.ts';
import { chooseRunBudget, ensureFits, FLOAT_BYTES, formatBytes, rowsWithinBudget, trainRunBytes } from '../model/memory.ts';
import { graphTensorShapes, trainableShapes } from '../model/lora.ts';
import { Session, type Feeds, type HostTensor } from '../ort.ts';
import { AdamW, type AdamWState, type AdamWStepResult } from './adamw.ts';
import { SQUARE_SUMS_MIN_ELEMENTS, SquareSums } from './square-sums.ts';
import { floatWindow, hasNonZero, int64Window, nextTokens, usedColumns, type RowWindow } from './batch-rows.ts';
import { checkLength, checkSeqLen, perTokenInputs, validateLearnBatch, type LearnBatch, type PerTokenInputs, type TokenArray } from './learn-batch.ts';
import { parseLearnerConfig, type LearnerConfig, type LearnerConfigInput } from './learner-config.ts';
import { buildScoreGraph, buildTrainGraph, gradName, REFERENCE_PREFIX, type BuiltGraph } from './train-graph.ts';

export type { LearnBatch, TokenArray } from './learn-batch.ts';

export interface StepStats {
  step: number;
  loss: number;
  /** Global gradient norm before clipping. */
  gradNorm: number;
  /** Whether the gradients were clipped to maxGradNorm. */
  clipped: boolean;
  /** Share of trained tokens whose clipped surrogate was active (policy-gradient only). */
  clipFraction: number;
  /** Mean KL to the reference over trained tokens (k3 or exact, as configured). */
  klMean: number;
  entropyMean: number;
  tokens: number;
  microBatches: number;
}

export interface StepOptions extends ForwardBackwardOptions, OptimStepOptions {}

export interface OptimStepOptions {
  /** Learning rate for this step only (schedules); defaults to the configured one. */
  lr?: number;
}

interface ClipOptions {
  /** ε_low of the clipped surrogate for this pass only; defaults to the configured one. */
  clipLow?: number;
  /** ε_high for this pass only. */
  clipHigh?: number;
}

export interface ForwardBackwardOptions extends ClipOptions {
  /** β of the KL term for this step only (a policy whose role, and so whose loss terms, change from step to step). */
  klBeta?: number;
  /** λ of the imitation term for this step only. */
  imitationWeight?: number;
  /** Coefficient of the entropy bonus for this step only; the learner must have been created with one (a graph input). */
  entropyCoef?: number;
}

export interface ScoreBatch {
  rows: number;
  cols: number;
  inputIds: TokenArray;
  /** Defaults to the next input token; the last position of each row then scores 0. */
  targets?: TokenArray;
  temperature?: number;
}

interface MicroBatchSums {
  loss: number;
  tokens: number;
  kl: number;
  entropy: number;
  clipped: number;
}

/** What one forward-backward call added up over its micro-batches: masked sums, and how many micro-batches ran. */
export interface ForwardBackwardStats extends MicroBatchSums {
  microBatches: number;
}

const SUM_KEYS = ['loss', 'tokens', 'kl', 'entropy', 'clipped'] as const;

const emptySums = (): ForwardBackwardStats => ({ loss: 0, tokens: 0, kl: 0, entropy: 0, clipped: 0, microBatches: 0 });

/** A step's statistics from its update and its forward-backward sums (per-token means over the trained tokens). */
export function stepStats(update: AdamWStepResult, sums: ForwardBackwardStats): StepStats {
  return {
    step: update.step,
    loss: sums.loss,
    gradNorm: update.gradNorm,
    clipped: update.clipped,
    clipFraction: sums.clipped / sums.tokens,
    klMean: sums.kl / sums.tokens,
    entropyMean: sums.entropy / sums.tokens,
    tokens: sums.tokens,
    microBatches: sums.microBatches,
  };
}

const trainedParameters = (c: ModelConfig): number => [...trainableShapes(c).values()].reduce((n, dims) => n + dims.reduce((a, b) => a * b, 1), 0);

/**
 * What a learner of this model allocates besides its runs: float32 gradients, two AdamW moments and, once a batch
 * runs in more than one micro-batch, a second gradient buffer.
 */
export const trainingStateBytes = (c: ModelConfig): number => 4 * trainedParameters(c) * FLOAT_BYTES;

/**
 * Trains one policy: its float32 weights (updated in place), AdamW, and one ORT session for
 * forward+backward, created once. Weights go to ORT zero-copy on every run; gradients come back into
 * buffers allocated once. The LM head runs only at trained positions. A config with a LoRA adapter trains the
 * adapter alone: gradients, AdamW moments and updates exist for its tensors only; the base is read, never written.
 */
export class Learner {
  private scoreSession: Session | null = null;
  private readonly grads = new Map<string, Float32Array>();
  /** The tensors trained: every weight, or an adapter's alone. */
  readonly trainable: Weights;
  /** Gradients of the second and later micro-batches before they are added up; allocated on first need. */
  private scratch: Map<string, Float32Array> | null = null;
  /** What the forward-backward passes since the last optimizer step added up (their gradients are in `grads`). */
  private pending: MicroBatchSums & { microBatches: number } = emptySums();
  /**
   * The largest run so far, as trainRunBytes estimates it: onnxruntime's arena keeps the memory of its largest run,
   * so a run no larger needs nothing more from the machine (it is already in the process's resident set).
   */
  private heldRunBytes = 0;

  private constructor(
    readonly modelConfig: ModelConfig,
    readonly weights: Weights,
    readonly config: LearnerConfig,
    readonly optimizer: AdamW,
    private readonly trainSession: Session,
    private readonly trainGraph: BuiltGraph,
    private readonly reference: Weights | undefined,
    /** The estimated memory one forward+backward run may take when the config sets no `microBatchRows`. */
    readonly runBudgetBytes: number,
    /** The clipping norm's sums for large gradients (none when every trained tensor is small). */
    private readonly squareSums: SquareSums | null,
  ) {
    this.trainable = new Map(trainGraph.trainableNames.map((name) => [name, tensorOf(weights, name)]));
    for (const [name, t] of this.trainable) this.grads.set(name, new Float32Array(t.data.length));
  }

  /**
   * `reference`: the frozen reference policy's weights (same architecture), needed by `klEstimator: 'exact'`, which
   * runs the reference inside the train graph; the k3 estimator reads batches' `refLogprobs` instead.
   */
  static async create(modelConfig: ModelConfig, weights: Weights, config: LearnerConfigInput = {}, reference?: Weights): Promise<Learner> {
    const parsed = parseLearnerConfig(config);
    const trained = trainedParameters(modelConfig);
    ensureFits(`training state of ${trained} parameters (float32 gradients and two AdamW moments)`, 3 * trained * FLOAT_BYTES);
    const runBudget = parsed.runBudgetBytes ?? chooseRunBudget(trainingStateBytes(modelConfig));
    validateTensors(graphTensorShapes(modelConfig), weights, 'learner weights');
    const klExact = parsed.objective === 'policy-gradient' && parsed.klEstimator === 'exact';
    if (klExact) validateWeights(modelConfig, reference ?? fail('CONFIG_INVALID', 'learner: klEstimator "exact" needs the reference policy\'s weights', { field: 'klEstimator' }), 'learner reference weights');
    const graph = buildTrainGraph(modelConfig, {
      objective: parsed.objective,
      entropyBonus: parsed.entropyCoef !== 0,
      weightedPositionsOnly: true,
      klExact,
      opSet: parsed.device === 'cpu' ? 'cpu' : 'gpu',
    });
    const session = await Session.create(graph.model, { threads: parsed.threads, device: parsed.device, label: `learner ${parsed.objective}`, spinning: 'idle' });
    const trainable = new Map(graph.trainableNames.map((name) => [name, tensorOf(weights, name)]));
    const large = [...trainable.values()].some((t) => t.data.length >= SQUARE_SUMS_MIN_ELEMENTS);
    const squareSums = large ? await SquareSums.create(parsed.threads) : null;
    return new Learner(modelConfig, weights, parsed, new AdamW(trainable, parsed.optimizer), session, graph, klExact ? reference : undefined, runBudget, squareSums);
  }

  /**
   * Refuses, before anything is allocated, a forward+backward over `rows` × `cols` whose runs (of `microBatchRows`
   * rows) cannot fit in memory: MEMORY_INSUFFICIENT naming the shape. Run by every forward_backward, and by a
   * trainer server when the call is submitted.
   */
  ensureStepFits(rows: number, cols: number): void {
    const perRun = this.rowsPerRun(rows, cols);
    const bytes = trainRunBytes(this.modelConfig, perRun, cols);
    const held = Math.min(bytes, this.heldRunBytes);
    const what = `a forward+backward run over ${perRun} rows × ${cols} tokens${held > 0 ? ` (beyond the ${formatBytes(held)} its session's arena kept from earlier runs)` : ''}`;
    ensureFits(what, bytes - held, { rows: perRun, cols, held });
  }

  /** Rows per forward+backward run: the config's `microBatchRows`, else as many as the run budget holds at this length. */
  rowsPerRun(rows: number, cols: number): number {
    return Math.min(rows, this.config.microBatchRows ?? rowsWithinBudget(this.modelConfig, rows, cols, this.runBudgetBytes));
  }

  get maxSeqLen(): number {
    return this.config.maxSeqLen ?? this.modelConfig.maxPositionEmbeddings;
  }

  /**
   * One optimizer step: `forwardBackward` over every micro-batch, then `optimStep` (no update if anything is
   * non-finite). The composition is the whole of it, so a step taken in two calls (the trainer API's) is this one.
   */
  async step(batch: LearnBatch, options: StepOptions = {}): Promise<StepStats> {
    const sums = await this.forwardBackward(batch, options);
    const update = await this.optimStep({ lr: options.lr });
    return stepStats(update, sums);
  }

  /**
   * Forward+backward over every micro-batch of `batch`, the gradients added to those accumulated since the last
   * `optimStep` (Tinker's forward_backward: several calls before one update sum their losses' gradients).
   */
  async forwardBackward(batch: LearnBatch, options: ForwardBackwardOptions = {}): Promise<ForwardBackwardStats> {
    const { objective } = this.config;
    const klBeta = options.klBeta ?? this.config.klBeta;
    const entropyCoef = options.entropyCoef ?? this.config.entropyCoef;
    if (entropyCoef !== 0 && this.config.entropyCoef === 0) fail('CONFIG_INVALID', 'learner: an entropy bonus needs a learner created with a nonzero entropyCoef (its graph has no entropy input)');
    // The exact KL reads the reference's weights, not per-token reference logprobs.
    validateLearnBatch(batch, { objective, klBeta: this.reference ? 0 : klBeta, vocabSize: this.modelConfig.vocabSize, maxSeqLen: this.maxSeqLen });
    const { rows, cols } = batch;
    this.ensureStepFits(rows, cols);
    const inputs = perTokenInputs(batch, batch.normalization ?? this.config.normalization, this.config.constantTokens ?? cols, options.imitationWeight ?? this.config.imitationWeight);
    const perRun = this.rowsPerRun(rows, cols);
    this.heldRunBytes = Math.max(this.heldRunBytes, trainRunBytes(this.modelConfig, perRun, cols));
    const sums: ForwardBackwardStats = { loss: 0, tokens: 0, kl: 0, entropy: 0, clipped: 0, microBatches: 0 };
    for (let r0 = 0; r0 < rows; r0 += perRun) {
      const r1 = Math.min(rows, r0 + perRun);
      if (!hasNonZero(inputs.trained, r0 * cols, r1 * cols)) continue;
      const window: RowWindow = { r0, r1, cols, used: usedColumns(inputs.trained, r0, r1, cols) };
      const first = this.pending.microBatches === 0;
      const into = first ? this.grads : this.scratchGrads();
      const run = await this.runMicroBatch(batch, inputs, window, into, klBeta, entropyCoef, options);
      if (!first) for (const [name, g] of this.grads) addInto(g, entryOf(into, name, 'the scratch gradient of'));
      for (const key of SUM_KEYS) {
        sums[key] += run[key];
        this.pending[key] += run[key];
      }
      sums.microBatches++;
      this.pending.microBatches++;
    }
    return sums;
  }

  /**
   * One AdamW update from the gradients accumulated since the last call (zero gradients when none were), which are
   * then spent: a non-finite loss or gradient raises NON_FINITE and leaves the weights and moments untouched.
   */
  async optimStep(options: OptimStepOptions = {}): Promise<AdamWStepResult> {
    if (this.pending.microBatches === 0) for (const g of this.grads.values()) g.fill(0);
    const loss = this.pending.loss;
    this.pending = emptySums();
    const squares = this.squareSums && Number.isFinite(loss) ? await this.squareSums.ofLarge(this.grads) : undefined;
    return this.optimizer.apply(this.grads, { loss, lr: options.lr, ...(squares ? { squares } : {}) });
  }

  private async runMicroBatch(batch: LearnBatch, inputs: PerTokenInputs, w: RowWindow, into: Map<string, Float32Array>, klBeta: number, entropyCoef: number, clip: ClipOptions): Promise<MicroBatchSums> {
    const dims = [w.r1 - w.r0, w.used];
    const perToken = (values: Float32Array): HostTensor => f32(floatWindow(values, w), dims);
    const candidates: Feeds = {
      ...this.weightFeeds(),
      ...this.referenceFeeds(),
      input_ids: int64Window(batch.inputIds, w),
      targets: int64Window(batch.targets, w),
      weights: perToken(inputs.weights),
      temperature: f32Scalar(this.config.temperature),
      clip_low: f32Scalar(clip.clipLow ?? this.config.clipLow),
      clip_high: f32Scalar(clip.clipHigh ?? this.config.clipHigh),
      kl_beta: f32Scalar(klBeta),
      entropy_coef: f32Scalar(entropyCoef),
    };
    if (inputs.advantages) candidates.advantages = perToken(inputs.advantages);
    if (inputs.oldLogprobs) candidates.old_logprobs = perToken(inputs.oldLogprobs);
    if (inputs.refLogprobs) candidates.ref_logprobs = perToken(inputs.refLogprobs);
    if (inputs.imitation) candidates.imitation_weights = perToken(inputs.imitation);
    const feeds: Feeds = Object.fromEntries(this.trainGraph.inputNames.map((name) => [name, candidates[name]]));

    const gradOutputs: Feeds = {};
    for (const [name, t] of this.trainable) gradOutputs[gradName(name)] = { dtype: 'float32', dims: t.dims, data: entryOf(into, name, 'the gradient buffer of') };
    const perTokenOutputs = ['entropy', 'kl', 'clipped'].filter((name) => this.trainGraph.outputNames.includes(name));
    const out = await this.trainSession.run(feeds, ['loss', ...perTokenOutputs, ...Object.keys(gradOutputs)], gradOutputs);

    const mask = floatWindow(batch.lossMask, w);
    const maskedSum = (name: string): number => (out[name] ? dot(mask, out[name].data as Float32Array) : 0);
    return {
      loss: (out.loss.data as Float32Array)[0],
      tokens: mask.reduce((a, b) => a + b, 0),
      kl: maskedSum('kl'),
      entropy: maskedSum('entropy'),
      clipped: maskedSum('clipped'),
    };
  }

  /** log p(target) per position, [rows · cols], from a forward-only graph (built on first use). */
  async score(batch: ScoreBatch): Promise<Float32Array> {
    const { rows, cols } = batch;
    checkSeqLen(cols, this.maxSeqLen);
    checkLength('inputIds', batch.inputIds, rows * cols);
    if (batch.targets) checkLength('targets', batch.targets, rows * cols);
    if (!this.scoreSession) {
      const graph = buildScoreGraph(this.modelConfig, { opSet: this.config.device === 'cpu' ? 'cpu' : 'gpu' });
      this.scoreSession = await Session.create(graph.model, { threads: this.config.threads, device: this.config.device, label: 'learner score', spinning: 'idle' });
    }
    const all: RowWindow = { r0: 0, r1: rows, cols, used: cols };
    const out = await this.scoreSession.run(
      {
        ...this.weightFeeds(),
        input_ids: int64Window(batch.inputIds, all),
        targets: int64Window(batch.targets ?? nextTokens(batch.inputIds, rows, cols), all),
        temperature: f32Scalar(batch.temperature ?? this.config.temperature),
      },
      ['logprobs'],
    );
    const logprobs = Float32Array.from(out.logprobs.data as Float32Array);
    if (!batch.targets) for (let r = 0; r < rows; r++) logprobs[r * cols + cols - 1] = 0;
    return logprobs;
  }

  private scratchGrads(): Map<string, Float32Array> {
    if (!this.scratch) {
      ensureFits('gradients of a second micro-batch', weightsBytes(this.trainable));
      this.scratch = new Map([...this.trainable].map(([name, t]) => [name, new Float32Array(t.data.length)]));
    }
    return this.scratch;
  }

  optimizerState(): AdamWState {
    return this.optimizer.state();
  }

  loadOptimizerState(state: AdamWState): void {
    this.optimizer.loadState(state);
  }

  async release(): Promise<void> {
    await this.trainSession.release();
    await this.scoreSession?.release();
    await this.squareSums?.release();
  }

  private weightFeeds(): Feeds {
    const feeds: Feeds = {};
    for (const name of this.trainGraph.weightNames) {
      const t = tensorOf(this.weights, name);
      feeds[name] = { dtype: 'float32', dims: t.dims, data: t.data };
    }
    return feeds;
  }

  /** The reference's weights under their `ref.` input names (exact KL only). */
  private referenceFeeds(): Feeds {
    const feeds: Feeds = {};
    if (this.reference) for (const [name, t] of this.reference) feeds[`${REFERENCE_PREFIX}${name}`] = { dtype: 'float32', dims: t.dims, data: t.data };
    return feeds;
  }
}

function f32(data: Float32Array, dims: number[]): HostTensor {
  return { dtype: 'float32', dims, data };
}

function f32Scalar(value: number): HostTensor {
  return f32(Float32Array.of(value), []);
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

function addInto(target: Float32Array, source: Float32Array): void {
  for (let i = 0; i < target.length; i++) target[i] += source[i];
}
