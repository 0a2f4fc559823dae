import type { Rng } from '../../../core/rng.ts';
import { boxedAnswerStep, joinSteps } from '../prompt.ts';
import type { LabelledSolution, Problem } from '../../../core/tasks/task.ts';
import { randomLetter } from './pronounceable-word.ts';
import { goldAnswer, goldWordSteps, wordStep } from './steps.ts';

export type LastLetterMeta = { words: string[] };

/** A slip on one word: the letter the step claims and the running string it writes (none when it cannot apply). */
type Mistake = (word: string, before: string, rng: Rng) => { letter: string; soFar: string } | undefined;

const lastOf = (word: string) => word[word.length - 1];
const claiming = (letter: string | undefined, before: string) => (letter === undefined ? undefined : { letter, soFar: before + letter });

const MISTAKES: Mistake[] = [
  (word, before) => claiming(word.at(0), before),
  (word, before) => claiming(word.at(-2), before),
  (word, before, rng) => claiming(randomLetter(rng, lastOf(word)), before),
  (word, before) => ({ letter: lastOf(word), soFar: before }),
];

function wrongWordStep(words: readonly string[], k: number, before: string, rng: Rng): { step: string; soFar: string } {
  const word = words[k];
  const gold = before + lastOf(word);
  const candidates = MISTAKES.map((mistake) => mistake(word, before, rng)).filter((slip) => slip !== undefined && slip.soFar !== gold && slip.soFar.length > 0);
  const { letter, soFar } = candidates[rng.int(candidates.length)]!;
  return { step: wordStep(words, k, letter, soFar), soFar };
}

function wrongAnswer(answer: string, rng: Rng): string {
  const at = rng.int(answer.length);
  if (answer.length > 1 && rng.bernoulli(0.5)) return answer.slice(0, at) + answer.slice(at + 1);
  return answer.slice(0, at) + randomLetter(rng, answer[at]) + answer.slice(at + 1);
}

/**
 * The gold solution with one mistake at a uniformly drawn step: a wrong letter or a dropped
 * append in a word step, or a wrong final answer. A step is labelled correct while the
 * solution is still on the gold path, so every step from the mistake on is labelled false;
 * later steps append faithfully to the wrong running string, as a model that slipped once would.
 */
export function corruptLastLetter(problem: Problem<LastLetterMeta>, rng: Rng): LabelledSolution {
  const { words } = problem.meta;
  const mistakeAt = rng.int(words.length + 1);
  const gold = goldWordSteps(words);
  const steps = gold.slice(0, mistakeAt);
  let soFar = goldAnswer(words.slice(0, mistakeAt));
  if (mistakeAt < words.length) {
    const wrong = wrongWordStep(words, mistakeAt, soFar, rng);
    steps.push(wrong.step);
    soFar = wrong.soFar;
    for (let k = mistakeAt + 1; k < words.length; k++) {
      soFar += lastOf(words[k]);
      steps.push(wordStep(words, k, lastOf(words[k]), soFar));
    }
    steps.push(boxedAnswerStep(soFar));
  } else {
    steps.push(boxedAnswerStep(wrongAnswer(soFar, rng)));
  }
  return { solution: joinSteps(steps), steps, stepLabels: steps.map((_, index) => index < mistakeAt) };
}
