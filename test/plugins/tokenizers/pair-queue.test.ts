import { describe, expect, it } from 'vitest';
import { PairQueue } from '../../../plugins/tokenizers/pair-queue.ts';

describe('PairQueue', () => {
  describe('having pairs pushed in any order', () => {
    it('should pop the highest count first, the smaller pair among equal counts', () => {
      const queue = new PairQueue();
      for (const entry of [{ pair: 9, count: 3 }, { pair: 4, count: 7 }, { pair: 2, count: 3 }, { pair: 5, count: 1 }, { pair: 1, count: 7 }]) queue.push(entry);
      const popped = Array.from({ length: queue.size }, () => queue.pop()!.pair);
      expect(popped).toEqual([1, 4, 2, 9, 5]);
      expect(queue.pop()).toBeUndefined();
    });
  });
});
