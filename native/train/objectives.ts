import type { Graph, Value } from '../onnx/graph.ts';
import type { FloatDType } from './tape.ts';

export type Objective = 'policy-gradient' | 'sft';

/** Per-token tensors the policy-gradient objective reads, each [N, 1], and its scalar knobs. */
export interface PolicyGradientInputs {
  /** Loss weight per token, the mask and the normalization folded in. */
  weights: Value;
  advantages: Value;
  oldLogprobs: Value;
  /** The reference's log p(target), for the k3 estimate; unused when `exactKl` is given. */
  refLogprobs: Value;
  /** The exact per-position KL(π‖π_ref) over the vocabulary, [N, 1], in place of k3 (its gradient is dense: see `exactKl`). */
  exactKl?: Value;
  clipLow: Value;
  clipHigh: Value;
  klBeta: Value;
  entropyCoef: Value;
  /** λ-scaled weight of a supervised term −log p(target) per token (tandem's λ_jun on the junior's tokens); 0 elsewhere. */
  imitationWeights: Value;
}

export interface ObjectiveTerms {
  /** Σ weights · per-token loss: a scalar. */
  loss: Value;
  /** dL / d log p(target), [N, 1]. */
  dLogprob: Value;
  /** dL / dH, [N, 1]; null when the loss ignores the entropy. */
  dEntropy: Value | null;
}

export interface PolicyGradientTerms extends ObjectiveTerms {
  /** KL(π‖π_ref) per token: the k3 estimate exp(ref − lp) − (ref − lp) − 1, or the exact one when given. */
  kl: Value;
  /** 1 where the clipped surrogate is the active (zero-gradient) branch of the min. */
  clipped: Value;
}

/**
 * Clipped policy gradient with k3 KL and an entropy bonus, per token:
 *   ℓ = −min(r·A, clip(r, 1 − ε_low, 1 + ε_high)·A) + β·k3 − c_H·H,  r = exp(lp − old),
 * plus an imitation term −Σ imitation_weights · lp over the positions it weighs (their own normalization).
 * Its derivative in lp is written by hand: the min contributes −A·r where the unclipped branch is
 * active (r·A ≤ clip(r)·A) and 0 otherwise; k3 contributes β·(1 − exp(ref − lp)). With `exactKl` the KL term is
 * that value instead, and its gradient is left to the caller (`exactKlTerms`).
 */
export function policyGradientObjective(g: Graph, dtype: FloatDType, logprobs: Value, entropy: Value, x: PolicyGradientInputs): PolicyGradientTerms {
  const one = g.scalar(1, dtype);
  const ratio = g.op1('Exp', [g.op1('Sub', [logprobs, x.oldLogprobs])]);
  const clippedRatio = g.op1('Clip', [ratio, g.op1('Sub', [one, x.clipLow]), g.op1('Add', [one, x.clipHigh])]);
  const unclippedSurrogate = g.op1('Mul', [ratio, x.advantages]);
  const clippedSurrogate = g.op1('Mul', [clippedRatio, x.advantages]);
  const surrogate = g.op1('Min', [unclippedSurrogate, clippedSurrogate]);
  const unclippedActive = g.op1('LessOrEqual', [unclippedSurrogate, clippedSurrogate], {}, { dtypes: ['bool'] });
  const zero = g.scalar(0, dtype);

  const refMinusLp = g.op1('Sub', [x.refLogprobs, logprobs]);
  const refRatio = g.op1('Exp', [refMinusLp]);
  const kl = x.exactKl ?? g.op1('Sub', [g.op1('Sub', [refRatio, refMinusLp]), one]);

  const perToken = g.op1('Sub', [
    g.op1('Add', [g.op1('Neg', [surrogate]), g.op1('Mul', [x.klBeta, kl])]),
    g.op1('Mul', [x.entropyCoef, entropy]),
  ]);
  const imitation = g.op1('ReduceSum', [g.op1('Mul', [x.imitationWeights, logprobs])], { keepdims: 0 });
  const loss = g.op1('Sub', [g.op1('ReduceSum', [g.op1('Mul', [x.weights, perToken])], { keepdims: 0 }), imitation]);

  const surrogateSlope = g.op1('Where', [unclippedActive, g.op1('Neg', [unclippedSurrogate]), zero], {}, { dtypes: [dtype] });
  // The exact KL reaches the logits directly (a dense term added by the caller), not through log p(target).
  const slope = x.exactKl ? surrogateSlope : g.op1('Add', [surrogateSlope, g.op1('Mul', [x.klBeta, g.op1('Sub', [one, refRatio])])]);
  const dLogprob = g.op1('Sub', [g.op1('Mul', [x.weights, slope]), x.imitationWeights]);
  const dEntropy = g.op1('Neg', [g.op1('Mul', [x.weights, x.entropyCoef])]);
  const clipped = g.op1('Cast', [g.op1('Not', [unclippedActive], {}, { dtypes: ['bool'] })], { to: dtype === 'float64' ? 11 : 1 }, { dtypes: [dtype] });
  return { loss, dLogprob, dEntropy, kl, clipped };
}

/** Supervised cross-entropy: L = −Σ weights · log p(target). */
export function sftObjective(g: Graph, logprobs: Value, weights: Value): ObjectiveTerms {
  const loss = g.op1('Neg', [g.op1('ReduceSum', [g.op1('Mul', [weights, logprobs])], { keepdims: 0 })]);
  return { loss, dLogprob: g.op1('Neg', [weights]), dEntropy: null };
}

/** The exact per-position KL(π‖π_ref) = Σ_v p(v) (log p(v) − log p_ref(v)) and what its gradient needs. */
export interface ExactKl {
  /** [N, 1]. */
  kl: Value;
  /** log p − log p_ref, [N, V]. */
  logRatio: Value;
}

/**
 * KL(π‖π_ref) at each position from both models' full log-probabilities [N, V], reduced in the graph so no [N, V]
 * tensor ever leaves it (tandem RL appendix C, Eq. 2: the per-position KL of KL-Reg, in place of its k3 estimate).
 */
export function exactKl(g: Graph, logProbs: Value, probs: Value, refLogProbs: Value): ExactKl {
  const logRatio = g.op1('Sub', [logProbs, refLogProbs]);
  return { kl: g.op1('ReduceSum', [g.op1('Mul', [probs, logRatio]), g.ints([-1])], { keepdims: 1 }), logRatio };
}

/**
 * dL/dz of L = Σ_t c_t·KL_t with c = weights·β per position, [N, 1]: c·p·(log p − log p_ref − KL), since
 * dKL/dz_j = p_j (log p_j − log p_ref,j − KL). The reference is frozen: no gradient flows into it.
 */
export function exactKlLogitsGradient(g: Graph, probs: Value, kl: ExactKl, coefficient: Value): Value {
  return g.op1('Mul', [g.op1('Mul', [probs, coefficient]), g.op1('Sub', [kl.logRatio, kl.kl])]);
}
