import type { Value } from '../../onnx/graph.ts';
import type { Tape } from '../tape.ts';

export interface AttentionShape {
  numHeads: number;
  numKvHeads: number;
  headDim: number;
  /** Multiplies the scores; 1 when the queries arrive pre-scaled. */
  scale: number;
}

/**
 * Causal grouped-query attention. q [B, T, H, hd], k and v [B, T, KV, hd]; `mask` is additive,
 * [G·T, T] with G = H/KV (a causal [T, T] tiled G times). Query heads that share a kv head are
 * folded into the row axis, [B, KV, G·T, hd], so k and v are never repeated and every product is
 * a plain batched MatMul. Returns [B, T, H, hd].
 *
 * Backward with P = softmax(S): dV = Pᵀ dO, dP = dO Vᵀ, dS = P ⊙ (dP − rowsum(dP ⊙ P)),
 * dQ = scale · dS K, dK = dSᵀ (scale · Q) (the fold sums dK over the group for free).
 */
export function causalAttention(tape: Tape, q: Value, k: Value, v: Value, mask: Value, shape: AttentionShape): Value {
  const { numHeads, numKvHeads, headDim, scale } = shape;
  const ints = (xs: number[]): Value => tape.graph.ints(xs);
  const toGroupedRows = (x: Value): Value =>
    tape.op1('Reshape', [tape.op1('Transpose', [x], { perm: [0, 2, 1, 3] }), ints([0, numKvHeads, -1, headDim])]);
  const fromGroupedRows = (x: Value): Value =>
    tape.op1('Transpose', [tape.op1('Reshape', [x, ints([0, numHeads, -1, headDim])])], { perm: [0, 2, 1, 3] });

  const qRows = scale === 1 ? toGroupedRows(q) : tape.op1('Mul', [toGroupedRows(q), tape.scalar(scale)]);
  const kRows = tape.op1('Transpose', [k], { perm: [0, 2, 1, 3] }); // [B, KV, T, hd]
  const vRows = tape.op1('Transpose', [v], { perm: [0, 2, 1, 3] });
  // A Transpose of the last two axes feeding MatMul is fused by ORT into one FusedMatMul.
  const lastTwoSwapped = (x: Value): Value => tape.op1('Transpose', [x], { perm: [0, 1, 3, 2] });
  const scores = tape.op1('Add', [tape.op1('MatMul', [qRows, lastTwoSwapped(kRows)]), mask]);
  const probs = tape.op1('Softmax', [scores], { axis: -1 });
  const y = fromGroupedRows(tape.op1('MatMul', [probs, vRows]));

  tape.record([q, k, v], y, (gy) => {
    const gOut = toGroupedRows(gy);
    const gProbs = tape.op1('MatMul', [gOut, lastTwoSwapped(vRows)]);
    const rowDot = tape.op1('ReduceSum', [tape.op1('Mul', [gProbs, probs]), ints([-1])], { keepdims: 1 });
    const gScores = tape.op1('Mul', [probs, tape.op1('Sub', [gProbs, rowDot])]);
    const backToTokens = (rows: Value): Value => tape.op1('Transpose', [rows], { perm: [0, 2, 1, 3] });
    let gqRows = tape.needsGrad(q) ? tape.op1('MatMul', [gScores, kRows]) : null;
    if (gqRows && scale !== 1) gqRows = tape.op1('Mul', [gqRows, tape.scalar(scale)]);
    return [
      gqRows ? fromGroupedRows(gqRows) : null,
      tape.needsGrad(k) ? backToTokens(tape.op1('MatMul', [lastTwoSwapped(gScores), qRows])) : null,
      tape.needsGrad(v) ? backToTokens(tape.op1('MatMul', [lastTwoSwapped(probs), gOut])) : null,
    ];
  });
  return y;
}

/** The additive causal mask [G·T, T] for `causalAttention`, built at run time from T. */
export function groupedCausalMask(tape: Tape, seqLen: Value, groups: number): Value {
  const g = tape.graph;
  const positions = g.op1('Range', [g.const([0], [], 'int64'), seqLen, g.const([1], [], 'int64')], {}, { dtypes: ['int64'] });
  const rows = g.op1('Unsqueeze', [positions, g.ints([1])]);
  const cols = g.op1('Unsqueeze', [positions, g.ints([0])]);
  const future = g.op1('Greater', [cols, rows], {}, { dtypes: ['bool'] });
  const mask = g.op1('Where', [future, tape.scalar(-1e9), tape.scalar(0)], {}, { dtypes: [tape.dtype] });
  return groups === 1 ? mask : g.op1('Tile', [mask, g.ints([groups, 1])]);
}
