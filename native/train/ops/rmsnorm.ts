import type { Value } from '../../onnx/graph.ts';
import type { Tape } from '../tape.ts';

/**
 * RMSNorm over the last axis of x [M, D]: y = x · (mean(x²) + eps)^-1/2 · w, decomposed so that the
 * backward can reuse n = x·r and r. With g = dy·w: dx = r · (g − n · mean(g·n)), dw = Σ_rows dy·n.
 */
export function rmsnorm(tape: Tape, x: Value, weight: Value, eps: number): Value {
  const lastAxis = tape.graph.ints([-1]);
  const meanSquare = tape.op1('ReduceMean', [tape.op1('Mul', [x, x]), lastAxis], { keepdims: 1 });
  const r = tape.op1('Reciprocal', [tape.op1('Sqrt', [tape.op1('Add', [meanSquare, tape.scalar(eps)])])]);
  const n = tape.op1('Mul', [x, r]);
  const y = tape.op1('Mul', [n, weight]);
  tape.record([x, weight], y, (gy) => {
    let gx: Value | null = null;
    if (tape.needsGrad(x)) {
      const g = tape.op1('Mul', [gy, weight]);
      const dot = tape.op1('ReduceMean', [tape.op1('Mul', [g, n]), lastAxis], { keepdims: 1 });
      gx = tape.op1('Mul', [tape.op1('Sub', [g, tape.op1('Mul', [n, dot])]), r]);
    }
    const gw = tape.needsGrad(weight) ? tape.op1('ReduceSum', [tape.op1('Mul', [gy, n]), tape.graph.ints([0])], { keepdims: 0 }) : null;
    return [gx, gw];
  });
  return y;
}
