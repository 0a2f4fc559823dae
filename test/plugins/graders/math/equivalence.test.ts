import { describe, expect, it } from 'vitest';
import { StepBudget } from '../../../../plugins/graders/math/budget.ts';
import { expressionsEqual, valuesEqual } from '../../../../plugins/graders/math/equivalence.ts';
import { parseExpression } from '../../../../plugins/graders/math/parse-expression.ts';
import { exact, float } from '../../../../plugins/graders/math/value.ts';

const integer = (n: bigint, decimal = false) => exact({ n, d: 1n }, decimal);

describe('valuesEqual', () => {
  it('should compare exact non-decimal values exactly, however large', () => {
    expect(valuesEqual(integer(1_000_000n), integer(1_000_001n))).toBe(false);
    expect(valuesEqual(integer(10n ** 30n), integer(10n ** 30n + 1n))).toBe(false);
  });

  it('should give values written as decimals a relative tolerance of 1e-6', () => {
    expect(valuesEqual(exact({ n: 1n, d: 3n }), exact({ n: 3333333n, d: 10_000_000n }, true))).toBe(true);
    expect(valuesEqual(exact({ n: 1n, d: 3n }), exact({ n: 333n, d: 1000n }, true))).toBe(false);
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
