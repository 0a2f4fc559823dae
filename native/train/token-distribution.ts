import type { Graph, Value } from '../onnx/graph.ts';
import { opsFor, type OpSet } from '../model/op-set.ts';

/** Per-token quantities of the softmax over the vocabulary that the objectives need, all from one LogSoftmax. */
export interface TokenDistribution {
  /** log p over the vocabulary, [N, V]. */
  logProbsFull: Value;
  probs: Value;
  /** log p(target), [N, 1]. */
  logprobs: Value;
  /** −Σ p log p, [N, 1]. */
  entropy: Value;
}

/** `targetColumn` holds the target ids as [N, 1]; `opSet` the ops the log-softmax is written in. */
export function tokenDistribution(g: Graph, logits: Value, targetColumn: Value, opSet: OpSet = 'cpu'): TokenDistribution {
  const logProbsFull = opsFor(g, opSet).logSoftmax(logits);
  const probs = g.op1('Exp', [logProbsFull]);
  const logprobs = g.op1('GatherElements', [logProbsFull, targetColumn], { axis: 1 });
  const entropy = g.op1('Neg', [g.op1('ReduceSum', [g.op1('Mul', [probs, logProbsFull]), g.ints([-1])], { keepdims: 1 })]);
  return { logProbsFull, probs, logprobs, entropy };
}

/**
 * For a loss that reaches the logits z through log p(target) and the entropy H, with c = dL/d log p(target)
 * and e = dL/dH per token ([N, 1]):
 *   dL/dz = c·onehot(target) − c·p − e·p·(log p + H).
 * This returns the dense part, p·(k + b·log p) with b = −e and k = −(c + e·H). The one-hot part is c at
 * each row's target logit: seed it on the target logit itself (a [N, 1] value), so no [N, V] one-hot
 * or scatter is ever built.
 */
export function denseLogitsGradient(g: Graph, dist: TokenDistribution, dLogprob: Value, dEntropy: Value | null): Value {
  if (!dEntropy) return g.op1('Mul', [dist.probs, g.op1('Neg', [dLogprob])]);
  return g.op1('Mul', [
    dist.probs,
    g.op1('Sub', [g.op1('Neg', [g.op1('Add', [dLogprob, g.op1('Mul', [dEntropy, dist.entropy])])]), g.op1('Mul', [dEntropy, dist.logProbsFull])]),
  ]);
}
