import type { ModelConfig } from '../model/config.ts';
import { graphTensorShapes, trainableShapes } from '../model/lora.ts';
import { Graph, type Value } from '../onnx/graph.ts';
import { OPSET, opsFor, type OpSet } from '../model/op-set.ts';
import { Tape, type FloatDType } from './tape.ts';
import { buildNetwork, logits } from './network.ts';
import { gatherRows } from './ops/gather-rows.ts';
import { rowDot } from './ops/row-dot.ts';
import { denseLogitsGradient, tokenDistribution } from './token-distribution.ts';
import { exactKl, exactKlLogitsGradient, policyGradientObjective, sftObjective, type Objective, type ObjectiveTerms } from './objectives.ts';
import { entryOf } from '../../core/errors.ts';

export interface TrainGraphOptions {
  objective: Objective;
  dtype?: FloatDType;
  /**
   * Policy-gradient only: include the entropy bonus (the `entropy_coef` input). Without it the graph
   * skips two passes over [tokens, vocab]. Default true.
   */
  entropyBonus?: boolean;
  /**
   * Apply the LM head and the loss only at positions whose loss weight is nonzero (prompt and padding
   * need no logits). Per-token outputs then read 0 at the skipped positions. Default false.
   */
  weightedPositionsOnly?: boolean;
  /**
   * Policy-gradient only: the KL term is the exact per-position KL(π‖π_ref) over the whole vocabulary (tandem RL
   * appendix C, Eq. 2) instead of the k3 estimate from `ref_logprobs`. The reference model runs forward in the same
   * graph from its own weights, fed as `ref.<name>` (REFERENCE_PREFIX), and the KL is reduced in the graph. Default false.
   */
  klExact?: boolean;
  /** The ops the log-softmaxes are written in and the opset the graph is encoded at (OpSet); default 'cpu'. */
  opSet?: OpSet;
}

/** Graph input names of the reference model's weights when the KL is exact. */
export const REFERENCE_PREFIX = 'ref.';

/** A built graph and the names to feed and fetch. */
export interface BuiltGraph {
  model: Uint8Array;
  dtype: FloatDType;
  /** Every weight the graph reads (the base's, then an adapter's). */
  weightNames: string[];
  /** The weights with a `grad.<name>` output (train graphs): an adapter's alone when the config has one. */
  trainableNames: string[];
  inputNames: string[];
  outputNames: string[];
}

export const gradName = (weight: string): string => `grad.${weight}`;

/**
 * Forward + backward of one objective. Inputs: every weight (by HF name), `input_ids` and `targets`
 * [B, T] int64, per-token `weights` (and for policy-gradient `advantages`, `old_logprobs`,
 * `ref_logprobs` — or with `klExact` the reference's weights `ref.<name>` —, `imitation_weights`) [B, T], scalars
 * `temperature` (and `clip_low`, `clip_high`, `kl_beta`, `entropy_coef`).
 * Outputs: `loss`, `logprobs`, `entropy` (and `kl`, `clipped`) [B, T], for policy-gradient the scalar
 * `clip_count` (clipped tokens among those with nonzero weight), and `grad.<name>` per weight.
 */
export function buildTrainGraph(config: ModelConfig, options: TrainGraphOptions): BuiltGraph {
  const dtype = options.dtype ?? 'float32';
  const pg = options.objective === 'policy-gradient';
  const entropyBonus = pg && (options.entropyBonus ?? true);
  const klExact = pg && (options.klExact ?? false);
  const g = new Graph(`train-${options.objective}`);
  const tape = new Tape(g, dtype);
  const inputIds = g.input('input_ids', 'int64', ['batch', 'seq']);
  const targets = g.input('targets', 'int64', ['batch', 'seq']);
  const perToken = (name: string): Value => g.input(name, dtype, ['batch', 'seq']);
  const scalar = (name: string): Value => g.input(name, dtype, []);

  const weights = perToken('weights');
  const pgInputs = pg
    ? { advantages: perToken('advantages'), oldLogprobs: perToken('old_logprobs'), refLogprobs: klExact ? null : perToken('ref_logprobs'), imitationWeights: perToken('imitation_weights') }
    : null;
  const temperature = scalar('temperature');
  const knobs = pg
    ? { clipLow: scalar('clip_low'), clipHigh: scalar('clip_high'), klBeta: scalar('kl_beta'), entropyCoef: entropyBonus ? scalar('entropy_coef') : g.scalar(0, dtype) }
    : null;

  const net = buildNetwork(tape, config, inputIds, { temperature });
  // Positions with a loss: a policy-gradient weight or an imitation weight (both ≥ 0).
  const positions = options.weightedPositionsOnly ? weightedPositions(g, pgInputs ? g.op1('Add', [weights, pgInputs.imitationWeights]) : weights) : null;
  // Per-token tensors as [rows, 1] columns over the positions the loss is computed at.
  const column = (v: Value): Value => {
    const flat = g.op1('Reshape', [v, g.ints([-1])]);
    return g.op1('Unsqueeze', [positions ? g.op1('Gather', [flat, positions.rows], { axis: 0 }) : flat, g.ints([1])]);
  };
  const perTokenOutput = (v: Value, name: string): void => {
    const full = positions ? positions.spread(v) : v;
    g.output(g.op1('Reshape', [full, net.batchShape]), name, ['batch', 'seq']);
  };

  const headInput = positions ? gatherRows(tape, net.hidden, positions.rows) : net.hidden;
  const headLogits = logits(tape, net, headInput);
  const targetColumn = column(targets);
  const weightColumn = column(weights);
  const opSet = options.opSet ?? 'cpu';
  const dist = tokenDistribution(g, headLogits, targetColumn, opSet);
  // The frozen reference, forward only (its own tape is never run backward), at the same positions and temperature.
  const reference = klExact ? referenceLogProbs(g, dtype, config, inputIds, positions?.rows ?? null, temperature, opSet) : null;
  const kl = reference ? exactKl(g, dist.logProbsFull, dist.probs, reference) : null;
  // The same target logits again, [rows, 1], as their own path from the hidden rows and the head rows of
  // the targets: the one-hot part of the logits gradient is seeded here instead of scattered into [rows, V].
  const targetLogits = rowDot(tape, headInput, gatherRows(tape, net.head, g.op1('Reshape', [targetColumn, g.ints([-1])])));
  let terms: ObjectiveTerms;
  let denseExtra: Value | null = null;
  if (pgInputs && knobs) {
    const pgTerms = policyGradientObjective(g, dtype, dist.logprobs, dist.entropy, {
      weights: weightColumn,
      advantages: column(pgInputs.advantages),
      oldLogprobs: column(pgInputs.oldLogprobs),
      refLogprobs: pgInputs.refLogprobs ? column(pgInputs.refLogprobs) : dist.logprobs,
      ...(kl ? { exactKl: kl.kl } : {}),
      imitationWeights: column(pgInputs.imitationWeights),
      ...knobs,
    });
    if (kl) denseExtra = exactKlLogitsGradient(g, dist.probs, kl, g.op1('Mul', [weightColumn, knobs.klBeta]));
    perTokenOutput(pgTerms.kl, 'kl');
    perTokenOutput(pgTerms.clipped, 'clipped');
    g.output(clippedAmongWeighted(g, pgTerms.clipped, weightColumn), 'clip_count', []);
    terms = entropyBonus ? pgTerms : { ...pgTerms, dEntropy: null };
  } else {
    terms = sftObjective(g, dist.logprobs, weightColumn);
  }
  g.output(terms.loss, 'loss', []);
  perTokenOutput(dist.logprobs, 'logprobs');
  perTokenOutput(dist.entropy, 'entropy');

  const dense = denseLogitsGradient(g, dist, terms.dLogprob, terms.dEntropy);
  tape.backward([
    [headLogits, denseExtra ? g.op1('Add', [dense, denseExtra]) : dense],
    [targetLogits, terms.dLogprob],
  ]);
  const weightNames = [...graphTensorShapes(config).keys()];
  const shapes = trainableShapes(config);
  const trainableNames = [...shapes.keys()];
  for (const name of trainableNames) {
    const param = entryOf(net.params, name, 'the trainable parameter');
    const grad = tape.gradOf(param) ?? g.op1('Mul', [param, g.scalar(0, dtype)]);
    g.output(grad, gradName(name), shapes.get(name));
  }
  const inputNames = [
    ...weightNames,
    'input_ids',
    'targets',
    'weights',
    ...(pg ? ['advantages', 'old_logprobs', ...(klExact ? [] : ['ref_logprobs']), 'imitation_weights'] : []),
    'temperature',
    ...(pg ? ['clip_low', 'clip_high', 'kl_beta'] : []),
    ...(entropyBonus ? ['entropy_coef'] : []),
    ...(klExact ? weightNames.map((name) => `${REFERENCE_PREFIX}${name}`) : []),
  ];
  const outputNames = ['loss', 'logprobs', 'entropy', ...(pg ? ['kl', 'clipped', 'clip_count'] : []), ...trainableNames.map(gradName)];
  return { model: g.toBytes(OPSET[opSet]), dtype, weightNames, trainableNames, inputNames, outputNames };
}

/**
 * The reference model's log-probabilities over the vocabulary, [rows, V], at the flat positions `rows` (all B·T when
 * null): a second network on the same `input_ids`, its weights fed as `ref.<name>`, run forward only.
 */
function referenceLogProbs(g: Graph, dtype: FloatDType, config: ModelConfig, inputIds: Value, rows: Value | null, temperature: Value, opSet: OpSet): Value {
  const tape = new Tape(g, dtype);
  const net = buildNetwork(tape, config, inputIds, { temperature, inputPrefix: REFERENCE_PREFIX });
  return opsFor(g, opSet).logSoftmax(logits(tape, net, rows ? gatherRows(tape, net.hidden, rows) : net.hidden));
}

/** Σ clipped over the positions whose loss weight is nonzero: the numerator of clip_frac. */
function clippedAmongWeighted(g: Graph, clipped: Value, weights: Value): Value {
  const weighted = g.op1('Not', [g.op1('Equal', [weights, g.scalar(0, weights.dtype)], {}, { dtypes: ['bool'] })], {}, { dtypes: ['bool'] });
  const zero = g.scalar(0, clipped.dtype);
  return g.op1('ReduceSum', [g.op1('Where', [weighted, clipped, zero], {}, { dtypes: [clipped.dtype] })], { keepdims: 0 });
}

/** Flat indices of the positions with a nonzero loss weight, and the way back to all B·T positions. */
function weightedPositions(g: Graph, weights: Value): { rows: Value; spread: (column: Value) => Value } {
  const flat = g.op1('Reshape', [weights, g.ints([-1])]);
  const weighted = g.op1('Not', [g.op1('Equal', [flat, g.scalar(0, weights.dtype)], {}, { dtypes: ['bool'] })], {}, { dtypes: ['bool'] });
  const rows = g.op1('Reshape', [g.op1('NonZero', [weighted], {}, { dtypes: ['int64'] }), g.ints([-1])]);
  const zeros = g.op1('Mul', [flat, g.scalar(0, weights.dtype)]);
  const indices = g.op1('Unsqueeze', [rows, g.ints([1])]);
  return { rows, spread: (column) => g.op1('ScatterND', [zeros, indices, g.op1('Reshape', [column, g.ints([-1])])]) };
}

export interface ScoreGraphOptions {
  dtype?: FloatDType;
  /** Also return log p over the whole vocabulary, [B, T, V]. */
  fullLogProbs?: boolean;
  /** As TrainGraphOptions.opSet. */
  opSet?: OpSet;
}

/** Forward only: weights, `input_ids`, `targets`, `temperature` → `logprobs` [B, T] (and `log_probs_full`). */
export function buildScoreGraph(config: ModelConfig, options: ScoreGraphOptions = {}): BuiltGraph {
  const dtype = options.dtype ?? 'float32';
  const g = new Graph('score');
  const tape = new Tape(g, dtype);
  const inputIds = g.input('input_ids', 'int64', ['batch', 'seq']);
  const targets = g.input('targets', 'int64', ['batch', 'seq']);
  const temperature = g.input('temperature', dtype, []);
  const net = buildNetwork(tape, config, inputIds, { temperature });
  const opSet = options.opSet ?? 'cpu';
  const logProbsFull = opsFor(g, opSet).logSoftmax(logits(tape, net));
  const logprobs = g.op1('GatherElements', [logProbsFull, g.op1('Reshape', [targets, g.ints([-1, 1])])], { axis: 1 });
  g.output(g.op1('Reshape', [logprobs, net.batchShape]), 'logprobs', ['batch', 'seq']);
  if (options.fullLogProbs) {
    const fullShape = g.op1('Concat', [net.batchShape, g.ints([config.vocabSize])], { axis: 0 });
    g.output(g.op1('Reshape', [logProbsFull, fullShape]), 'log_probs_full', ['batch', 'seq', config.vocabSize]);
  }
  const weightNames = [...graphTensorShapes(config).keys()];
  return {
    model: g.toBytes(OPSET[opSet]),
    dtype,
    weightNames,
    trainableNames: [],
    inputNames: [...weightNames, 'input_ids', 'targets', 'temperature'],
    outputNames: ['logprobs', ...(options.fullLogProbs ? ['log_probs_full'] : [])],
  };
}
