import { describe, expect, it } from 'vitest';
import { Rng } from '../../../core/rng.ts';
import { arithmeticTask } from '../../../plugins/tasks/arithmetic/arithmetic-task.ts';

describe('arithmeticTask, for verifiers', () => {
  const task = arithmeticTask({ operations: ['add', 'sub', 'mul'], maxDigits: 4 });
  const rng = new Rng(3);
  const cases = task.problems('train', 1000).map((problem) => ({ problem, corrupted: task.corrupt!(problem, rng) }));
  const written = (step: string) => Number(/Write (\d)/.exec(step)![1]);

  describe('when corrupting a solution', () => {
    it('should slip at one column (a wrong written digit) or at the answer, and end on a wrong answer read from the digits written', () => {
      for (const { problem, corrupted } of cases) {
        expect(corrupted.steps).toHaveLength(problem.steps.length);
        const changed = corrupted.steps.map((step, k) => step !== problem.steps[k]);
        expect(changed.slice(0, -1).filter(Boolean).length).toBeLessThanOrEqual(1);
        const answer = /\\boxed\{(\d+)\}/.exec(corrupted.steps.at(-1)!)![1];
        expect(answer).not.toBe(problem.answer);
        if (changed.slice(0, -1).some(Boolean)) expect(answer).toBe(corrupted.steps.slice(0, -1).map(written).reverse().join('').replace(/^0+(?=\d)/, ''));
      }
    });

    it('should label the slipped column and the answer wrong, every other column right', () => {
      for (const { problem, corrupted } of cases) {
        expect(corrupted.stepLabels.slice(0, -1)).toEqual(corrupted.steps.slice(0, -1).map((step, k) => step === problem.steps[k]));
        expect(corrupted.stepLabels.at(-1)).toBe(false);
      }
      expect(cases.some(({ corrupted }) => corrupted.stepLabels.slice(0, -1).every(Boolean))).toBe(true);
    });

    it('should be reproducible from the rng state', () => {
      const problem = task.sample('test', 4);
      expect(task.corrupt!(problem, new Rng(9))).toEqual(task.corrupt!(problem, new Rng(9)));
    });
  });

  describe('when stating what a gold step must say', () => {
    it('should give the column\'s working without its place name, and the answer on the last step', () => {
      const problem = task.sample('train', 1);
      expect(task.stepCheck!(problem, 0)).toBe(problem.steps[0]);
      expect(problem.steps[0]).toMatch(/^Ones: /);
      expect(task.stepCheck!(problem, problem.steps.length - 1)).toBe(`the answer is ${problem.answer}.`);
    });
  });
});
