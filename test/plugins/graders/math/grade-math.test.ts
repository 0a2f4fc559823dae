import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { graderBenchLines } from '../../../../plugins/graders/bench/grader-lines.ts';
import { DEFAULT_GRADE_LIMITS, type GradeLimits } from '../../../../plugins/graders/math/budget.ts';
import { FULL_EXTRACTION } from '../../../../plugins/graders/math/extract.ts';
import { gradeMath } from '../../../../plugins/graders/math/grade-math.ts';

interface GradedPair {
  gold: string;
  pred: string;
  answer_present: boolean;
  correct: boolean;
  why: string;
}

/**
 * A pair written from the standard verifiers' documented behaviour: our pinned verdict, Math-Verify's verdict as
 * measured (tools/python/math_verify_verdicts.py), and where the two differ, why ours is as it is.
 */
interface VerifierPair extends GradedPair {
  class: string;
  standard: boolean | null;
  differs?: string;
}

const readPairs = <T>(name: string): T[] =>
  readFileSync(new URL(`../../../fixtures/grader/${name}`, import.meta.url), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as T);
const pairs = readPairs<GradedPair>('math-pairs.jsonl');
const verifierPairs = readPairs<VerifierPair>('verifier-pairs.jsonl');

/** Steps decide in these tests, never the clock: the time limit is set far away. */
const STEPS_ONLY: GradeLimits = { ...DEFAULT_GRADE_LIMITS, timeMs: 600_000 };
/** As `math-full` grades: every extraction step, Math-Verify's rules. */
const verdict = (gold: string, pred: string, extraction = FULL_EXTRACTION) => {
  const { answer_present, correct } = gradeMath(gold, pred, { extraction, rules: 'math-verify', limits: STEPS_ONLY });
  return { answer_present, correct };
};

describe('gradeMath', () => {
  describe('having the fixture of boxed gold/pred pairs (the RL reward: boxed answers only)', () => {
    it('should hold many pairs of both verdicts', () => {
      expect(pairs.length).toBeGreaterThanOrEqual(80);
      expect(pairs.filter((p) => p.correct).length).toBeGreaterThanOrEqual(40);
      expect(pairs.filter((p) => !p.correct).length).toBeGreaterThanOrEqual(40);
    });

    it.each(pairs.map((pair) => [pair.why, pair] as const))('should grade "%s" as the fixture says', (_why, pair) => {
      const { answer_present, correct } = gradeMath(pair.gold, pair.pred, { limits: STEPS_ONLY });
      expect({ answer_present, correct }).toEqual({ answer_present: pair.answer_present, correct: pair.correct });
    });
  });

  describe('having the fixture of pairs written from the standard verifiers’ documented behaviour (math-full: full extraction, Math-Verify’s rules)', () => {
    const classes = new Map<string, VerifierPair[]>();
    for (const pair of verifierPairs) classes.set(pair.class.split('/')[0], [...(classes.get(pair.class.split('/')[0]) ?? []), pair]);

    it('should hold several hundred pairs, both verdicts in every class the issue names', () => {
      expect(verifierPairs.length).toBeGreaterThanOrEqual(400);
      for (const name of ['extraction', 'separators', 'lists', 'relations', 'sets', 'intervals', 'matrices', 'percent', 'text-and-units', 'constants', 'big-integers']) {
        const members = classes.get(name) ?? [];
        expect(members.filter((p) => p.correct).length, name).toBeGreaterThanOrEqual(3);
        expect(members.filter((p) => !p.correct).length, name).toBeGreaterThanOrEqual(1);
      }
      for (const pair of verifierPairs) expect(pair.why.length, JSON.stringify(pair)).toBeGreaterThan(5);
    });

    it.each(verifierPairs.map((pair) => [`${pair.class}: ${pair.why}`, pair] as const))('should grade %s as pinned', (_why, pair) => {
      expect(verdict(pair.gold, pair.pred)).toEqual({ answer_present: pair.answer_present, correct: pair.correct });
    });

    it('should differ from Math-Verify only where a reason says why, on at most a tenth of the pairs (docs/grading.md’s number)', () => {
      const apart = verifierPairs.filter((pair) => pair.standard !== pair.correct);
      expect(apart.every((pair) => (pair.differs ?? '').length > 20)).toBe(true);
      expect(verifierPairs.filter((pair) => pair.differs !== undefined)).toEqual(apart);
      expect(apart.length).toBe(7);
      expect(verifierPairs.length - apart.length).toBe(443);
    });
  });

  describe('having a prediction with a box', () => {
    it('should report both extracted answers and the step that found the prediction’s', () => {
      expect(gradeMath('The answer is $\\boxed{\\frac{1}{2}}$.', 'so \\boxed{0.5}')).toMatchObject({
        answer_present: true,
        correct: true,
        pred_answer: '0.5',
        gold_answer: '\\frac{1}{2}',
        extracted_by: 'boxed',
      });
    });
  });

  describe('having a prediction without a box', () => {
    it('should say no answer is present under the strict default, even when the text holds the gold', () => {
      expect(gradeMath('5', 'The answer is 5.')).toMatchObject({ answer_present: false, correct: false, gold_answer: '5' });
    });

    it('should find it under the full order', () => {
      expect(gradeMath('5', 'The answer is 5.', { extraction: FULL_EXTRACTION })).toMatchObject({ answer_present: true, correct: true, pred_answer: '5', extracted_by: 'final-answer' });
    });
  });

  describe('having an empty gold', () => {
    it('should never be correct', () => {
      expect(gradeMath('  ', '\\boxed{5}')).toMatchObject({ answer_present: true, correct: false, pred_answer: '5' });
      expect(gradeMath('  ', '\\boxed{5}').gold_answer).toBeUndefined();
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
      ['100000 listed boxes', '1', '\\boxed{2}, '.repeat(100_000)],
      ['nested text commands', '1', `\\boxed{${'\\text{'.repeat(1500)}1${'}'.repeat(1500)}}`],
      ['many words', 'x', `\\boxed{${'word '.repeat(1900)}}`],
      ['a megabyte of dollar signs', '1', '$'.repeat(1_000_000)],
      ['a megabyte of escaped dollar signs', '1', '\\$'.repeat(500_000)],
      ['a megabyte of answer phrases', '1', 'the answer is '.repeat(80_000)],
    ];

    it.each(cases)('should answer %s with correct: false within its steps', (_name, gold, pred) => {
      for (const extraction of [undefined, FULL_EXTRACTION]) {
        const grade = gradeMath(gold, pred, { extraction, limits: STEPS_ONLY });
        expect(grade.correct).toBe(false);
        expect(grade.steps).toBeLessThanOrEqual(STEPS_ONLY.maxExtractionSteps + STEPS_ONLY.maxSteps);
      }
    });
  });

  describe('having inputs that grow', () => {
    // Work is counted in steps: doubling an input must about double them, never square them.
    const families: [string, (n: number) => string][] = [
      ['listed boxes', (n) => '\\boxed{7}, '.repeat(n)],
      ['boxes with words between', (n) => '\\boxed{7} or rather '.repeat(n)],
      ['nested braces in a box', (n) => `\\boxed{${'{'.repeat(n)}1${'}'.repeat(n)}}`],
      ['escaped dollar signs', (n) => `${'\\$'.repeat(n)}5`],
      ['dollar signs around prose', (n) => '$ so it goes on and on '.repeat(n)],
      ['unclosed box', (n) => `\\boxed{${'x'.repeat(n)}`],
      ['answer phrases', (n) => 'the final answer is '.repeat(n)],
    ];

    it.each(families)('should spend steps linear in the length of %s', (_name, make) => {
      const steps = (n: number) => gradeMath('5', make(n), { extraction: FULL_EXTRACTION, limits: STEPS_ONLY }).steps;
      const small = steps(4000);
      const large = steps(16_000);
      expect(large).toBeLessThanOrEqual(5 * Math.max(small, 1));
    });

    // Math-Verify's rules work some answers out first: sums and products of matrices, a gold inequality's set.
    const worked: [string, string, (n: number) => string][] = [
      ['summed matrices', '\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}', (n) => `\\boxed{${Array(n).fill('\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}').join(' + ')}}`],
      ['multiplied matrices', '\\begin{pmatrix} 1 & 1 \\\\ 1 & 1 \\end{pmatrix}', (n) => `\\boxed{${Array(n).fill('\\begin{pmatrix} 1 & 1 \\\\ 1 & 1 \\end{pmatrix}').join('')}}`],
      ['unclosed matrices', '\\begin{pmatrix} 1 \\end{pmatrix}', (n) => `\\boxed{2${'\\begin{pmatrix} 1 & '.repeat(n)}}`],
      ['intervals against a gold inequality', '|x| > 3', (n) => `\\boxed{${Array.from({ length: n }, (_, i) => `(${2 * i}, ${2 * i + 1})`).join(' \\cup ')}}`],
      ['a chain against a gold inequality', '0 < x < 1', (n) => `\\boxed{${Array.from({ length: n }, (_, i) => `${i} < x`).join(' < ')} < ${n}}`],
      ['unreadable spans around fractions', '\\frac{1}{2}', (n) => `So ${'$$ \\frac{1}{2}. '.repeat(n)}`],
      ['unclosed spans around fractions', '\\frac{1}{2}', (n) => `So ${'\\( \\frac{1}{2}. $ \\['.repeat(n)}`],
    ];

    it.each(worked)('should spend steps linear in the number of %s under Math-Verify’s rules', (_name, gold, make) => {
      const steps = (n: number) => gradeMath(gold, make(n), { extraction: FULL_EXTRACTION, rules: 'math-verify', limits: STEPS_ONLY }).steps;
      const small = steps(200);
      const large = steps(800);
      expect(large).toBeLessThanOrEqual(5 * Math.max(small, 1));
    });
  });

  describe('having 300 random and adversarial lines of the grader benchmark', () => {
    it('should grade every one without a throw, each within its budget of steps', () => {
      const lines = graderBenchLines(300, 7, 1);
      expect(new Set(lines.map((l) => l.family)).size).toBeGreaterThan(10);
      for (const line of lines) {
        const grade = gradeMath(line.gold, line.pred, { extraction: FULL_EXTRACTION, limits: STEPS_ONLY });
        expect(typeof grade.correct).toBe('boolean');
        expect(grade.steps, line.family).toBeLessThanOrEqual(STEPS_ONLY.maxExtractionSteps + STEPS_ONLY.maxSteps);
      }
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
      expect(gradeMath('200x', pred, { limits: STEPS_ONLY }).correct).toBe(true);
      expect(gradeMath('200x', pred, { limits: { ...STEPS_ONLY, maxSteps: 100 } }).correct).toBe(false);
    });

    it('should bound extraction by its own steps: a response past them has no answer', () => {
      const pred = `${'{'.repeat(5000)} \\boxed{5}`;
      expect(gradeMath('5', `\\boxed{${'x'.repeat(5000)}`, { limits: { ...STEPS_ONLY, maxExtractionSteps: 1000 } })).toMatchObject({ answer_present: false, correct: false });
      expect(gradeMath('5', pred, { limits: STEPS_ONLY }).correct).toBe(true);
    });
  });
});
