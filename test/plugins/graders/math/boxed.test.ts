import { describe, expect, it } from 'vitest';
import { goldAnswerOf, gsm8kFinal, lastBox, lastBoxed } from '../../../../plugins/graders/math/boxed.ts';
import { StepBudget } from '../../../../plugins/graders/math/budget.ts';

describe('lastBoxed', () => {
  describe('having one box', () => {
    it('should return its content with nested braces kept', () => {
      expect(lastBoxed('so $\\boxed{\\frac{1}{2}}$.')).toBe('\\frac{1}{2}');
      expect(lastBoxed('\\boxed{\\{1, 2\\}}')).toBe('\\{1, 2\\}');
      expect(lastBoxed('\\boxed{ {{7}} }')).toBe('{{7}}');
    });
  });

  describe('having several boxes', () => {
    it('should return the last one', () => {
      expect(lastBoxed('\\boxed{3} no wait \\fbox{4} and finally \\boxed{5}')).toBe('5');
      expect(lastBoxed('\\boxed{3} then \\fbox{4}')).toBe('4');
    });
  });

  describe('having boxes listed with only a separator between them', () => {
    it('should return all of them, joined by commas, as one list of answers', () => {
      expect(lastBoxed('\\boxed{1}, \\boxed{2}')).toBe('1, 2');
      expect(lastBoxed('so $\\boxed{-1}$ and $\\boxed{3}$.')).toBe('-1, 3');
      expect(lastBoxed('\\boxed{(1,2)}; \\boxed{(3,4)} or \\fbox{5}')).toBe('(1,2), (3,4), 5');
      expect(lastBoxed('\\boxed{1} \\text{ or } \\boxed{2}')).toBe('1, 2');
    });

    it('should stop at words that are not a separator, and at boxes that only touch', () => {
      expect(lastBoxed('\\boxed{1}, so then \\boxed{2}')).toBe('2');
      expect(lastBoxed('\\boxed{1}\\boxed{2}')).toBe('2');
      expect(lastBoxed('\\boxed{}, \\boxed{2}')).toBe('2');
    });
  });

  describe('having a box inside a box', () => {
    it('should return the innermost, which starts last', () => {
      expect(lastBoxed('\\boxed{\\boxed{7}}')).toBe('7');
    });
  });

  describe('having `\\boxed` without braces', () => {
    it('should take the next word, less trailing punctuation', () => {
      expect(lastBoxed('so \\boxed 5.')).toBe('5');
      expect(lastBoxed('$\\boxed -3$')).toBe('-3');
    });
  });

  describe('having no usable box', () => {
    it.each([
      ['no box', 'The answer is 5.'],
      ['an empty box', '\\boxed{}'],
      ['a blank box', '\\boxed{   }'],
      ['an unclosed box', '\\boxed{5'],
      ['an unclosed last box after a closed one', '\\boxed{5} then \\boxed{6'],
      ['a box at the very end', 'so \\boxed'],
      ['a longer command that starts like boxed', '\\boxedanswer{5}'],
    ])('should return undefined for %s', (_name, text) => {
      expect(lastBoxed(text)).toBeUndefined();
    });
  });
});

describe('lastBox', () => {
  it('should say when the last box never closes, and only then', () => {
    const budget = () => new StepBudget();
    expect(lastBox('\\boxed{5} then \\boxed{6', budget())).toEqual({ truncated: true });
    expect(lastBox('so \\boxed', budget())).toEqual({ truncated: true });
    expect(lastBox('\\boxed{}', budget())).toEqual({ truncated: false });
    expect(lastBox('\\boxed{6}', budget())).toEqual({ answer: '6', truncated: false });
    expect(lastBox('no box', budget())).toBeUndefined();
  });

  it('should charge every character it scans to the budget', () => {
    const budget = new StepBudget();
    lastBox(`\\boxed{${'x'.repeat(10_000)}`, budget);
    expect(budget.used).toBeGreaterThanOrEqual(10_000);
  });
});

describe('gsm8kFinal', () => {
  it('should read the line after ####', () => {
    expect(gsm8kFinal('48/2 = 24\n48+24 = 72\n#### 72')).toBe('72');
    expect(gsm8kFinal('no marker')).toBeUndefined();
  });
});

describe('goldAnswerOf', () => {
  it('should prefer the last box, then the #### line, then the whole text', () => {
    expect(goldAnswerOf('so $\\boxed{3}$ \n#### 4')).toBe('3');
    expect(goldAnswerOf('work\n#### 1,000')).toBe('1,000');
    expect(goldAnswerOf(' \\frac12 ')).toBe('\\frac12');
    expect(goldAnswerOf('   ')).toBeUndefined();
  });
});
