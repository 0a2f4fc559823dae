import { describe, expect, it } from 'vitest';
import { lastBoxed } from '../index.ts';

describe("the public entry ('ludus')", () => {
  describe('lastBoxed', () => {
    it('should read the last \\boxed{} answer, braces balanced, and nothing when there is none or it is cut short', () => {
      expect(lastBoxed('so \\boxed{3} then \\boxed{\\frac{1}{2}}.')).toBe('\\frac{1}{2}');
      expect(lastBoxed('Verdict: \\boxed{correct}')).toBe('correct');
      expect(lastBoxed('no answer')).toBeUndefined();
      expect(lastBoxed('\\boxed{12')).toBeUndefined();
    });
  });
});
