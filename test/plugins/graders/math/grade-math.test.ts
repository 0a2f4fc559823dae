import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { gradeMath } from '../../../../plugins/graders/math/grade-math.ts';

interface GradedPair {
  gold: string;
  pred: string;
  answer_present: boolean;
  correct: boolean;
  why: string;
}

const FIXTURE = new URL('../../../fixtures/grader/math-pairs.jsonl', import.meta.url);
const pairs: GradedPair[] = readFileSync(FIXTURE, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as GradedPair);

/** Well above the grader's own 200 ms limit, to allow for a loaded test machine. */
const SLOW_MS = 1000;

function timed<T>(run: () => T): { result: T; ms: number } {
  const start = performance.now();
  const result = run();
  return { result, ms: performance.now() - start };
}

describe('gradeMath', () => {
  describe('having the fixture of real-looking gold/pred pairs', () => {
    it('should hold many pairs of both verdicts', () => {
      expect(pairs.length).toBeGreaterThanOrEqual(80);
      expect(pairs.filter((p) => p.correct).length).toBeGreaterThanOrEqual(40);
      expect(pairs.filter((p) => !p.correct).length).toBeGreaterThanOrEqual(40);
    });

    it.each(pairs.map((pair) => [pair.why, pair] as const))('should grade "%s" as the fixture says', (_why, pair) => {
      const { result, ms } = timed(() => gradeMath(pair.gold, pair.pred));
      expect({ answer_present: result.answer_present, correct: result.correct }).toEqual({ answer_present: pair.answer_present, correct: pair.correct });
      expect(ms).toBeLessThan(SLOW_MS);
    });
  });

  describe('having a prediction with a box', () => {
    it('should report both extracted answers', () => {
      expect(gradeMath('The answer is $\\boxed{\\frac{1}{2}}$.', 'so \\boxed{0.5}')).toEqual({
        answer_present: true,
        correct: true,
        pred_answer: '0.5',
        gold_answer: '\\frac{1}{2}',
      });
    });
  });

  describe('having a prediction without a box', () => {
    it('should say no answer is present and not correct, even when the text holds the gold', () => {
      expect(gradeMath('5', 'The answer is 5.')).toEqual({ answer_present: false, correct: false, gold_answer: '5' });
    });
  });

  describe('having an empty gold', () => {
    it('should never be correct', () => {
      expect(gradeMath('  ', '\\boxed{5}')).toEqual({ answer_present: true, correct: false, pred_answer: '5' });
    });
  });

  describe('having pathological predictions', () => {
    const cases: [string, string, string][] = [
      ['5000 nested parentheses', '1', `\\boxed{${'('.repeat(5000)}1${')'.repeat(5000)}}`],
      ['3000 nested fractions', '1', `\\boxed{${'\\frac{1}{'.repeat(3000)}1${'}'.repeat(3000)}}`],
      ['a sum of 5000 terms', '4999', `\\boxed{${Array(5000).fill('1').join('+')}}`],
      ['a power tower', '1', '\\boxed{2^{2^{2^{2^{2^{2^{2^{2^{2}}}}}}}}}'],
      ['5000 factorial signs', '1', `\\boxed{3${'!'.repeat(5000)}}`],
      ['5000 minus signs', '1', `\\boxed{${'-'.repeat(5000)}1}`],
      ['a huge factorial', '1', '\\boxed{100000!}'],
      ['a big polynomial', '(x+y+z)^{300}', '\\boxed{(x+y+z)^{299}}'],
      ['a set of 3000 points', '\\{1\\}', `\\boxed{\\{${Array(3000).fill('(1,2)').join(',')}\\}}`],
      ['two sets of 2000 elements', `\\{${[...Array(2000).keys()].join(',')}\\}`, `\\boxed{\\{${[...Array(2000).keys()].reverse().join(',')}\\}}`],
      ['a 1 MB unclosed box', '1', `\\boxed{${'x'.repeat(1_000_000)}`],
      ['a 1 MB answer', '1', `\\boxed{${'1+'.repeat(500_000)}1}`],
      ['100000 boxes', '1', '\\boxed{2}'.repeat(100_000)],
      ['nested text commands', '1', `\\boxed{${'\\text{'.repeat(1500)}1${'}'.repeat(1500)}}`],
      ['many words', 'x', `\\boxed{${'word '.repeat(1900)}}`],
    ];

    it.each(cases)('should answer %s with correct: false, quickly', (_name, gold, pred) => {
      const { result, ms } = timed(() => gradeMath(gold, pred));
      expect(result.correct).toBe(false);
      expect(ms).toBeLessThan(SLOW_MS);
    });
  });

  describe('having integers too large for exact arithmetic', () => {
    it('should match them only when written the same', () => {
      const huge = `1${'0'.repeat(2000)}`;
      expect(gradeMath(huge, `\\boxed{${huge}}`).correct).toBe(true);
      expect(gradeMath(huge, `\\boxed{1${'0'.repeat(1999)}1}`).correct).toBe(false);
    });
  });

  describe('having tight limits', () => {
    it('should give up as false instead of running past them', () => {
      const pred = `\\boxed{${Array(200).fill('x').join('+')}}`;
      expect(gradeMath('200x', pred).correct).toBe(true);
      expect(gradeMath('200x', pred, { maxSteps: 100, timeMs: 1000, maxDepth: 100 }).correct).toBe(false);
    });
  });
});
