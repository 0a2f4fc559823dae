import { describe, expect, it } from 'vitest';
import { Rng } from '../../../core/rng.ts';
import { initWeights, presetConfig } from '../../../native/model/presets.ts';
import { Learner } from '../../../native/train/learner.ts';
import { SQUARE_SUMS_MIN_ELEMENTS, SquareSums } from '../../../native/train/square-sums.ts';

const doubleSum = (x: Float32Array): number => x.reduce((s, v) => s + v * v, 0);

describe('the clipping norm of large gradients on onnxruntime', () => {
  it("should sum a tensor's squares to within 1e-6 of a double-precision sum, its tail past the last whole row included", async () => {
    const rng = new Rng(3);
    const sums = await SquareSums.create(2);
    for (const n of [1, 1023, 1024, 2 * 1024 * 1024 + 517]) {
      const x = Float32Array.from({ length: n }, () => rng.normal() * 1e-3);
      expect(Math.abs((await sums.of(x)) / doubleSum(x) - 1)).toBeLessThan(1e-6);
    }
    // 4M equal values, where rounding errors add up instead of cancelling: a float32 sum over each 1M-element run was
    // 0.12% off; per row of 1024, within 1e-5.
    const equal = new Float32Array(4 * 1024 * 1024).fill(1e-3);
    expect(Math.abs((await sums.of(equal)) / doubleSum(equal) - 1)).toBeLessThan(1e-5);
    await sums.release();
  });

  it('should carry a non-finite element into the sum, and sum only the large tensors of a map', async () => {
    const sums = await SquareSums.create(1);
    const bad = new Float32Array(4096).fill(1);
    bad[2000] = Number.NaN;
    expect(await sums.of(bad)).toBeNaN();
    bad[2000] = Number.POSITIVE_INFINITY;
    expect(await sums.of(bad)).toBe(Number.POSITIVE_INFINITY);
    const large = new Float32Array(SQUARE_SUMS_MIN_ELEMENTS).fill(0.5);
    const picked = await sums.ofLarge(new Map([['small', new Float32Array(10).fill(1)], ['large', large]]));
    expect([...picked]).toEqual([['large', SQUARE_SUMS_MIN_ELEMENTS * 0.25]]);
    await sums.release();
  });

  it("should give a learner with a large tensor the gradient norm of its gradients' double-precision sum", async () => {
    const config = presetConfig('qwen3-4m');
    expect(config.vocabSize * config.hiddenSize).toBeGreaterThanOrEqual(SQUARE_SUMS_MIN_ELEMENTS);
    const learner = await Learner.create(config, initWeights(config, 1), { objective: 'sft', threads: 2, optimizer: { maxGradNorm: null } });
    const rng = new Rng(1);
    const n = 2 * 32;
    const batch = { rows: 2, cols: 32, inputIds: Int32Array.from({ length: n }, () => rng.int(config.vocabSize)), targets: Int32Array.from({ length: n }, () => rng.int(config.vocabSize)), lossMask: new Float32Array(n).fill(1) };
    await learner.forwardBackward(batch);
    const grads = (learner as unknown as { grads: Map<string, Float32Array> }).grads;
    const expected = Math.sqrt([...grads.values()].reduce((s, g) => s + doubleSum(g), 0));
    const { gradNorm } = await learner.optimStep();
    expect(Math.abs(gradNorm / expected - 1)).toBeLessThan(1e-6);
    await learner.release();
  });
});
