import type { Graph, Value } from '../onnx/graph.ts';

/** Per-token quantities of the softmax over the vocabulary that the objectives need, all from one LogSoftmax. */
export interface TokenDistribution {
  /** log p over the vocabulary, [N, V]. */
  logProbsFull: Value;
  probs: Value;
  /** log p(target), [N, 1]. */
  logprobs: Value;
  /** −Σ p log p, [N, 1]. */
  entropy: Value;
  /** Target ids as [N, 1] column indices. */
  targetColumn: Value;
}

export function tokenDistribution(g: Graph, logits: Value, targets: Value): TokenDistribution {
  const logProbsFull = g.op1('LogSoftmax', [logits], { axis: -1 });
  const probs = g.op1('Exp', [logProbsFull]);
  const targetColumn = g.op1('Reshape', [targets, g.ints([-1, 1])]);
  const logprobs = g.op1('GatherElements', [logProbsFull, targetColumn], { axis: 1 });
  const entropy = g.op1('Neg', [g.op1('ReduceSum', [g.op1('Mul', [probs, logProbsFull]), g.ints([-1])], { keepdims: 1 })]);
  return { logProbsFull, probs, logprobs, entropy, targetColumn };
}

/**
 * d loss / d logits for a loss that depends on the logits through log p(target) and the entropy H,
 * given c = dL/d log p(target) and e = dL/dH per token ([N, 1]):
 *   dL/dz = c·(onehot − p) − e·p·(log p + H) = scatter_add(c at target) + p·(k + b·log p),
 * with b = −e and k = −(c + e·H). No one-hot is built.
 */
export function logitsGradient(g: Graph, dist: TokenDistribution, dLogprob: Value, dEntropy: Value | null): Value {
  const dense = dEntropy
    ? g.op1('Mul', [
        dist.probs,
        g.op1('Sub', [
          g.op1('Neg', [g.op1('Add', [dLogprob, g.op1('Mul', [dEntropy, dist.entropy])])]),
          g.op1('Mul', [dEntropy, dist.logProbsFull]),
        ]),
      ])
    : g.op1('Mul', [dist.probs, g.op1('Neg', [dLogprob])]);
  return g.op1('ScatterElements', [dense, dist.targetColumn, dLogprob], { axis: 1, reduction: 'add' });
}
