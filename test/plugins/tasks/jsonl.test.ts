import { join } from 'node:path';
import { STEP_BY_STEP_INSTRUCTION } from '../../../plugins/tasks/prompt.ts';
import { describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { lastBoxed } from '../../../plugins/tasks/jsonl/last-boxed.ts';
import { loadJsonlTask } from '../../../plugins/tasks/jsonl/load-jsonl-task.ts';

const fixture = (name: string) => join(import.meta.dirname, '../../fixtures/tasks', name);

async function rejection(promise: Promise<unknown>): Promise<LudusError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(LudusError.is(error)).toBe(true);
  return error as LudusError;
}

describe('lastBoxed', () => {
  it('should return the last boxed contents with nested braces kept', () => {
    expect(lastBoxed('first \\boxed{1}, then \\boxed{\\frac{3}{4}}.')).toBe('\\frac{3}{4}');
  });

  it('should return undefined with no box or an unclosed one', () => {
    expect(lastBoxed('no answer here')).toBeUndefined();
    expect(lastBoxed('\\boxed{\\frac{1}{2}')).toBeUndefined();
  });
});

describe('loadJsonlTask', () => {
  describe('having MATH-style rows', async () => {
    const task = await loadJsonlTask(fixture('math.jsonl'));
    const [withSolution, withAnswer, withBoth] = task.problems('test', 10);

    it('should name the task after the file and hold its rows as the test split', () => {
      expect(task.name).toBe('math');
      expect(task.size('test')).toBe(3);
      expect(task.size('train')).toBe(0);
    });

    it('should take {problem, solution} apart into paragraphs, the answer from the last box', () => {
      expect(withSolution.question).toBe('What is $\\frac{1}{2} + \\frac{1}{4}$?');
      expect(withSolution.prompt).toBe(`Question: What is $\\frac{1}{2} + \\frac{1}{4}$? ${STEP_BY_STEP_INSTRUCTION}\nAnswer:\n`);
      expect(withSolution.answer).toBe('\\frac{3}{4}');
      expect(withSolution.steps).toEqual(['Write both over 4: $\\frac{2}{4} + \\frac{1}{4}$.', 'Add the numerators: $\\frac{3}{4}$, so the sum is $\\boxed{\\frac{3}{4}}$.']);
      expect(withSolution.id).toBe('test/prealgebra/1.json');
      expect(withSolution.meta).toMatchObject({ level: 'Level 1', type: 'Prealgebra', file: fixture('math.jsonl'), line: 1 });
    });

    it('should box a bare {problem, answer} as its one step, counting lines as in the file', () => {
      expect(withAnswer.answer).toBe('6');
      expect(withAnswer.steps).toEqual(['The answer is \\boxed{6}.']);
      expect(withAnswer.id).toBe('math/3');
    });

    it('should append the boxed answer to a solution that does not box it', () => {
      expect(withBoth.steps).toEqual(['Divide both sides by 2.', 'So $x = 5$.', 'The answer is \\boxed{5}.']);
      expect(withBoth.solution).toBe(withBoth.steps.join('\n\n'));
    });
  });

  describe('having GSM8K rows', async () => {
    const [first] = (await loadJsonlTask(fixture('gsm8k.jsonl'), { split: 'train', name: 'gsm8k-mini' })).problems('train', 1);

    it('should take the answer after "####" and the rationale lines, calculator marks removed, as steps', () => {
      expect(first.answer).toBe('16');
      expect(first.steps).toEqual(['The baker makes 12 * 3 = 36 rolls.', 'After selling, 36 - 20 = 16 rolls are left.', 'The answer is \\boxed{16}.']);
      expect(first.id).toBe('gsm8k-mini/1');
    });
  });

  describe('having a split the file is not', () => {
    it('should fail with INPUT_INVALID', async () => {
      const task = await loadJsonlTask(fixture('gsm8k.jsonl'));
      expect(() => task.sample('train', 0)).toThrow(/INPUT_INVALID.*only a test split/);
      expect(() => task.problems('train', 1)).toThrow(/INPUT_INVALID/);
    });
  });

  describe('having indices past the end or a seed', () => {
    it('should wrap around, and with a seed visit a fixed permutation of the rows', async () => {
      const task = await loadJsonlTask(fixture('math.jsonl'));
      expect(task.sample('test', 4)).toEqual(task.sample('test', 1));
      const shuffled = [0, 1, 2].map((i) => task.sample('test', i, 7).id);
      expect([...shuffled].sort()).toEqual(task.problems('test', 3).map((p) => p.id).sort());
      expect(task.problems('test', 3, 7).map((p) => p.id)).toEqual(shuffled);
    });
  });

  describe.each([
    ['bad-json.jsonl', 3, /not valid JSON/],
    ['missing-fields.jsonl', 3, /none of the shapes/],
    ['unboxed-solution.jsonl', 1, /no \\boxed\{\} answer/],
    ['not-an-object.jsonl', 1, /must be a JSON object/],
  ])('having %s', (file, line, why) => {
    it(`should fail with DATA_INVALID naming line ${line}`, async () => {
      const error = await rejection(loadJsonlTask(fixture(file)));
      expect(error.code).toBe('DATA_INVALID');
      expect(error.message).toContain(`${fixture(file)}:${line}:`);
      expect(error.message).toMatch(why);
      expect(error.details).toMatchObject({ file: fixture(file), line });
    });
  });

  describe('having a file with no rows', () => {
    it('should fail with DATA_INVALID', async () => {
      expect((await rejection(loadJsonlTask(fixture('empty.jsonl')))).code).toBe('DATA_INVALID');
    });
  });

  describe('having a path with no file', () => {
    it('should fail with INPUT_INVALID naming the path', async () => {
      const error = await rejection(loadJsonlTask(fixture('absent.jsonl')));
      expect(error.code).toBe('INPUT_INVALID');
      expect(error.message).toContain('absent.jsonl');
    });
  });
});
