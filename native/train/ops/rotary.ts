import type { Value } from '../../onnx/graph.ts';
import type { Tape } from '../tape.ts';

/** Exchanges the two halves of the last axis: a signed-free rotate_half, its own inverse. */
function swapHalves(tape: Tape, x: Value, headDim: number): Value {
  const half = headDim / 2;
  const [first, second] = tape.op('Split', [x, tape.graph.ints([half, half])], { axis: -1 }, { outputs: 2 });
  return tape.op1('Concat', [second, first], { axis: -1 });
}

/**
 * Rotary position embedding on x [B, T, heads, headDim] with tables [T, 1, headDim]:
 * y = x·cos + swap(x)·signedSin. Backward: dx = dy·cos + swap(dy·signedSin).
 */
export function rotary(tape: Tape, x: Value, cos: Value, signedSin: Value, headDim: number): Value {
  const y = tape.op1('Add', [tape.op1('Mul', [x, cos]), tape.op1('Mul', [swapHalves(tape, x, headDim), signedSin])]);
  tape.record([x], y, (gy) => [
    tape.op1('Add', [tape.op1('Mul', [gy, cos]), swapHalves(tape, tape.op1('Mul', [gy, signedSin]), headDim)]),
  ]);
  return y;
}
