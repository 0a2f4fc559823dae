import type { Rng } from '../../../core/rng.ts';
import type { LabelledSolution, Problem } from '../../../core/tasks/task.ts';
import { boxedAnswerStep, joinSteps } from '../prompt.ts';

const WRITTEN = /Write (\d)/;

function writtenDigit(step: string): number {
  const match = WRITTEN.exec(step);
  if (!match) throw new Error(`arithmetic step without a written digit: ${step}`);
  return Number(match[1]);
}

/** Another number of the same length: one digit changed. */
function wrongNumber(answer: string, rng: Rng): string {
  const at = rng.int(answer.length);
  const digit = Number(answer[at]);
  const other = (digit + 1 + rng.int(9)) % 10;
  const changed = answer.slice(0, at) + String(other) + answer.slice(at + 1);
  return changed.replace(/^0+(?=\d)/, '');
}

/**
 * The gold solution with one slip at a uniformly drawn step: a column that writes a wrong digit (the answer then
 * reads the digits as written), or a wrong final answer. Columns are independent given their carries, so each step is
 * labelled by its own correctness: the slipped column and the answer step are wrong, the other columns right.
 */
export function corruptArithmetic(problem: Problem, rng: Rng): LabelledSolution {
  const columns = problem.steps.slice(0, -1);
  const at = rng.int(columns.length + 1);
  const steps = [...columns];
  let answer: string;
  if (at < columns.length) {
    const digit = writtenDigit(columns[at]);
    steps[at] = columns[at].replace(WRITTEN, `Write ${(digit + 1 + rng.int(9)) % 10}`);
    answer = steps.map(writtenDigit).reverse().join('').replace(/^0+(?=\d)/, '');
  } else {
    answer = wrongNumber(problem.answer, rng);
  }
  steps.push(boxedAnswerStep(answer));
  return { solution: joinSteps(steps), steps, stepLabels: steps.map((_, k) => k !== at && k !== columns.length) };
}
