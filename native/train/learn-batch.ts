import { fail } from '../../core/errors.ts';
import type { Objective } from './objectives.ts';
import { lossWeights, type Normalization } from './normalization.ts';

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
  /**
   * 1 where the imitation term (weight `imitationWeight` of the learner config) trains log p(target) up: tandem's
   * λ_jun on the junior's tokens. Normalized over itself like the loss mask; absent or all 0, no imitation term.
   */
  imitationMask?: ArrayLike<number>;
  /** Overrides the configured normalization for this batch. */
  normalization?: Normalization;
}

export interface BatchRules {
  objective: Objective;
  vocabSize: number;
  maxSeqLen: number;
  klBeta: number;
}

/** Rejects a batch the graphs cannot take, with INPUT_INVALID or SEQUENCE_TOO_LONG naming the field. */
export function validateLearnBatch(batch: LearnBatch, rules: BatchRules): void {
  const { rows, cols } = batch;
  if (!Number.isInteger(rows) || rows <= 0 || !Number.isInteger(cols) || cols <= 0) fail('INPUT_INVALID', `batch shape [${rows}, ${cols}] is not positive`);
  checkSeqLen(cols, rules.maxSeqLen);
  const n = rows * cols;
  checkLength('inputIds', batch.inputIds, n);
  checkLength('targets', batch.targets, n);
  checkLength('lossMask', batch.lossMask, n);
  checkTokenRange('inputIds', batch.inputIds, rules.vocabSize);
  checkTokenRange('targets', batch.targets, rules.vocabSize);
  if (rules.objective !== 'policy-gradient') return;
  if (!batch.advantages) fail('INPUT_INVALID', 'policy-gradient batch has no advantages');
  if (batch.advantages.length !== rows && batch.advantages.length !== n) {
    fail('INPUT_INVALID', `advantages has length ${batch.advantages.length}, expected ${rows} (per row) or ${n} (per token)`, { field: 'advantages' });
  }
  if (!batch.oldLogprobs) fail('INPUT_INVALID', 'policy-gradient batch has no oldLogprobs');
  checkLength('oldLogprobs', batch.oldLogprobs, n);
  if (batch.imitationMask) checkLength('imitationMask', batch.imitationMask, n);
  if (batch.refLogprobs) checkLength('refLogprobs', batch.refLogprobs, n);
  else if (rules.klBeta > 0) fail('INPUT_INVALID', `klBeta is ${rules.klBeta} but the batch has no refLogprobs`, { field: 'refLogprobs' });
}

export function checkSeqLen(cols: number, maxSeqLen: number): void {
  if (cols > maxSeqLen) fail('SEQUENCE_TOO_LONG', `${cols} positions exceed the learner's ${maxSeqLen}`, { cols, maxSeqLen });
}

export function checkLength(name: string, values: { length: number }, expected: number): void {
  if (values.length !== expected) fail('INPUT_INVALID', `${name} has length ${values.length}, expected ${expected}`, { field: name });
}

function checkTokenRange(name: string, values: TokenArray, vocabSize: number): void {
  for (let i = 0; i < values.length; i++) {
    const id = Number(values[i]);
    if (!Number.isInteger(id) || id < 0 || id >= vocabSize) fail('INPUT_INVALID', `${name}[${i}] = ${id} is outside the vocabulary [0, ${vocabSize})`, { field: name, index: i });
  }
}

/** The per-token float inputs of the train graph over the whole batch, [rows · cols] each. */
export interface PerTokenInputs {
  weights: Float32Array;
  advantages: Float32Array | null;
  oldLogprobs: Float32Array | null;
  refLogprobs: Float32Array | null;
  /** λ · the imitation mask, normalized; null for an SFT batch. */
  imitation: Float32Array | null;
  /** 1 where any term has a weight: what micro-batches are cut around. */
  trained: ArrayLike<number>;
}

/**
 * Loss weights normalized over the whole batch (so micro-batches sum to the same loss), advantages
 * broadcast to tokens, and the reference defaulting to the old logprobs (k3 then reads 0 at ratio 1).
 */
export function perTokenInputs(batch: LearnBatch, normalization: Normalization, constantTokens: number, imitationWeight = 0): PerTokenInputs {
  const { rows, cols } = batch;
  const asFloats = (values: ArrayLike<number> | undefined): Float32Array | null => (values ? Float32Array.from(values) : null);
  const oldLogprobs = asFloats(batch.oldLogprobs);
  const advantages = batch.advantages && batch.advantages.length === rows ? broadcastRows(batch.advantages, rows, cols) : asFloats(batch.advantages);
  const mask = imitationWeight > 0 ? batch.imitationMask : undefined;
  const imitating = mask !== undefined && Array.prototype.some.call(mask, (m: number) => m !== 0);
  const imitation = imitating ? lossWeights(mask, rows, cols, normalization, constantTokens).map((w) => w * imitationWeight) : null;
  return {
    weights: lossWeights(batch.lossMask, rows, cols, normalization, constantTokens),
    advantages,
    oldLogprobs,
    refLogprobs: asFloats(batch.refLogprobs) ?? oldLogprobs,
    imitation: advantages ? (imitation ?? new Float32Array(rows * cols)) : null,
    trained: imitating ? Float32Array.from(batch.lossMask, (m, i) => (m !== 0 || mask[i] !== 0 ? 1 : 0)) : batch.lossMask,
  };
}

function broadcastRows(perRow: ArrayLike<number>, rows: number, cols: number): Float32Array {
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) out.fill(perRow[r], r * cols, (r + 1) * cols);
  return out;
}
