import { describe, expect, it } from 'vitest';
import { randomJudgeF1 } from '../../cli/verifier-axis.ts';

describe('randomJudgeF1 (the chance line printed beside a verifier\'s outcome F1)', () => {
  it('should be 2aq / (a + q) for a share a of solutions right and a share q called right (hand-computed)', () => {
    // The shipped judging base's counts: 52 of 256 right, 215 called right: 2 · 52 · 215 / (256 · 267) = 22360 / 68352.
    expect(randomJudgeF1({ tp: 41, fp: 174, fn: 11, tn: 30 })).toBeCloseTo(22360 / 68352, 12);
    // Half right, all called right: precision 1/2, recall 1, F1 2/3.
    expect(randomJudgeF1({ tp: 5, fp: 5, fn: 0, tn: 0 })).toBeCloseTo(2 / 3, 12);
  });

  it('should be 0 where nothing is right or nothing is called right, and undefined (null) with no verdict counted', () => {
    expect(randomJudgeF1({ tp: 0, fp: 0, fn: 0, tn: 8 })).toBe(0);
    expect(randomJudgeF1({ tp: 0, fp: 0, fn: 3, tn: 5 })).toBe(0);
    expect(randomJudgeF1({ tp: 0, fp: 0, fn: 0, tn: 0 })).toBeNull();
  });
});
