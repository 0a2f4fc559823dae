import type { Rng } from '../../../core/rng.ts';
import { generatedTask, type CanonicalMeta } from '../generated-task.ts';
import { parseOptions } from '../parse-options.ts';
import type { Task } from '../../../core/tasks/task.ts';
import { corruptLastLetter, type LastLetterMeta } from './corrupt.ts';
import { LastLetterOptionsSchema, type LastLetterOptionsInput } from './options.ts';
import { pronounceableWord } from './pronounceable-word.ts';
import { slippedLastLetter } from './slipped.ts';
import { lastLetterStepCheck } from './step-check.ts';
import { goldAnswer, goldWordSteps, lastLetterQuestion } from './steps.ts';

export type LastLetterTask = Task<LastLetterMeta & CanonicalMeta> & Required<Pick<Task<LastLetterMeta & CanonicalMeta>, 'corrupt' | 'stepCheck' | 'slipped'>>;

const between = (rng: Rng, [min, max]: readonly [number, number]) => min + rng.int(max - min + 1);

/** Last-letter concatenation (Tango appendix B.2) with gold step labels. */
export function lastLetterTask(input: LastLetterOptionsInput = {}): LastLetterTask {
  const options = parseOptions(LastLetterOptionsSchema, input, 'task "last-letter"');
  const task = generatedTask<LastLetterMeta>(
    'last-letter',
    options.seed,
    (split, rng) => {
      // Validation selects checkpoints for the test set, so it is drawn like test problems.
      const shape = options[split === 'train' ? 'train' : 'test'];
      const words = Array.from({ length: between(rng, shape.words) }, () => pronounceableWord(rng, between(rng, shape.letters)));
      return {
        canonical: words.join(' '),
        question: lastLetterQuestion(words),
        answer: goldAnswer(words),
        steps: goldWordSteps(words),
        meta: { words },
      };
    },
    (steps) => steps.map(() => true),
  );
  return { ...task, corrupt: corruptLastLetter, stepCheck: lastLetterStepCheck, slipped: slippedLastLetter };
}
