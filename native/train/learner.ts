import { fail } from '../../core/errors.ts';
import type { ModelConfig } from '../model/config.ts';
import { validateWeights, type Weights } from '../model/weights.ts';
import { Session, type Feeds, type HostTensor } from '../ort.ts';
import { AdamW, type AdamWState } from './adamw.ts';
import { parseLearnerConfig, type LearnerConfig, type LearnerConfigInput } from './learner-config.ts';
import { lossWeights, type Normalization } from './normalization.ts';
import { buildScoreGraph, buildTrainGraph, gradName, type BuiltGraph } from './train-graph.ts';

export type TokenArray = ArrayLike<number> | BigInt64Array;

/** One optimizer step's worth of right-padded rows, flat row-major [rows, cols]. */
export interface LearnBatch {
  rows: number;
  cols: number;
  inputIds: TokenArray;
  /** The next token at each position (what the logprob is of). */
  targets: TokenArray;
  /** 1 where a token is trained on, 0 for prompt, padding and other authors. */
  lossMask: ArrayLike<number>;
  /** Per row [rows] or per token [rows · cols]; required for policy-gradient. */
  advantages?: ArrayLike<number>;
  /** Logprobs of the targets under the policy that sampled them; required for policy-gradient. */
  oldLogprobs?: ArrayLike<number>;
  /** Reference-policy logprobs; required when klBeta > 0. */
  refLogprobs?: ArrayLike<number>;
  /** Overrides the configured normalization for this batch. */
  normalization?: Normalization;
}

export interface StepStats {
  step: number;
  loss: number;
  gradNorm: number;
  clipped: boolean;
  /** Share of trained tokens whose clipped surrogate was active (policy-gradient only). */
  clipFraction: number;
  klMean: number;
  entropyMean: number;
  tokens: number;
  microBatches: number;
}

export interface ScoreBatch {
  rows: number;
  cols: number;
  inputIds: TokenArray;
  /** Defaults to the next input token; the last position of each row then scores 0. */
  targets?: TokenArray;
  temperature?: number;
}

/**
 * Trains one policy: holds its float32 weights (updated in place), AdamW, and one ORT session for
 * forward+backward, created once. Weights go to ORT zero-copy each run; gradients come back into
 * buffers allocated once.
 */
export class Learner {
  private scoreSession: Session | null = null;
  private readonly grads = new Map<string, Float32Array>();
  private readonly scratch = new Map<string, Float32Array>();

  private constructor(
    readonly modelConfig: ModelConfig,
    readonly weights: Weights,
    readonly config: LearnerConfig,
    readonly optimizer: AdamW,
    private readonly trainSession: Session,
    private readonly graph: BuiltGraph,
  ) {
    for (const [name, t] of weights) {
      this.grads.set(name, new Float32Array(t.data.length));
      this.scratch.set(name, new Float32Array(t.data.length));
    }
  }

  static async create(modelConfig: ModelConfig, weights: Weights, config: LearnerConfigInput = {}): Promise<Learner> {
    const parsed = parseLearnerConfig(config);
    validateWeights(modelConfig, weights, 'learner weights');
    const graph = buildTrainGraph(modelConfig, {
      objective: parsed.objective,
      maxSeqLen: parsed.maxSeqLen,
      entropyBonus: parsed.entropyCoef !== 0,
      weightedPositionsOnly: true,
    });
    const session = await Session.create(graph.model, { threads: parsed.threads, label: `learner ${parsed.objective}` });
    return new Learner(modelConfig, weights, parsed, new AdamW(weights, parsed.optimizer), session, graph);
  }

  get maxSeqLen(): number {
    return this.config.maxSeqLen ?? this.modelConfig.maxPositionEmbeddings;
  }

  /** Forward+backward over every micro-batch, then one AdamW update (none if anything is non-finite). */
  async step(batch: LearnBatch): Promise<StepStats> {
    this.validate(batch);
    const { rows, cols } = batch;
    const normalization = batch.normalization ?? this.config.normalization;
    const weights = lossWeights(batch.lossMask, rows, cols, normalization, this.config.constantTokens ?? cols);
    const perRow = this.config.microBatchRows ?? rows;
    let loss = 0;
    const sums = { tokens: 0, kl: 0, entropy: 0, clipped: 0 };
    let microBatches = 0;
    for (let r0 = 0; r0 < rows; r0 += perRow) {
      const r1 = Math.min(rows, r0 + perRow);
      if (!hasTrainedToken(batch.lossMask, r0 * cols, r1 * cols)) continue;
      const into = microBatches === 0 ? this.grads : this.scratch;
      const out = await this.runMicroBatch(batch, weights, r0, r1, into);
      if (microBatches > 0) for (const [name, g] of this.grads) addInto(g, this.scratch.get(name)!);
      loss += out.loss;
      sums.tokens += out.tokens;
      sums.kl += out.kl;
      sums.entropy += out.entropy;
      sums.clipped += out.clipped;
      microBatches++;
    }
    const update = this.optimizer.apply(this.grads, { loss });
    return {
      step: update.step,
      loss,
      gradNorm: update.gradNorm,
      clipped: update.clipped,
      clipFraction: sums.clipped / sums.tokens,
      klMean: sums.kl / sums.tokens,
      entropyMean: sums.entropy / sums.tokens,
      tokens: sums.tokens,
      microBatches,
    };
  }

  private async runMicroBatch(batch: LearnBatch, weights: Float32Array, r0: number, r1: number, into: Map<string, Float32Array>) {
    const { cols } = batch;
    // Right padding after a row's last trained token cannot influence it (causal): trim it away.
    const used = usedColumns(batch.lossMask, r0, r1, cols);
    const dims = [r1 - r0, used];
    const pick = (values: ArrayLike<number>): Float32Array => sliceRows(values, r0, r1, cols, used);
    const feeds: Feeds = {
      ...this.weightFeeds(),
      input_ids: int64Rows(batch.inputIds, r0, r1, cols, used),
      targets: int64Rows(batch.targets, r0, r1, cols, used),
      weights: f32(pick(weights), dims),
      temperature: f32(Float32Array.of(this.config.temperature), []),
    };
    const pg = this.config.objective === 'policy-gradient';
    if (pg) {
      const advantages = batch.advantages!.length === batch.rows ? perTokenFromRows(batch.advantages!, batch.rows, cols) : batch.advantages!;
      const old = pick(batch.oldLogprobs!);
      Object.assign(feeds, {
        advantages: f32(pick(advantages), dims),
        old_logprobs: f32(old, dims),
        ref_logprobs: f32(batch.refLogprobs ? pick(batch.refLogprobs) : old, dims),
        clip_low: f32(Float32Array.of(this.config.clipLow), []),
        clip_high: f32(Float32Array.of(this.config.clipHigh), []),
        kl_beta: f32(Float32Array.of(this.config.klBeta), []),
      });
      if (this.graph.inputNames.includes('entropy_coef')) feeds.entropy_coef = f32(Float32Array.of(this.config.entropyCoef), []);
    }
    const preallocated: Feeds = {};
    for (const [name, t] of this.weights) preallocated[gradName(name)] = { dtype: 'float32', dims: t.dims, data: into.get(name)! };
    const tokenOutputs = ['loss', 'entropy', ...(pg ? ['kl', 'clipped'] : [])];
    const out = await this.trainSession.run(feeds, [...tokenOutputs, ...Object.keys(preallocated)], preallocated);
    const mask = pick(batch.lossMask);
    const masked = (name: string): number => (out[name] ? dot(mask, out[name].data as Float32Array) : 0);
    return {
      loss: (out.loss.data as Float32Array)[0],
      tokens: mask.reduce((a, b) => a + b, 0),
      kl: masked('kl'),
      entropy: masked('entropy'),
      clipped: masked('clipped'),
    };
  }

  /** log p(target) per position, [rows · cols], from a forward-only graph. */
  async score(batch: ScoreBatch): Promise<Float32Array> {
    const { rows, cols } = batch;
    if (cols > this.maxSeqLen) fail('SEQUENCE_TOO_LONG', `score: ${cols} positions exceed the learner's ${this.maxSeqLen}`);
    checkLength('inputIds', batch.inputIds, rows * cols);
    if (!this.scoreSession) {
      const graph = buildScoreGraph(this.modelConfig, { maxSeqLen: this.config.maxSeqLen });
      this.scoreSession = await Session.create(graph.model, { threads: this.config.threads, label: 'learner score' });
    }
    const targets = batch.targets ?? nextTokens(batch.inputIds, rows, cols);
    const out = await this.scoreSession.run(
      {
        ...this.weightFeeds(),
        input_ids: int64Rows(batch.inputIds, 0, rows, cols, cols),
        targets: int64Rows(targets, 0, rows, cols, cols),
        temperature: f32(Float32Array.of(batch.temperature ?? this.config.temperature), []),
      },
      ['logprobs'],
    );
    const logprobs = Float32Array.from(out.logprobs.data as Float32Array);
    if (!batch.targets) for (let r = 0; r < rows; r++) logprobs[r * cols + cols - 1] = 0;
    return logprobs;
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
  }

  private weightFeeds(): Feeds {
    const feeds: Feeds = {};
    for (const name of this.graph.weightNames) {
      const t = this.weights.get(name)!;
      feeds[name] = { dtype: 'float32', dims: t.dims, data: t.data };
    }
    return feeds;
  }

  private validate(batch: LearnBatch): void {
    const { rows, cols } = batch;
    if (!Number.isInteger(rows) || rows <= 0 || !Number.isInteger(cols) || cols <= 0) fail('INPUT_INVALID', `batch shape [${rows}, ${cols}] is not positive`);
    if (cols > this.maxSeqLen) fail('SEQUENCE_TOO_LONG', `batch of ${cols} positions exceeds the learner's ${this.maxSeqLen}`, { cols });
    const n = rows * cols;
    checkLength('inputIds', batch.inputIds, n);
    checkLength('targets', batch.targets, n);
    checkLength('lossMask', batch.lossMask, n);
    checkTokenRange('inputIds', batch.inputIds, this.modelConfig.vocabSize);
    checkTokenRange('targets', batch.targets, this.modelConfig.vocabSize);
    if (this.config.objective !== 'policy-gradient') return;
    if (!batch.advantages) fail('INPUT_INVALID', 'policy-gradient batch has no advantages');
    if (batch.advantages!.length !== rows && batch.advantages!.length !== n) {
      fail('INPUT_INVALID', `advantages has length ${batch.advantages!.length}, expected ${rows} (per row) or ${n} (per token)`);
    }
    if (!batch.oldLogprobs) fail('INPUT_INVALID', 'policy-gradient batch has no oldLogprobs');
    checkLength('oldLogprobs', batch.oldLogprobs!, n);
    if (batch.refLogprobs) checkLength('refLogprobs', batch.refLogprobs, n);
    else if (this.config.klBeta > 0) fail('INPUT_INVALID', `klBeta is ${this.config.klBeta} but the batch has no refLogprobs`);
  }
}

function f32(data: Float32Array, dims: number[]): HostTensor {
  return { dtype: 'float32', dims, data };
}

function checkLength(name: string, values: { length: number }, expected: number): void {
  if (values.length !== expected) fail('INPUT_INVALID', `${name} has length ${values.length}, expected ${expected}`, { field: name });
}

function checkTokenRange(name: string, values: TokenArray, vocabSize: number): void {
  for (let i = 0; i < values.length; i++) {
    const id = Number(values[i]);
    if (!Number.isInteger(id) || id < 0 || id >= vocabSize) fail('INPUT_INVALID', `${name}[${i}] = ${id} is outside the vocabulary [0, ${vocabSize})`, { field: name, index: i });
  }
}

/** One past the last column with a nonzero mask in rows [r0, r1); at least 1. */
function usedColumns(mask: ArrayLike<number>, r0: number, r1: number, cols: number): number {
  let used = 1;
  for (let r = r0; r < r1; r++) {
    for (let t = cols - 1; t >= used; t--) {
      if (mask[r * cols + t] !== 0) {
        used = t + 1;
        break;
      }
    }
  }
  return used;
}

function sliceRows(values: ArrayLike<number>, r0: number, r1: number, cols: number, used: number): Float32Array {
  const out = new Float32Array((r1 - r0) * used);
  for (let r = r0; r < r1; r++) for (let t = 0; t < used; t++) out[(r - r0) * used + t] = values[r * cols + t];
  return out;
}

function int64Rows(values: TokenArray, r0: number, r1: number, cols: number, used: number): HostTensor {
  const out = new BigInt64Array((r1 - r0) * used);
  for (let r = r0; r < r1; r++) for (let t = 0; t < used; t++) out[(r - r0) * used + t] = BigInt(values[r * cols + t]);
  return { dtype: 'int64', dims: [r1 - r0, used], data: out };
}

function hasTrainedToken(mask: ArrayLike<number>, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (mask[i] !== 0) return true;
  return false;
}

function perTokenFromRows(perRow: ArrayLike<number>, rows: number, cols: number): Float32Array {
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) out.fill(perRow[r], r * cols, (r + 1) * cols);
  return out;
}

function nextTokens(ids: TokenArray, rows: number, cols: number): number[] {
  const out = new Array<number>(rows * cols).fill(0);
  for (let r = 0; r < rows; r++) for (let t = 0; t + 1 < cols; t++) out[r * cols + t] = Number(ids[r * cols + t + 1]);
  return out;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

function addInto(target: Float32Array, source: Float32Array): void {
  for (let i = 0; i < target.length; i++) target[i] += source[i];
}
