import type { Value } from '../../onnx/graph.ts';
import type { Tape } from '../tape.ts';

/** y = x W^T + b for x [N, in] and a Hugging Face weight W [out, in]: one Gemm with transB, no Transpose. */
export function linear(tape: Tape, x: Value, weight: Value, bias?: Value): Value {
  const y = tape.op1('Gemm', bias ? [x, weight, bias] : [x, weight], { transB: 1 });
  const inputs = bias ? [x, weight, bias] : [x, weight];
  tape.record(inputs, [y], ([gy]) => [
    tape.needsGrad(x) ? tape.op1('Gemm', [gy!, weight]) : null,
    tape.needsGrad(weight) ? tape.op1('Gemm', [gy!, x], { transA: 1 }) : null,
    bias && tape.needsGrad(bias) ? tape.op1('ReduceSum', [gy!, tape.graph.ints([0])], { keepdims: 0 }) : null,
  ]);
  return y;
}
