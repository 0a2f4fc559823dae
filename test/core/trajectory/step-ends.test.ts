import { describe, expect, it } from 'vitest';
import { stepEnds } from '../../../core/trajectory/step-ends.ts';

const NN = 9; // a token whose text contains "\n\n"
const boundary = new Set([NN]);

describe('stepEnds', () => {
  describe('having steps closed by "\\n\\n" tokens and an unclosed last step', () => {
    it('should give every boundary token\'s index and the last token\'s', () => {
      expect(stepEnds([1, 2, NN, 3, NN, 4, 5], boundary)).toEqual([2, 4, 6]);
    });
  });

  describe('having a response that ends on a boundary token', () => {
    it('should not count the last token twice', () => {
      expect(stepEnds([1, NN, 2, NN], boundary)).toEqual([1, 3]);
    });
  });

  describe('having an empty response', () => {
    it('should have no steps', () => {
      expect(stepEnds([], boundary)).toEqual([]);
    });
  });
});
