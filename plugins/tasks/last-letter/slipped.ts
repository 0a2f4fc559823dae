import type { Rng } from '../../../core/rng.ts';
import type { LabelledSolution, Problem } from '../../../core/tasks/task.ts';
import { boxedAnswerStep, joinSteps } from '../prompt.ts';
import type { LastLetterMeta } from './corrupt.ts';
import { wordStep } from './steps.ts';

/**
 * The base's designed flaw for last-letter (ours, after the arithmetic base's forgotten carry): the walk of a pupil
 * who, at each word, takes the letter before the last with probability `rate` (an off-by-one slip, visible in the
 * step that states the word), independently, and carries on appending faithfully to what was written. A word whose
 * last two letters are equal cannot show the slip. Labels mark the steps that differ from the gold solution's.
 */
export function slippedLastLetter(problem: Problem<LastLetterMeta>, rate: number, rng: Rng): LabelledSolution {
  let soFar = '';
  const { words } = problem.meta;
  const steps = words.map((word, k) => {
    const letter = rng.bernoulli(rate) && word.length > 1 ? word[word.length - 2] : word[word.length - 1];
    soFar += letter;
    return wordStep(words, k, letter, soFar);
  });
  steps.push(boxedAnswerStep(soFar));
  return { solution: joinSteps(steps), steps, stepLabels: steps.map((step, i) => step === problem.steps[i]) };
}
