import { describe, expect, it } from 'vitest';
import { temperedLogprob } from '../../../engine/trainer/reference-logprobs.ts';
import { meanK3 } from '../../../engine/trainer/k3.ts';

describe('meanK3', () => {
  it('should read 0 where the policy and the reference agree and be positive where they differ, over masked tokens only', () => {
    expect(meanK3([[-1, -2]], [[-1, -2]], [[1, 1]])).toBe(0);
    const delta = -0.5;
    expect(meanK3([[-1, -2]], [[-1.5, -9]], [[1, 0]])).toBeCloseTo(Math.exp(delta) - delta - 1, 12);
    expect(meanK3([[-1]], [[-2]], [[0]])).toBeNaN();
  });
});

describe('temperedLogprob', () => {
  it('should be log softmax(logp / T): the same row at T = 1, sharper below 1', () => {
    const row = Float32Array.from([Math.log(0.7), Math.log(0.2), Math.log(0.1)]);
    expect(temperedLogprob(row, 1, 1)).toBeCloseTo(Math.log(0.2), 6);
    const scaled = [0.7, 0.2, 0.1].map((p) => p ** (1 / 0.5));
    expect(temperedLogprob(row, 0, 0.5)).toBeCloseTo(Math.log(scaled[0] / scaled.reduce((a, b) => a + b)), 6);
  });
});
