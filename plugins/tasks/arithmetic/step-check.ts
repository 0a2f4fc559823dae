import type { Problem } from '../../../core/tasks/task.ts';

/** What gold step `step` states: a column's sum (or difference, product) and what it writes, without the place name; the answer on the last step. */
export function arithmeticStepCheck(problem: Problem, step: number): string {
  if (step >= problem.steps.length - 1) return `the answer is ${problem.answer}.`;
  return problem.steps[step].replace(/^[^:]*:\s*/, '');
}
