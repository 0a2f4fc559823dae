import type { Value } from '../../onnx/graph.ts';
import type { Tape } from '../tape.ts';

/** y = x W^T + b for x [N, in] and a Hugging Face weight W [out, in]: one Gemm with transB, no Transpose. */
export function linear(tape: Tape, x: Value, weight: Value, bias?: Value): Value {
  const y = tape.op1('Gemm', bias ? [x, weight, bias] : [x, weight], { transB: 1 });
  const inputs = bias ? [x, weight, bias] : [x, weight];
  tape.record(inputs, y, (gy) => [
    tape.needsGrad(x) ? tape.op1('Gemm', [gy, weight]) : null,
    tape.needsGrad(weight) ? tape.op1('Gemm', [gy, x], { transA: 1 }) : null,
    bias && tape.needsGrad(bias) ? tape.op1('ReduceSum', [gy, tape.graph.ints([0])], { keepdims: 0 }) : null,
  ]);
  return y;
}

/**
 * y = c + x W^T in one Gemm (C as the accumulator, beta 1), for x [N, in], W [out, in] and c [N, out]: a LoRA
 * update added onto its base projection without a separate Add over [N, out] forward or backward.
 */
export function linearOnto(tape: Tape, x: Value, weight: Value, c: Value): Value {
  const y = tape.op1('Gemm', [x, weight, c], { transB: 1 });
  tape.record([x, weight, c], y, (gy) => [
    tape.needsGrad(x) ? tape.op1('Gemm', [gy, weight]) : null,
    tape.needsGrad(weight) ? tape.op1('Gemm', [gy, x], { transA: 1 }) : null,
    gy,
  ]);
  return y;
}
