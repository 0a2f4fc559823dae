import type { ModelConfig } from '../model/config.ts';
import { weightShapes } from '../model/weights.ts';
import { Graph, type Value } from '../onnx/graph.ts';
import { Tape, type FloatDType } from './tape.ts';
import { buildNetwork } from './network.ts';
import { logitsGradient, tokenDistribution } from './token-distribution.ts';
import { policyGradientObjective, sftObjective, type Objective, type ObjectiveTerms } from './objectives.ts';

export const PER_TOKEN_PG_INPUTS = ['weights', 'advantages', 'old_logprobs', 'ref_logprobs'] as const;
export const SCALAR_PG_INPUTS = ['clip_low', 'clip_high', 'kl_beta', 'entropy_coef', 'temperature'] as const;

export interface TrainGraphOptions {
  objective: Objective;
  dtype?: FloatDType;
  /** Longest sequence served; sizes the rotary tables. Defaults to max_position_embeddings. */
  maxSeqLen?: number;
}

/** A built graph and the names to feed and fetch. */
export interface BuiltGraph {
  model: Uint8Array;
  dtype: FloatDType;
  weightNames: string[];
  inputNames: string[];
  outputNames: string[];
}

export const gradName = (weight: string): string => `grad.${weight}`;

/**
 * Forward + backward of one objective. Inputs: every weight (by HF name), `input_ids` and `targets`
 * [B, T] int64, per-token `weights` (and for policy-gradient `advantages`, `old_logprobs`,
 * `ref_logprobs`) [B, T], scalars `temperature` (and `clip_low`, `clip_high`, `kl_beta`, `entropy_coef`).
 * Outputs: `loss`, `logprobs`, `entropy` (and `kl`, `clipped`) [B, T], and `grad.<name>` per weight.
 */
export function buildTrainGraph(config: ModelConfig, options: TrainGraphOptions): BuiltGraph {
  const dtype = options.dtype ?? 'float32';
  const g = new Graph(`train-${options.objective}`);
  const tape = new Tape(g, dtype);
  const inputIds = g.input('input_ids', 'int64', ['batch', 'seq']);
  const targets = g.input('targets', 'int64', ['batch', 'seq']);
  const perToken = (name: string): Value => g.input(name, dtype, ['batch', 'seq']);
  const column = (v: Value): Value => g.op1('Reshape', [v, g.ints([-1, 1])]);
  const scalar = (name: string): Value => g.input(name, dtype, []);

  const weights = perToken('weights');
  const pgInputs =
    options.objective === 'policy-gradient'
      ? { advantages: perToken('advantages'), oldLogprobs: perToken('old_logprobs'), refLogprobs: perToken('ref_logprobs') }
      : null;
  const temperature = scalar('temperature');
  const knobs =
    options.objective === 'policy-gradient'
      ? { clipLow: scalar('clip_low'), clipHigh: scalar('clip_high'), klBeta: scalar('kl_beta'), entropyCoef: scalar('entropy_coef') }
      : null;

  const net = buildNetwork(tape, config, inputIds, { maxSeqLen: options.maxSeqLen, temperature });
  const dist = tokenDistribution(g, net.logits, targets);
  const perTokenOutput = (v: Value, name: string): void => {
    g.output(g.op1('Reshape', [v, net.batchShape]), name, ['batch', 'seq']);
  };

  let terms: ObjectiveTerms;
  if (pgInputs && knobs) {
    const pg = policyGradientObjective(g, dtype, dist.logprobs, dist.entropy, {
      weights: column(weights),
      advantages: column(pgInputs.advantages),
      oldLogprobs: column(pgInputs.oldLogprobs),
      refLogprobs: column(pgInputs.refLogprobs),
      ...knobs,
    });
    perTokenOutput(pg.kl, 'kl');
    perTokenOutput(pg.clipped, 'clipped');
    terms = pg;
  } else {
    terms = sftObjective(g, dist.logprobs, column(weights));
  }
  g.output(terms.loss, 'loss', []);
  perTokenOutput(dist.logprobs, 'logprobs');
  perTokenOutput(dist.entropy, 'entropy');

  tape.backward([[net.logits, logitsGradient(g, dist, terms.dLogprob, terms.dEntropy)]]);
  const weightNames = [...weightShapes(config).keys()];
  for (const name of weightNames) {
    const param = net.params.get(name)!;
    const grad = tape.gradOf(param) ?? g.op1('Mul', [param, g.scalar(0, dtype)]);
    g.output(grad, gradName(name), weightShapes(config).get(name));
  }
  const inputNames = [
    ...weightNames,
    'input_ids',
    'targets',
    'weights',
    ...(pgInputs ? ['advantages', 'old_logprobs', 'ref_logprobs'] : []),
    'temperature',
    ...(knobs ? ['clip_low', 'clip_high', 'kl_beta', 'entropy_coef'] : []),
  ];
  const outputNames = ['loss', 'logprobs', 'entropy', ...(pgInputs ? ['kl', 'clipped'] : []), ...weightNames.map(gradName)];
  return { model: g.toBytes(), dtype, weightNames, inputNames, outputNames };
}

export interface ScoreGraphOptions {
  dtype?: FloatDType;
  maxSeqLen?: number;
  /** Also return log p over the whole vocabulary, [B, T, V]. */
  fullLogProbs?: boolean;
}

/** Forward only: weights, `input_ids`, `targets`, `temperature` → `logprobs` [B, T] (and `log_probs_full`). */
export function buildScoreGraph(config: ModelConfig, options: ScoreGraphOptions = {}): BuiltGraph {
  const dtype = options.dtype ?? 'float32';
  const g = new Graph('score');
  const tape = new Tape(g, dtype);
  const inputIds = g.input('input_ids', 'int64', ['batch', 'seq']);
  const targets = g.input('targets', 'int64', ['batch', 'seq']);
  const temperature = g.input('temperature', dtype, []);
  const net = buildNetwork(tape, config, inputIds, { maxSeqLen: options.maxSeqLen, temperature });
  const logProbsFull = g.op1('LogSoftmax', [net.logits], { axis: -1 });
  const logprobs = g.op1('GatherElements', [logProbsFull, g.op1('Reshape', [targets, g.ints([-1, 1])])], { axis: 1 });
  g.output(g.op1('Reshape', [logprobs, net.batchShape]), 'logprobs', ['batch', 'seq']);
  if (options.fullLogProbs) {
    const fullShape = g.op1('Concat', [net.batchShape, g.ints([config.vocabSize])], { axis: 0 });
    g.output(g.op1('Reshape', [logProbsFull, fullShape]), 'log_probs_full', ['batch', 'seq', config.vocabSize]);
  }
  const weightNames = [...weightShapes(config).keys()];
  return {
    model: g.toBytes(),
    dtype,
    weightNames,
    inputNames: [...weightNames, 'input_ids', 'targets', 'temperature'],
    outputNames: ['logprobs', ...(options.fullLogProbs ? ['log_probs_full'] : [])],
  };
}
