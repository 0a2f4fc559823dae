import { describe, expect, it } from 'vitest';
import { StepBudget } from '../../../../plugins/graders/math/budget.ts';
import { parseAnswer } from '../../../../plugins/graders/math/answer.ts';
import { answersEqual, expressionsEqual, valuesEqual } from '../../../../plugins/graders/math/equivalence.ts';
import { normalizeAnswer } from '../../../../plugins/graders/math/normalize.ts';
import { parseExpression } from '../../../../plugins/graders/math/parse-expression.ts';
import { exact, float } from '../../../../plugins/graders/math/value.ts';

const integer = (n: bigint, decimal = false) => exact({ n, d: 1n }, decimal);

describe('valuesEqual', () => {
  it('should compare exact non-decimal values exactly, however large', () => {
    expect(valuesEqual(integer(1_000_000n), integer(1_000_001n))).toBe(false);
    expect(valuesEqual(integer(10n ** 30n), integer(10n ** 30n + 1n))).toBe(false);
  });

  it('should give values under 1 written as decimals a relative tolerance of 1e-6', () => {
    expect(valuesEqual(exact({ n: 1n, d: 3n }), exact({ n: 3333333n, d: 10_000_000n }, true))).toBe(true);
    expect(valuesEqual(exact({ n: 1n, d: 3n }), exact({ n: 333n, d: 1000n }, true))).toBe(false);
    expect(valuesEqual(exact({ n: 123n, d: 1_000_000n }, true), exact({ n: 124n, d: 1_000_000n }, true))).toBe(false);
  });

  it('should hold larger values to six decimal places, as the standard verifiers round', () => {
    expect(valuesEqual(float(Math.PI), exact({ n: 3141593n, d: 1_000_000n }, true))).toBe(true);
    expect(valuesEqual(float(Math.PI), exact({ n: 314159n, d: 100_000n }, true))).toBe(false);
    expect(valuesEqual(integer(1_000_000n), exact({ n: 2_000_001n, d: 2n }, true))).toBe(false);
    expect(valuesEqual(float(1000 * Math.PI), exact({ n: 3141592654n, d: 1_000_000n }, true))).toBe(true);
  });

  it('should let values past 1e6 differ by a double’s own rounding', () => {
    expect(valuesEqual(float(1e12 * Math.PI), exact({ n: 3141592653589793n, d: 1000n }, true))).toBe(true);
  });

  it('should compare floats within tolerance, infinities by sign, and NaN never', () => {
    expect(valuesEqual(float(Math.PI), float(3.14159265))).toBe(true);
    expect(valuesEqual(float(Infinity), float(Infinity))).toBe(true);
    expect(valuesEqual(float(Infinity), float(-Infinity))).toBe(false);
    expect(valuesEqual(float(NaN), float(NaN))).toBe(false);
  });
});

describe('expressionsEqual', () => {
  const equal = (a: string, b: string): boolean => {
    const budget = new StepBudget();
    return expressionsEqual(parseExpression(a, budget), parseExpression(b, budget), budget);
  };

  it('should find expressions equal that agree at random points', () => {
    expect(equal('(x+y)^2', 'x^2+2xy+y^2')).toBe(true);
    expect(equal('\\frac{x^2-1}{x-1}', 'x+1')).toBe(true);
  });

  it('should find them different when they disagree anywhere sampled, including at negative points', () => {
    expect(equal('(x+y)^2', 'x^2+y^2')).toBe(false);
    expect(equal('|x|', 'x')).toBe(false);
  });

  it('should not call expressions equal that are undefined at every sample', () => {
    expect(equal('\\sqrt{-x^2-1}', '\\sqrt{-x^2-2}')).toBe(false);
  });
});

describe('answersEqual', () => {
  const answer = (raw: string, budget: StepBudget) => parseAnswer(normalizeAnswer(raw), budget);
  const equal = (gold: string, pred: string): boolean => {
    const budget = new StepBudget();
    return answersEqual(answer(gold, budget), answer(pred, budget), budget);
  };

  describe('having a bare gold and a predicted relation', () => {
    it('should compare the relation’s last side', () => {
      expect(equal('4', 'AB = 4')).toBe(true);
      expect(equal('101', 'a + 2z = 2z + a = 101')).toBe(true);
      expect(equal('(1, 2)', 'P = (1, 2)')).toBe(true);
      expect(equal('4', 'AB = 5')).toBe(false);
    });
  });

  describe('having a gold relation and a bare prediction', () => {
    it('should not match: a relation is answered by a relation', () => {
      expect(equal('AB = 4', '4')).toBe(false);
      expect(equal('a + 2z = 2z + a = 101', '101')).toBe(false);
      expect(equal('AB = 4', 'AB = 4')).toBe(true);
      expect(equal('a+b = b+a = 101', 'a + b = b + a = 101')).toBe(true);
    });
  });

  describe('having inequalities and intervals', () => {
    it('should match a gold inequality by its interval and by the same inequality flipped', () => {
      expect(equal('x > 3', '(3, \\infty)')).toBe(true);
      expect(equal('x > 3', '3 < x')).toBe(true);
      expect(equal('x > 3', 'y > 3')).toBe(false);
      expect(equal('-1 < x \\le 2', 'x \\in (-1, 2]')).toBe(true);
    });

    it('should not match a gold interval by an inequality', () => {
      expect(equal('(3, \\infty)', 'x > 3')).toBe(false);
    });
  });

  describe('having matrices', () => {
    it('should compare cells in place, whatever the brackets', () => {
      expect(equal('\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}', '\\begin{bmatrix} 1 & 2 \\\\ 3 & 4 \\end{bmatrix}')).toBe(true);
      expect(equal('\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}', '\\begin{pmatrix} 1 & 3 \\\\ 2 & 4 \\end{pmatrix}')).toBe(false);
      expect(equal('\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}', '(1, 2)')).toBe(false);
    });
  });

  describe('having unions and lists', () => {
    it('should read a union of finite sets as one set, and match unions and lists item by item', () => {
      expect(equal('\\{1,3\\} \\cup \\{2,4\\}', '\\{1,2,3,4\\}')).toBe(true);
      expect(equal('(0,1) \\cup (2,3)', '(2,3), (0,1)')).toBe(true);
      expect(equal('(0,1) \\cup (2,3)', '(0,1), (2,4)')).toBe(false);
    });
  });
});
