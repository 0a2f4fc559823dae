import type { Value } from '../../onnx/graph.ts';
import type { Tape } from '../tape.ts';

/**
 * Rows of `table` [R, D] at int64 indices [M] (token embedding, or picking positions out of hidden
 * states). The gradient scatters back with ScatterElements(reduction=add) into zeros, so repeated
 * indices sum, in a fixed order, and no [M, R] one-hot is ever built.
 */
export function gatherRows(tape: Tape, table: Value, rows: Value): Value {
  const y = tape.op1('Gather', [table, rows], { axis: 0 });
  tape.record([table], [y], ([gy]) => {
    const zeros = tape.op1(
      'ConstantOfShape',
      [tape.op1('Shape', [table], {}, { dtypes: ['int64'] })],
      { value: { tensor: { dtype: tape.dtype, dims: [1], data: tape.dtype === 'float64' ? new Float64Array(1) : new Float32Array(1) } } },
      { dtypes: [tape.dtype] },
    );
    // ScatterElements, not ScatterND: onnxruntime's CPU ScatterND(reduction=add) runs its updates on several
    // threads at once, so repeated indices (a token seen twice) sum in a varying order and the gradient changed from
    // run to run; its ScatterElements(reduction=add) adds them in order.
    const indices = tape.op1('Expand', [tape.op1('Unsqueeze', [rows, tape.graph.ints([1])]), tape.op1('Shape', [gy!], {}, { dtypes: ['int64'] })]);
    return [tape.op1('ScatterElements', [zeros, indices, gy!], { axis: 0, reduction: 'add' })];
  });
  return y;
}
