import type { Value } from '../../onnx/graph.ts';
import type { Tape } from '../tape.ts';

/**
 * SwiGLU: silu(gate)·up = gate · (σ(gate)·up). Written as gate·a with a = σ·up so that ORT never sees
 * the x·Sigmoid(x) pattern it fuses into QuickGelu, which has no float64 kernel.
 * Backward: d/dgate = dy · a · (1 + gate·(1 − σ)), d/dup = dy · gate · σ.
 */
export function swiglu(tape: Tape, gate: Value, up: Value): Value {
  const sigma = tape.op1('Sigmoid', [gate]);
  const a = tape.op1('Mul', [sigma, up]);
  const y = tape.op1('Mul', [gate, a]);
  tape.record([gate, up], y, (gy) => {
    const one = tape.scalar(1);
    const gGate = tape.needsGrad(gate)
      ? tape.op1('Mul', [
          tape.op1('Mul', [gy, a]),
          tape.op1('Add', [one, tape.op1('Mul', [gate, tape.op1('Sub', [one, sigma])])]),
        ])
      : null;
    const gUp = tape.needsGrad(up) ? tape.op1('Mul', [tape.op1('Mul', [gy, gate]), sigma]) : null;
    return [gGate, gUp];
  });
  return y;
}
