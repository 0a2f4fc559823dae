import type { Problem } from '../../../core/tasks/task.ts';

/** What gold step `step` states: its column's place, sum (or difference, product) and what it writes; the answer on the last step. The place lets a verifier find the step it judges by content (see `judgedSlipWalk`). */
export function arithmeticStepCheck(problem: Problem, step: number): string {
  if (step >= problem.steps.length - 1) return `the answer is ${problem.answer}.`;
  return problem.steps[step];
}
