import { describe, expect, it } from 'vitest';
import { Tape } from '../../../native/train/tape.ts';
import { linear } from '../../../native/train/ops/linear.ts';
import { gatherRows } from '../../../native/train/ops/gather-rows.ts';
import { rmsnorm } from '../../../native/train/ops/rmsnorm.ts';
import { swiglu } from '../../../native/train/ops/swiglu.ts';
import { rowDot } from '../../../native/train/ops/row-dot.ts';
import { rotary } from '../../../native/train/ops/rotary.ts';
import { causalAttention, groupedCausalMask } from '../../../native/train/ops/attention.ts';
import { ropeTables } from '../../../native/train/rope.ts';
import { gradCheck, int64 } from './gradcheck.ts';

const TOLERANCE = 1e-6;

describe('every tape op matches central finite differences in float64', () => {
  it('linear without bias: dx = dy W, dW = dyᵀ x', async () => {
    const r = await gradCheck(
      [{ name: 'x', dims: [3, 4] }, { name: 'w', dims: [5, 4] }],
      (tape, v) => linear(tape, v.x, v.w),
    );
    expect(r.checked).toBe(32);
    expect(r.maxRelativeError).toBeLessThan(TOLERANCE);
  });

  it('linear with bias: db sums dy over rows', async () => {
    const r = await gradCheck(
      [{ name: 'x', dims: [3, 4] }, { name: 'w', dims: [2, 4] }, { name: 'b', dims: [2] }],
      (tape, v) => linear(tape, v.x, v.w, v.b),
    );
    expect(r.maxRelativeError).toBeLessThan(TOLERANCE);
  });

  it('gatherRows (embedding): repeated ids accumulate into the same table row', async () => {
    const r = await gradCheck(
      [{ name: 'table', dims: [5, 3] }, { name: 'ids', dims: [6], fixed: int64([1, 4, 1, 0, 1, 4], [6]) }],
      (tape, v) => gatherRows(tape, v.table, v.ids),
    );
    expect(r.checked).toBe(15);
    expect(r.maxRelativeError).toBeLessThan(TOLERANCE);
  });

  it('rmsnorm: gradient through the normalizer and the scale', async () => {
    const r = await gradCheck(
      [{ name: 'x', dims: [4, 6] }, { name: 'w', dims: [6] }],
      (tape, v) => rmsnorm(tape, v.x, v.w, 1e-6),
    );
    expect(r.maxRelativeError).toBeLessThan(TOLERANCE);
  });

  it('rowDot: per-row dot product', async () => {
    const r = await gradCheck([{ name: 'a', dims: [3, 4] }, { name: 'b', dims: [3, 4] }], (tape, v) => rowDot(tape, v.a, v.b));
    expect(r.maxRelativeError).toBeLessThan(TOLERANCE);
  });

  it('swiglu: silu(gate) · up', async () => {
    const r = await gradCheck(
      [{ name: 'gate', dims: [3, 5] }, { name: 'up', dims: [3, 5] }],
      (tape, v) => swiglu(tape, v.gate, v.up),
    );
    expect(r.maxRelativeError).toBeLessThan(TOLERANCE);
  });

  it('rotary: rotate_half with cos/sin tables', async () => {
    const headDim = 4;
    const tables = ropeTables(headDim, 10000, 3, 'float64');
    const r = await gradCheck([{ name: 'x', dims: [2, 3, 2, headDim] }], (tape, v) => {
      const cos = tape.graph.const(tables.cos, [3, 1, headDim], 'float64');
      const sin = tape.graph.const(tables.signedSin, [3, 1, headDim], 'float64');
      return rotary(tape, v.x, cos, sin, headDim);
    });
    expect(r.maxRelativeError).toBeLessThan(TOLERANCE);
  });

  it('residual add, reshape, transpose and scalar scale', async () => {
    const r = await gradCheck([{ name: 'a', dims: [2, 6] }, { name: 'b', dims: [2, 6] }], (tape, v) => {
      const sum = tape.add(v.a, tape.scale(v.b, tape.scalar(0.5)));
      const reshaped = tape.reshape(sum, [2, 3, 2]);
      return tape.add(tape.transpose(reshaped, [2, 0, 1]), tape.transpose(tape.reshape(v.a, [2, 3, 2]), [2, 0, 1]));
    });
    expect(r.maxRelativeError).toBeLessThan(TOLERANCE);
  });

  const attentionCase = (numHeads: number, numKvHeads: number, scale: number) => async () => {
    const [B, T, hd] = [2, 4, 3];
    const r = await gradCheck(
      [
        { name: 'q', dims: [B, T, numHeads, hd] },
        { name: 'k', dims: [B, T, numKvHeads, hd] },
        { name: 'v', dims: [B, T, numKvHeads, hd] },
      ],
      (tape, v) => {
        const mask = groupedCausalMask(tape, tape.graph.const([T], [], 'int64'), numHeads / numKvHeads);
        return causalAttention(tape, v.q, v.k, v.v, mask, { numHeads, numKvHeads, headDim: hd, scale });
      },
    );
    expect(r.maxRelativeError).toBeLessThan(TOLERANCE);
  };
  it('causal attention, one kv head per query head', attentionCase(2, 2, 0.5));
  it('causal attention with grouped kv heads (GQA, 3 query heads per kv head)', attentionCase(6, 2, 1 / Math.sqrt(3)));
  it('causal attention with pre-scaled queries (scale 1)', attentionCase(2, 1, 1));

  it('a value used by several consumers sums their gradients', async () => {
    const r = await gradCheck([{ name: 'x', dims: [3, 3] }, { name: 'w', dims: [3, 3] }, { name: 'g', dims: [3] }], (tape, v) => {
      const h = linear(tape, v.x, v.w);
      return tape.add(linear(tape, h, v.w), rmsnorm(tape, h, v.g, 1e-6));
    });
    expect(r.maxRelativeError).toBeLessThan(TOLERANCE);
  });
});

describe('Tape', () => {
  it('records nothing for values that do not depend on a parameter', async () => {
    const { Graph } = await import('../../../native/onnx/graph.ts');
    const tape = new Tape(new Graph(), 'float64');
    const constant = tape.graph.const([1, 2], [1, 2], 'float64');
    const y = tape.add(constant, constant);
    expect(tape.needsGrad(y)).toBe(false);
  });
});
