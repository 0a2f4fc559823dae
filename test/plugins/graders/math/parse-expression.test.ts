import { describe, expect, it } from 'vitest';
import { BudgetExceeded, StepBudget } from '../../../../plugins/graders/math/budget.ts';
import { evaluate } from '../../../../plugins/graders/math/evaluate.ts';
import { freeVariables } from '../../../../plugins/graders/math/expression.ts';
import { parseExpression } from '../../../../plugins/graders/math/parse-expression.ts';
import { Unparseable } from '../../../../plugins/graders/math/unparseable.ts';
import { toNumber, type Value } from '../../../../plugins/graders/math/value.ts';

const budget = (): StepBudget => new StepBudget();

function valueOf(latex: string, env: Record<string, number> = {}): Value {
  const values = new Map(Object.entries(env).map(([name, n]) => [name, { kind: 'exact', q: { n: BigInt(n), d: 1n }, decimal: false } as Value]));
  return evaluate(parseExpression(latex, budget()), values, budget());
}

/** The exact value as "n/d", or the float when it is not exact. */
function shown(latex: string, env: Record<string, number> = {}): string {
  const value = valueOf(latex, env);
  return value.kind === 'exact' ? (value.q.d === 1n ? `${value.q.n}` : `${value.q.n}/${value.q.d}`) : `~${value.x}`;
}

describe('parseExpression and evaluate', () => {
  describe('having arithmetic', () => {
    it.each([
      ['1+2*3', '7'],
      ['2^10', '1024'],
      ['2^{10}', '1024'],
      ['-2^2', '-4'],
      ['(-2)^2', '4'],
      ['\\frac{3}{4}', '3/4'],
      ['0.75', '3/4'],
      ['\\frac12', '1/2'],
      ['\\frac1{3}', '1/3'],
      ['\\frac{1}{2}+\\frac{1}{3}', '5/6'],
      ['1/2/2', '1/4'],
      ['2\\cdot3\\times4', '24'],
      ['6 \\div 4', '3/2'],
      ['x^{2}3', '12'],
      ['x^-1', '1/2'],
      ['2(3+1)', '8'],
      ['1.5e3', '1500'],
      ['2.5\\times10^{-3}', '1/400'],
      ['\\sqrt{16}', '4'],
      ['\\sqrt{\\frac{9}{4}}', '3/2'],
      ['\\sqrt[3]{-8}', '-2'],
      ['8^{2/3}', '4'],
      ['5!', '120'],
      ['\\binom{10}{3}', '120'],
      ['|-3|', '3'],
      ['\\lfloor 7/2 \\rfloor', '3'],
      ['\\lceil 7/2 \\rceil', '4'],
      ['\\lfloor -7/2 \\rfloor', '-4'],
    ])('should evaluate %s exactly to %s', (latex, expected) => {
      expect(shown(latex, { x: 2 })).toBe(expected);
    });
  });

  describe('having irrational values', () => {
    it.each([
      ['\\sqrt{2}', Math.SQRT2],
      ['2\\sqrt2', 2 * Math.SQRT2],
      ['\\frac{\\pi}{3}', Math.PI / 3],
      ['e^2', Math.E ** 2],
      ['\\sin\\frac{\\pi}{6}', 0.5],
      ['\\sin^2 x + \\cos^2 x', 1],
      ['\\log_2 8', 3],
      ['\\log 100', 2],
      ['\\ln e', 1],
    ])('should evaluate %s to about %d', (latex, expected) => {
      expect(toNumber(valueOf(latex, { x: 1 }))).toBeCloseTo(expected, 12);
    });
  });

  describe('having undefined values', () => {
    it.each(['\\frac{1}{0}', '\\sqrt{-4}', '(-8)^{1/2}', '\\ln(-1)', '(-1)!', '10^{10^{10}}'])('should give NaN for %s', (latex) => {
      expect(toNumber(valueOf(latex))).toBeNaN();
    });
  });

  describe('having juxtaposed letters and functions', () => {
    it('should read letters as a product of variables', () => {
      expect([...freeVariables(parseExpression('2ab + x_1 + x_{10} + \\theta', budget()))].sort()).toEqual(['\\theta', 'a', 'b', 'x_1', 'x_10']);
    });

    it('should end an unparenthesized function argument at the next function', () => {
      expect(toNumber(valueOf('\\sin x \\cos x', { x: 1 }))).toBeCloseTo(Math.sin(1) * Math.cos(1), 12);
    });

    it('should treat e as Euler\'s number', () => {
      expect(freeVariables(parseExpression('2e', budget())).size).toBe(0);
    });
  });

  describe('having LaTeX outside the supported subset', () => {
    it.each(['x < 3', '1, 2', 'a = b', '\\begin{pmatrix}1\\end{pmatrix}', '\\int x', '2 3', '(1+2', '', '\\frac{1}'])('should throw Unparseable for %j', (latex) => {
      expect(() => parseExpression(latex, budget())).toThrow(Unparseable);
    });
  });

  describe('having nesting past the limit', () => {
    it('should throw BudgetExceeded instead of overflowing the stack', () => {
      expect(() => parseExpression(`${'('.repeat(100_000)}1${')'.repeat(100_000)}`, budget())).toThrow(BudgetExceeded);
    });
  });

  describe('having more tokens than the step budget', () => {
    it('should throw BudgetExceeded', () => {
      const tight = new StepBudget({ maxSteps: 50, timeMs: 1000, maxDepth: 100 });
      expect(() => parseExpression(Array(100).fill('1').join('+'), tight)).toThrow(BudgetExceeded);
    });
  });
});
