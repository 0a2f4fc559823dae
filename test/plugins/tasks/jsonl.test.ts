import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STEP_BY_STEP_INSTRUCTION } from '../../../plugins/tasks/prompt.ts';
import { describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { lastBoxed } from '../../../plugins/tasks/jsonl/last-boxed.ts';
import { loadJsonlTask, loadTaskFile } from '../../../plugins/tasks/jsonl/load-jsonl-task.ts';
import { parseJsonlProblems } from '../../../plugins/tasks/jsonl/parse-jsonl-problems.ts';
import { taskByName } from '../../../plugins/tasks/registry.ts';

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

  describe('having a numeric answer past 2^53', () => {
    it('should keep its digits: a rounded gold would accept a wrong answer', () => {
      const [problem] = parseJsonlProblems('{"problem": "What is 2^64 + 1?", "answer": 18446744073709551617}', 'big.jsonl', 'big');
      expect(problem.answer).toBe('18446744073709551617');
      expect(problem.steps).toEqual(['The answer is \\boxed{18446744073709551617}.']);
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

const sums = (from: number, count: number) => Array.from({ length: count }, (_, i) => JSON.stringify({ problem: `What is ${from + i} plus 1?`, answer: String(from + i + 1) }));

async function fileOf(name: string, lines: readonly string[]): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'ludus-jsonl-task-')), name);
  await writeFile(path, `${lines.join('\n')}\n`);
  return path;
}

const prompts = (task: Awaited<ReturnType<typeof loadJsonlTask>>, split: 'train' | 'test') => task.problems(split, 1000).map((p) => p.prompt);

describe('loadJsonlTask with split "both"', () => {
  describe('having one file of 200 rows', () => {
    it('should divide it into disjoint train and test splits, about testFraction of it test', async () => {
      const task = await loadJsonlTask(await fileOf('sums.jsonl', sums(0, 200)), { split: 'both', testFraction: 0.25 });
      expect(task.size('train') + task.size('test')).toBe(200);
      expect(task.size('test')).toBeGreaterThan(30);
      expect(task.size('test')).toBeLessThan(70);
      const train = new Set(prompts(task, 'train'));
      expect(prompts(task, 'test').some((prompt) => train.has(prompt))).toBe(false);
    });

    it('should put each row in the same split whatever the order of the file', async () => {
      const rows = sums(0, 200);
      const forward = await loadJsonlTask(await fileOf('sums.jsonl', rows), { split: 'both' });
      const backward = await loadJsonlTask(await fileOf('sums.jsonl', [...rows].reverse()), { split: 'both' });
      expect(new Set(prompts(backward, 'test'))).toEqual(new Set(prompts(forward, 'test')));
    });
  });

  describe('having too few rows for both splits', () => {
    it('should fail with DATA_INVALID naming the empty split', async () => {
      const error = await rejection(loadJsonlTask(await fileOf('one.jsonl', sums(0, 1)), { split: 'both' }));
      expect(error.code).toBe('DATA_INVALID');
      expect(error.message).toMatch(/fell into the (train|test) split/);
    });
  });
});

describe('loadTaskFile', () => {
  describe('having a file per split', () => {
    it('should read each as its split, paths relative to the task file', async () => {
      const train = await fileOf('train.jsonl', sums(0, 5));
      const test = await fileOf('test.jsonl', sums(100, 3));
      const spec = join(train, '..', 'sums.json');
      await writeFile(spec, JSON.stringify({ train: 'train.jsonl', test: test }));
      const task = await taskByName(spec);
      expect(task.name).toBe('sums');
      expect([task.size('train'), task.size('test')]).toEqual([5, 3]);
      expect(task.sample('train', 0).answer).toBe('1');
      expect(task.sample('test', 0).answer).toBe('101');
    });
  });

  describe('having one file to divide', () => {
    it('should divide it as split "both" does', async () => {
      const rows = await fileOf('all.jsonl', sums(0, 200));
      const spec = join(rows, '..', 'all-split.json');
      await writeFile(spec, JSON.stringify({ name: 'all', file: 'all.jsonl', testFraction: 0.3 }));
      const fromFile = await loadTaskFile(spec);
      const fromOptions = await loadJsonlTask(rows, { split: 'both', testFraction: 0.3 });
      expect(prompts(fromFile, 'test')).toEqual(prompts(fromOptions, 'test'));
      expect(fromFile.name).toBe('all');
    });
  });

  describe('having both a file and per-split files, or an unknown key', () => {
    it('should fail with CONFIG_INVALID naming the task file', async () => {
      const spec = await fileOf('bad.json', [JSON.stringify({ file: 'a.jsonl', train: 'b.jsonl' })]);
      const error = await rejection(loadTaskFile(spec));
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toContain(`task file ${spec}`);
      const typo = await fileOf('typo.json', [JSON.stringify({ trian: 'b.jsonl' })]);
      expect((await rejection(loadTaskFile(typo))).code).toBe('CONFIG_INVALID');
    });
  });
});
