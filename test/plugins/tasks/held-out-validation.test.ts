import { describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import type { Problem } from '../../../core/tasks/task.ts';
import { withValidationSplit } from '../../../plugins/tasks/held-out-validation.ts';
import { finiteTask } from '../../../plugins/tasks/jsonl/finite-task.ts';
import { arithmeticTask } from '../../../plugins/tasks/arithmetic/arithmetic-task.ts';

const problem = (id: string): Problem => ({ id, question: id, instruction: '', prompt: id, answer: '1', solution: '\\boxed{1}', steps: ['\\boxed{1}'], meta: {} });
const list = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => problem(`${prefix}${i}`));

describe('withValidationSplit', () => {
  describe('having a task given as train and test files, without a validation file', () => {
    const task = finiteTask('sums', { train: list('train-', 10), test: list('test-', 3) });
    const { task: held, source } = withValidationSplit(task, 3);

    it('should validate on the last problems of the train split and never train on them, leaving the test split alone', () => {
      expect(source).toEqual({ split: 'validation', heldOutOfTrain: 3 });
      expect(held.problems('validation', 5).map((p) => p.id)).toEqual(['train-7', 'train-8', 'train-9']);
      expect([held.size('train'), held.size('validation'), held.size('test')]).toEqual([7, 3, 3]);
      // Training cycles through the 7 it kept.
      expect(Array.from({ length: 9 }, (_, i) => held.sample('train', i).id)).toEqual([...list('train-', 7).map((p) => p.id), 'train-0', 'train-1']);
      expect(held.problems('test', 3)).toEqual(task.problems('test', 3));
    });
  });

  describe('having a task with a validation split of its own', () => {
    it('should return it as it is', () => {
      const task = arithmeticTask({});
      expect(withValidationSplit(task, 32)).toEqual({ task, source: { split: 'validation', heldOutOfTrain: 0 } });
    });
  });

  describe('having a train split too small to spare the validation problems, or none', () => {
    it('should refuse with DATA_INVALID rather than validate on the test split', () => {
      for (const task of [finiteTask('small', { train: list('t', 3), test: list('x', 3) }), finiteTask('test-only', { test: list('x', 40) })]) {
        expect(() => withValidationSplit(task, 3)).toThrow(LudusError);
        expect(() => withValidationSplit(task, 3)).toThrow(/no validation split/);
      }
    });
  });
});
