import { describe, expect, it } from 'vitest';
import { StepBudget } from '../../../../plugins/graders/math/budget.ts';
import { EXTRACTION_STEPS, extractAnswer, extractGold, FULL_EXTRACTION, parseExtractionOrder, STRICT_EXTRACTION, type ExtractionStep } from '../../../../plugins/graders/math/extract.ts';

const extract = (text: string, order: readonly ExtractionStep[] = FULL_EXTRACTION) => extractAnswer(text, order, new StepBudget());

describe('extractAnswer', () => {
  describe('having the full order', () => {
    it.each<[string, string, ExtractionStep]>([
      ['we get \\boxed{5}.', '5', 'boxed'],
      ['Final Answer: The final answer is $28\\%$. I hope it is correct.', '28\\%', 'final-answer'],
      ['The answer is 3.5.', '3.5', 'final-answer'],
      ['So the answer is therefore 12.', '12', 'final-answer'],
      ['The answer is approximately -3.5 meters.', '-3.5 meters', 'final-answer'],
      ['The answer is Monday.', 'Monday', 'final-answer'],
      ['Answer: x = 2', 'x = 2', 'final-answer'],
      ['**Final Answer** $\\frac{1}{2}$', '\\frac{1}{2}', 'final-answer'],
      ['The final answer is \\(7\\), I think.', '7', 'final-answer'],
      ['First $a = 1$, then $b = 2$.', 'b = 2', 'math-mode'],
      ['Hence \\(y = 2\\) holds.', 'y = 2', 'math-mode'],
      ['So\n\\[\n\\frac{3}{4}\n\\]', '\\frac{3}{4}', 'math-mode'],
      ['Therefore $$ 12 $$', '12', 'math-mode'],
      ['So $x = 4$. $\\blacksquare$', 'x = 4', 'math-mode'],
      ['Hence $\\begin{pmatrix}1\\\\2\\end{pmatrix}$.', '\\begin{pmatrix}1\\\\2\\end{pmatrix}', 'math-mode'],
      ['It costs $5 and then $7 more, so 12 in all.', '12', 'bare'],
      ['1 000', '1 000', 'bare'],
      ['-5.', '-5', 'bare'],
      ['x^2 + 1', 'x^2 + 1', 'bare'],
      ['She had 24, and 48 + 24 = 72 in all. Hope this helps!', '72', 'bare'],
      ['so it is 7,425,000 dollars in total for the whole year', '7,425,000', 'bare'],
    ])('should find the answer of %j', (text, answer, step) => {
      expect(extract(text)).toEqual({ answer, step });
    });

    it('should prefer a box to everything after it in the order', () => {
      expect(extract('The answer is $3$. So \\boxed{4}')).toEqual({ answer: '4', step: 'boxed' });
    });

    it('should take the phrase that comes last', () => {
      expect(extract('The answer is 3? No: the final answer is 4.')).toEqual({ answer: '4', step: 'final-answer' });
    });

    it('should find nothing in prose without a number, nor after a box that never closes', () => {
      expect(extract('I could not solve this problem, sorry.')).toBeUndefined();
      expect(extract('It is 5, so \\boxed{5')).toBeUndefined();
      expect(extract('')).toBeUndefined();
    });
  });

  describe('having the strict order', () => {
    it('should find only boxes', () => {
      expect(extract('\\boxed{5}', STRICT_EXTRACTION)).toEqual({ answer: '5', step: 'boxed' });
      expect(extract('The answer is $5$.', STRICT_EXTRACTION)).toBeUndefined();
      expect(extract('5', STRICT_EXTRACTION)).toBeUndefined();
    });
  });

  describe('having an order of its own', () => {
    it('should try only the steps named, in the order named', () => {
      expect(extract('The answer is 3.\nSo $4$.', ['math-mode', 'final-answer'])).toEqual({ answer: '4', step: 'math-mode' });
      expect(extract('The answer is 3.\nSo $4$.', ['final-answer', 'math-mode'])).toEqual({ answer: '3', step: 'final-answer' });
    });
  });
});

describe('extractGold', () => {
  const gold = (text: string, order: readonly ExtractionStep[] = FULL_EXTRACTION) => extractGold(text, order, new StepBudget());

  it('should read a box, then a #### line, then the whole text', () => {
    expect(gold('so $\\boxed{3}$\n#### 4')).toBe('3');
    expect(gold('48 + 24 = 72\n#### 72')).toBe('72');
    expect(gold(' x = 3 ')).toBe('x = 3');
    expect(gold('   ')).toBeUndefined();
  });

  it('should search a gold written as a sentence only under an order past boxes', () => {
    expect(gold('The final answer is $28\\%$.')).toBe('28\\%');
    expect(gold('The final answer is $28\\%$.', STRICT_EXTRACTION)).toBe('The final answer is $28\\%$.');
  });
});

describe('parseExtractionOrder', () => {
  it('should know the two named orders and lists of steps', () => {
    expect(parseExtractionOrder('strict')).toEqual(['boxed']);
    expect(parseExtractionOrder('full')).toEqual([...EXTRACTION_STEPS]);
    expect(parseExtractionOrder('math-mode, bare')).toEqual(['math-mode', 'bare']);
  });

  it.each(['lenient', 'boxed,guess', 'boxed,boxed', ''])('should refuse %j with INPUT_INVALID', (spec) => {
    expect(() => parseExtractionOrder(spec)).toThrow(/\[INPUT_INVALID\] --extract/);
  });
});
