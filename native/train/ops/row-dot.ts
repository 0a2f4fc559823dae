import type { Value } from '../../onnx/graph.ts';
import type { Tape } from '../tape.ts';

/** Per-row dot product of a and b [M, D] → [M, 1]. Backward: da = g·b, db = g·a. */
export function rowDot(tape: Tape, a: Value, b: Value): Value {
  const y = tape.op1('ReduceSum', [tape.op1('Mul', [a, b]), tape.graph.ints([-1])], { keepdims: 1 });
  tape.record([a, b], y, (gy) => [
    tape.needsGrad(a) ? tape.op1('Mul', [gy, b]) : null,
    tape.needsGrad(b) ? tape.op1('Mul', [gy, a]) : null,
  ]);
  return y;
}
