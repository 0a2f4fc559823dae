import { describe, expect, it } from 'vitest';
import type { GradingRules } from '../../../../plugins/graders/math/rules.ts';
import { normalizeAnswer } from '../../../../plugins/graders/math/normalize.ts';

const latexOf = (raw: string, rules?: GradingRules): string => normalizeAnswer(raw, undefined, rules).latex;

describe('normalizeAnswer', () => {
  describe('having presentation-only LaTeX', () => {
    it.each([
      ['\\dfrac{3}{4}', '\\frac{3}{4}'],
      ['\\tfrac12', '\\frac12'],
      ['\\left( 1, -2 \\right)', '( 1, -2 )'],
      ['\\left\\{1,2\\right\\}', '\\{1,2\\}'],
      ['\\displaystyle x', 'x'],
      ['$\\frac{1}{2}$', '\\frac{1}{2}'],
      ['\\(x\\)', 'x'],
      ['\\$18.00', '18.00'],
      ['18.', '18'],
      ['  7  ', '7'],
      ['1\\,000', '1000'],
      ['1{,}000', '1,000'],
      ['11,\\! 111', '11,111'],
      ['11,\\!111', '11,111'],
      ['1\u2009000\u2009000', '1000000'],
      ['1\u202f000', '1000'],
      ['1 000', '1000'],
      ['-7 425 000.5', '-7425000.5'],
      ['1 2', '1 2'],
      ['\u22127', '-7'],
      ['\u03c0/2', '\\pi /2'],
      ['sqrt(2)', '\\sqrt(2)'],
      ['x \\in [0,1)', 'x = [0,1)'],
    ])('should turn %s into %s', (raw, latex) => {
      expect(latexOf(raw)).toBe(latex);
    });
  });

  describe('having degrees', () => {
    it.each(['60^\\circ', '60^{\\circ}', '60\u00b0', '60 \\text{ degrees}', '60 degrees'])('should drop them from %s', (raw) => {
      expect(latexOf(raw)).toBe('60');
    });
  });

  describe('having units', () => {
    it.each([
      ['5\\text{ cm}', '5'],
      ['5 \\mathrm{cm}', '5'],
      ['5\\,\\mathrm{m}', '5'],
      ['25 \\text{ cm}^2', '25'],
      ['25\\text{ square units}', '25'],
      ['3 square feet', '3'],
      ['40 \\text{ miles per hour}', '40'],
      ['2\\sqrt{3} \\text{ cm}', '2\\sqrt{3}'],
      ['18 apples', '18'],
      ['72 \\text{ clips}', '72'],
    ])('should drop them from %s', (raw, latex) => {
      expect(latexOf(raw)).toBe(latex);
    });

    it('should keep single letters written bare: they are variables', () => {
      expect(latexOf('5 m')).toBe('5 m');
      expect(latexOf('2 ab')).toBe('2 ab');
    });
  });

  describe('having a percent sign', () => {
    it('should drop it and say so', () => {
      expect(normalizeAnswer('10\\%')).toEqual({ latex: '10', percent: true, plainPercent: false, worded: false });
      expect(normalizeAnswer('10').percent).toBe(false);
    });

    it('should tell a plain-text percent from LaTeX’s, and read one in words under Math-Verify’s rules', () => {
      expect(normalizeAnswer('12%')).toMatchObject({ latex: '12', percent: true, plainPercent: true });
      expect(normalizeAnswer('12 percent', undefined, 'math-verify')).toMatchObject({ latex: '12', percent: true, plainPercent: true });
      expect(normalizeAnswer('12 percent')).toMatchObject({ latex: '12', percent: false });
    });
  });

  describe('having Math-Verify’s rules', () => {
    it('should spell each relation one way', () => {
      for (const raw of ['x != 3', 'x \\ne 3', 'x \\not= 3', 'x \\neq 3']) expect(latexOf(raw, 'math-verify')).toBe('x \\neq 3');
      expect(latexOf('x >= 3', 'math-verify')).toBe('x \\ge 3');
      expect(latexOf('x != 3')).toBe('x != 3');
    });

    it('should make a text holding a number and words into words', () => {
      expect(normalizeAnswer('\\text{36 apples}', undefined, 'math-verify').worded).toBe(true);
      expect(normalizeAnswer('36 \\text{apples}', undefined, 'math-verify')).toMatchObject({ latex: '36', worded: false });
      expect(normalizeAnswer('\\text{36 apples}')).toMatchObject({ latex: '36', worded: false });
    });

    it('should keep digits grouped by plain spaces apart', () => {
      expect(latexOf('1 000', 'math-verify')).toBe('1 000');
      expect(latexOf('1 000')).toBe('1000');
    });
  });

  describe('having "and" / "or" between answers', () => {
    it('should turn them into commas', () => {
      expect(latexOf('2 \\text{ and } 3')).toBe('2 , 3');
      expect(latexOf('x = 2 or x = 3')).toBe('x = 2, x = 3');
    });
  });

  describe('having words', () => {
    it.each(['\\text{Monday}', 'Monday', '\\text{even}', '\\text{No solution}'])('should mark %s as worded', (raw) => {
      expect(normalizeAnswer(raw).worded).toBe(true);
    });

    it.each(['\\text{(C)}', 'x+y', '2ab', '\\sqrt{\\pi}', '\\begin{pmatrix}1\\\\2\\end{pmatrix}'])('should not mark %s as worded', (raw) => {
      expect(normalizeAnswer(raw).worded).toBe(false);
    });
  });
});
