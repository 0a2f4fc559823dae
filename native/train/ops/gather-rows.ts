import type { Value } from '../../onnx/graph.ts';
import type { Tape } from '../tape.ts';

/**
 * Rows of `table` [R, D] at int64 indices [M] (token embedding, or picking positions out of hidden
 * states). The gradient is a row scatter the tape adds with ScatterElements(reduction=add), so repeated
 * indices sum, in a fixed order, and no [M, R] one-hot or extra [R, D] zeros is ever built.
 */
export function gatherRows(tape: Tape, table: Value, rows: Value): Value {
  const y = tape.op1('Gather', [table, rows], { axis: 0 });
  // ScatterElements, not ScatterND: onnxruntime's CPU ScatterND(reduction=add) runs its updates on several
  // threads at once, so repeated indices (a token seen twice) sum in a varying order and the gradient changed from
  // run to run; its ScatterElements(reduction=add) adds them in order.
  tape.record([table], y, (gy) => [{ scatterRows: { indices: rows, updates: gy, like: table } }]);
  return y;
}
