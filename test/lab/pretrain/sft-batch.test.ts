import { describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { sftBatch } from '../../../lab/pretrain/sft-batch.ts';
import { learningRate } from '../../../native/train/lr-schedule.ts';

describe('sftBatch', () => {
  describe('having two examples of different lengths', () => {
    const batch = sftBatch([{ prompt: [5, 6], completion: [7, 0] }, { prompt: [8], completion: [9, 10, 0] }], 1, 16);

    it('should right-pad to the longest and shift targets by one', () => {
      expect(batch).toMatchObject({ rows: 2, cols: 3 });
      expect(Array.from(batch.inputIds as Int32Array)).toEqual([5, 6, 7, 8, 9, 10]);
      expect(Array.from(batch.targets as Int32Array)).toEqual([6, 7, 0, 9, 10, 0]);
    });

    it('should train only on completion tokens', () => {
      expect(Array.from(batch.lossMask)).toEqual([0, 1, 1, 1, 1, 1]);
    });
  });

  it('should refuse an example longer than maxTokens with SEQUENCE_TOO_LONG', () => {
    expect(() => sftBatch([{ prompt: [1, 2, 3], completion: [4, 0] }], 1, 4)).toThrow(LudusError);
  });
});

describe('learningRate', () => {
  const schedule = { lr: 1, warmupSteps: 4, decay: 'cosine' as const, minRatio: 0.1 };
  it('should warm up linearly', () => {
    expect([0, 1, 2, 3].map((s) => learningRate(schedule, s, 104))).toEqual([0.25, 0.5, 0.75, 1]);
  });
  it('should decay by a cosine to lr·minRatio at the last step', () => {
    expect(learningRate(schedule, 54, 104)).toBeCloseTo(0.55, 6);
    expect(learningRate(schedule, 104, 104)).toBeCloseTo(0.1, 6);
  });
});
