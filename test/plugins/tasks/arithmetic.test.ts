import { describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { Rng } from '../../../core/rng.ts';
import { arithmeticTask, writtenAnswer } from '../../../plugins/tasks/arithmetic/arithmetic-task.ts';
import { withheldSummary } from '../../../plugins/protocols/draft-challenge.ts';
import { AFTER_WRONG_STEP } from '../../../plugins/tasks/arithmetic/judged-slip.ts';
import { goldPathLabels } from '../../../plugins/verdicts/gold-path.ts';
import type { Operation } from '../../../plugins/tasks/arithmetic/options.ts';

type Column = { carries: boolean; digitsFree: boolean };

/** Recomputes each column of the schoolbook method from the operands alone. */
function columnsOf(operation: Operation, a: number, b: number): Column[] {
  const top = String(a).split('').reverse().map(Number);
  const bottom = String(b).split('').reverse().map(Number);
  let carry = 0;
  return top.map((x, column) => {
    const y = operation === 'mul' ? b : (bottom[column] ?? 0);
    const value = operation === 'add' ? x + y + carry : operation === 'sub' ? x - y - carry : x * y + carry;
    carry = operation === 'add' ? Number(value >= 10) : operation === 'sub' ? Number(value < 0) : Math.floor(value / 10);
    const topColumn = column === top.length - 1 && top.length > 1;
    const digitsFree = operation === 'mul' ? !topColumn : column < bottom.length && !(operation === 'sub' && column === top.length - 1);
    return { carries: carry > 0, digitsFree };
  });
}

const evaluate = (operation: Operation, a: number, b: number) => (operation === 'add' ? a + b : operation === 'sub' ? a - b : a * b);

describe('arithmeticTask', () => {
  const task = arithmeticTask({ operations: ['add', 'sub', 'mul'], maxDigits: 4 });

  describe('having the same split, index and seed', () => {
    it('should give the same problem, and another seed another problem', () => {
      expect(arithmeticTask({ operations: ['add', 'sub', 'mul'], maxDigits: 4 }).sample('train', 7)).toEqual(task.sample('train', 7));
      expect(task.problems('test', 20, 3)).toEqual(task.problems('test', 20, 3));
      expect(task.problems('test', 20, 3).map((p) => p.prompt)).not.toEqual(task.problems('test', 20, 4).map((p) => p.prompt));
    });
  });

  describe('having a small problem space', () => {
    it('should never put one problem in two of train, validation and test', () => {
      const small = arithmeticTask({ operations: ['add', 'sub', 'mul'], minDigits: 1, maxDigits: 2 });
      const [train, validation, test] = (['train', 'validation', 'test'] as const).map((split) => new Set(small.problems(split, 3000).map((p) => p.prompt)));
      expect(train.size).toBeGreaterThan(400);
      expect(validation.size).toBeGreaterThan(100);
      for (const [a, b] of [[train, test], [train, validation], [validation, test]]) expect([...a].filter((prompt) => b.has(prompt))).toEqual([]);
    });
  });

  describe('when solving', () => {
    const problems = task.problems('train', 500);

    it('should box the true result in the last step, after one step per column', () => {
      for (const { meta, steps, solution, answer, prompt } of problems) {
        expect(answer).toBe(String(evaluate(meta.operation, meta.a, meta.b)));
        expect(solution).toBe(steps.join('\n\n'));
        expect(steps.at(-1)).toBe(`The answer is \\boxed{${answer}}.`);
        const columns = columnsOf(meta.operation, meta.a, meta.b);
        const lastCarry = meta.operation !== 'sub' && columns.at(-1)!.carries ? 1 : 0;
        expect(steps).toHaveLength(columns.length + lastCarry + 1);
        expect(prompt).toMatch(/^Question: What is \d+ (plus|minus|times) \d+\? Let's think step by step and output the final answer within \\boxed\{\}\.\nAnswer:\n$/);
      }
    });

    it('should name each column and say carry or borrow exactly where the column carries', () => {
      for (const { meta, steps } of problems) {
        columnsOf(meta.operation, meta.a, meta.b).forEach(({ carries }, column) => {
          expect(steps[column]).toMatch(/^(Ones|Tens|Hundreds|Thousands): \d+ (plus|minus|times) \d+/);
          expect(/, (carry|borrow) \d\.$/.test(steps[column])).toBe(carries);
        });
      }
    });

    it('should read a column in words, as in "Tens: 7 plus 6 plus carry 1 is 14. Write 4, carry 1."', () => {
      const steps = problems.flatMap((p) => p.steps);
      expect(steps).toContainEqual(expect.stringMatching(/^Tens: \d plus \d plus carry 1 is 1\d\. Write \d, carry 1\.$/));
      expect(steps).toContainEqual(expect.stringMatching(/^Tens: 1\d minus \d minus borrow 1 is \d\. Write \d, borrow 1\.$/));
      expect(steps).toContainEqual(expect.stringMatching(/^Tens: \d times \d plus carry \d is \d+\. Write \d(, carry \d)?\.$/));
      expect(steps).toContainEqual(expect.stringMatching(/^(Tens|Hundreds|Thousands|Ten thousands): carry \d\. Write \d\.$/));
    });
  });

  describe('having digits 2..3', () => {
    it('should draw the longer operand with 2 or 3 digits and never subtract below zero', () => {
      const lengths = new Set<number>();
      for (const { meta } of arithmeticTask({ minDigits: 2, maxDigits: 3 }).problems('test', 400)) {
        lengths.add(String(meta.a).length);
        expect(String(meta.b).length).toBeLessThanOrEqual(String(meta.a).length);
        expect(evaluate(meta.operation, meta.a, meta.b)).toBeGreaterThanOrEqual(0);
      }
      expect([...lengths].sort()).toEqual([2, 3]);
    });
  });

  describe('having a carry rate', () => {
    const rateOf = (carryRate: number) => {
      const free = arithmeticTask({ operations: ['add', 'sub', 'mul'], maxDigits: 5, carryRate })
        .problems('train', 2000)
        .flatMap(({ meta }) => columnsOf(meta.operation, meta.a, meta.b).filter((column) => column.digitsFree));
      return free.filter((column) => column.carries).length / free.length;
    };

    it('should carry or borrow at that rate in columns whose digits allow either', () => {
      expect(rateOf(0.5)).toBeCloseTo(0.5, 1);
      expect(rateOf(0.2)).toBeCloseTo(0.2, 1);
      expect(rateOf(1)).toBe(1);
    });

    it('should never carry at rate 0', () => {
      const steps = arithmeticTask({ operations: ['add', 'sub', 'mul'], maxDigits: 5, carryRate: 0 }).problems('train', 500).flatMap((p) => p.steps);
      expect(steps.filter((step) => /carry|borrow/.test(step))).toEqual([]);
    });
  });

  describe('having the default options', () => {
    it('should draw 2..4-digit additions and subtractions that carry or borrow at rate 0.7 where the digits allow', () => {
      const problems = arithmeticTask().problems('test', 2000);
      expect(new Set(problems.map((p) => p.meta.operation))).toEqual(new Set(['add', 'sub']));
      expect(new Set(problems.map((p) => String(p.meta.a).length))).toEqual(new Set([2, 3, 4]));
      const free = problems.flatMap(({ meta }) => columnsOf(meta.operation, meta.a, meta.b).filter((column) => column.digitsFree));
      expect(free.filter((column) => column.carries).length / free.length).toBeCloseTo(0.7, 1);
    });
  });

  describe('when a pupil slips (slipped)', () => {
    const problems = task.problems('train', 400);
    const due = (p: (typeof problems)[number]) => p.steps.filter((step) => /, (carry|borrow) \d\.$/.test(step)).length;

    it('should at rate 0 write the gold solution, every step labelled right', () => {
      for (const p of problems) {
        const slipped = task.slipped(p, 0, new Rng(1));
        expect(slipped.solution).toBe(p.solution);
        expect(slipped.stepLabels.every(Boolean)).toBe(true);
      }
    });

    it('should at rate 1 never pass a carry or borrow on, yet do each column\'s own sum right and box what the written digits read', () => {
      const withCarry = problems.filter((p) => due(p) > 0);
      expect(withCarry.length).toBeGreaterThan(100);
      for (const p of withCarry) {
        const { steps, stepLabels } = task.slipped(p, 1, new Rng(1));
        expect(steps.some((step) => /(carry|borrow) 1/.test(step))).toBe(false);
        const digits = steps.slice(0, -1).map((step) => Number(/Write (\d+)\.$/.exec(step)![1]));
        for (const step of steps.slice(0, -1)) {
          const [, x, op, y, result] = /: (\d+) (plus|minus|times) (\d+) is (\d+)\./.exec(step)!;
          expect(Number(result)).toBe(op === 'plus' ? Number(x) + Number(y) : op === 'minus' ? Number(x) - Number(y) : Number(x) * Number(y));
        }
        expect(steps.at(-1)).toBe(`The answer is \\boxed{${Number(digits.reverse().join(''))}}.`);
        expect(steps.at(-1)).not.toBe(p.steps.at(-1));
        expect(stepLabels.at(-1)).toBe(false);
        expect(stepLabels[0]).toBe(p.steps[0] === steps[0]);
      }
    });

    it('should at rate 0.5 forget about half of the carries and borrows that were due', () => {
      const rng = new Rng(7);
      let dueCount = 0;
      let kept = 0;
      for (const p of problems) {
        const slipped = task.slipped(p, 0.5, rng);
        // A column is due in the slipped walk when its own arithmetic reaches 10 (add) or it lent 10 (sub).
        for (const step of slipped.steps.slice(0, -1)) {
          const match = /: (\d+) (plus|minus) (\d+)(?: (?:plus carry|minus borrow) 1)? is (\d+)\. Write \d+(, (?:carry|borrow) 1)?\.$/.exec(step);
          if (!match) continue;
          const dueHere = match[2] === 'plus' ? Number(match[4]) >= 10 : Number(match[1]) >= 10;
          if (!dueHere) continue;
          dueCount++;
          kept += match[5] ? 1 : 0;
        }
      }
      expect(dueCount).toBeGreaterThan(200);
      expect(kept / dueCount).toBeCloseTo(0.5, 1);
    });
  });

  describe('when a verifier judges a slipped walk one column at a time (judgedSlip)', () => {
    const problems = task.problems('train', 400);
    const wrong = (p: (typeof problems)[number], rng: Rng) => task.judgedSlip(p, 0.5, 0, rng);

    it('should, missing nothing, judge every step as the gold-path labels do and the whole as the answer is', () => {
      const rng = new Rng(3);
      for (const p of problems) {
        const { solution, judgments, final } = wrong(p, rng);
        expect(judgments.map((j) => j.correct)).toEqual(goldPathLabels(p.steps, solution.steps));
        expect(final).toBe(solution.steps.at(-1) === p.steps.at(-1));
      }
    });

    it('should write, for each step before the first wrong one, the step itself with its place; for the first wrong one what it should have said; after it the place and the convention', () => {
      const rng = new Rng(4);
      let caught = 0;
      for (const p of problems) {
        const { solution, judgments } = wrong(p, rng);
        const first = judgments.findIndex((j) => !j.correct);
        for (const [k, j] of judgments.entries()) {
          const last = k === solution.steps.length - 1;
          if (first >= 0 && k > first) expect(j.justification).toBe(last ? AFTER_WRONG_STEP : `${solution.steps[k].split(':')[0]}: ${AFTER_WRONG_STEP}`);
          else if (!last && (first < 0 || k < first)) expect(j.justification).toBe(solution.steps[k]);
          if (!last) expect(j.justification.split(':')[0]).toMatch(/^(Ones|Tens|Hundreds|Thousands|[A-Z][a-z -]+)$/);
        }
        if (first >= 0 && first < solution.steps.length - 1) {
          caught++;
          // The forgotten carry: the judge's column passes it on, the pupil's does not.
          expect(judgments[first].justification).toMatch(/, (carry|borrow) \d\.$/);
          expect(solution.steps[first]).not.toMatch(/, (carry|borrow) \d\.$/);
        }
      }
      expect(caught).toBeGreaterThan(100);
    });

    it('should miss slips at missRate: 1 calls every walk right, 0.5 misses about half the solutions that slipped once', () => {
      const rng = new Rng(5);
      for (const p of problems.slice(0, 100)) expect(task.judgedSlip(p, 0.5, 1, rng).final).toBe(true);
      let once = 0;
      let missed = 0;
      for (const p of problems) {
        for (let i = 0; i < 4; i++) {
          const { solution, final } = task.judgedSlip(p, 0.5, 0.5, rng);
          const slips = solution.steps.filter((step, k) => step !== p.steps[k] && /Write \d\.$/.test(step) && !/(carry|borrow) 1 is/.test(p.steps[k] ?? '')).length;
          if (solution.steps.at(-1) === p.steps.at(-1) || slips !== 1) continue;
          once++;
          missed += final ? 1 : 0;
        }
      }
      expect(once).toBeGreaterThan(150);
      expect(missed / once).toBeGreaterThan(0.35);
      expect(missed / once).toBeLessThan(0.65);
    });
  });

  describe('having bad options', () => {
    it.each([{ maxDigits: 0 }, { maxDigits: 13 }, { minDigits: 4, maxDigits: 2 }, { carryRate: 1.5 }, { operations: ['div'] }, { digits: 3 }])(
      'should fail with CONFIG_INVALID for %j',
      (options) => {
        expect(() => arithmeticTask(options as never)).toThrow(LudusError);
        expect(() => arithmeticTask(options as never)).toThrow(/CONFIG_INVALID.*task "arithmetic"/);
      },
    );
  });
});

describe('writtenAnswer', () => {
  it("should read the number a column walk's Write lines spell, ones first, the last carry leading", () => {
    expect(writtenAnswer('Ones: 4 plus 6 is 10. Write 0, carry 1.\n\nTens: 1 plus 3 plus carry 1 is 5. Write 5.\n\nHundreds: 1 plus 9 is 10. Write 0, carry 1.\n\nThousands: carry 1. Write 1.')).toBe('1050');
    expect(writtenAnswer('Ones: 9 minus 9 is 0. Write 0.\n\nTens: 3 minus 1 is 2. Write 2.\n\nHundreds: 5 minus 5 is 0. Write 0.')).toBe('20');
    expect(writtenAnswer('no working here')).toBeNull();
  });

  it("should find the answer in Agon's withheld summary of a gold solution: withheld in name only on this task", () => {
    const task = arithmeticTask();
    const spelled = task.problems('test', 50).filter((problem) => {
      const { summary, answer } = withheldSummary(problem.solution, { maskMentions: true });
      expect(answer).toBe(problem.answer);
      expect(summary).not.toContain('\\boxed');
      return task.answerInWork?.(summary) === problem.answer;
    });
    // Masking the answer's standalone mentions cannot hide digits written one column at a time.
    expect(spelled.length).toBeGreaterThan(40);
  });
});
