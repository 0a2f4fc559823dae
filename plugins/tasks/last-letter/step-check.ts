import type { Problem } from '../../../core/tasks/task.ts';
import type { LastLetterMeta } from './corrupt.ts';
import { goldAnswer } from './steps.ts';

/** What gold step `step` states: the word's last letter and the letters so far, or the answer on the last step. */
export function lastLetterStepCheck(problem: Problem<LastLetterMeta>, step: number): string {
  const { words } = problem.meta;
  if (step >= words.length) return `the answer is "${goldAnswer(words)}".`;
  const word = words[step];
  return `ends with "${word[word.length - 1]}", so far "${goldAnswer(words.slice(0, step + 1))}".`;
}
