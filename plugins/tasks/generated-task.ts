import { fail } from '../../core/errors.ts';
import { Rng, deriveSeed } from '../../core/rng.ts';
import { boxedAnswerStep, joinSteps, questionPrompt, STEP_BY_STEP_INSTRUCTION } from './prompt.ts';
import { splitOf } from './split-of.ts';
import type { Problem, Split, Task } from '../../core/tasks/task.ts';

/** What a generator draws; `canonical` names the problem (not its wording) and decides its split. */
export interface DrawnProblem<Meta extends object> {
  canonical: string;
  question: string;
  answer: string;
  /** Reasoning steps; the boxed answer step is appended. */
  steps: string[];
  meta: Meta;
}

export type CanonicalMeta = { canonical: string };

const SPLIT_SALT: Record<Split, number> = { train: 1, test: 2, validation: 3 };
const MAX_DRAWS = 10_000;

/**
 * An endless, seeded task. A draw whose canonical form hashes into another split is
 * discarded and drawn again, so train, validation and test never share a problem.
 */
export function generatedTask<Meta extends object>(
  name: string,
  defaultSeed: number,
  draw: (split: Split, rng: Rng) => DrawnProblem<Meta>,
  stepLabelsOf?: (steps: string[]) => boolean[],
): Task<Meta & CanonicalMeta> {
  const sample = (split: Split, index: number, seed = defaultSeed): Problem<Meta & CanonicalMeta> => {
    if (!Number.isSafeInteger(index) || index < 0) fail('INPUT_INVALID', `${name}: problem index ${index} is not a non-negative integer`, { index });
    const rng = new Rng(deriveSeed(seed, SPLIT_SALT[split], index));
    for (let attempt = 0; attempt < MAX_DRAWS; attempt++) {
      const drawn = draw(split, rng);
      if (splitOf(`${name}:${drawn.canonical}`) !== split) continue;
      const steps = [...drawn.steps, boxedAnswerStep(drawn.answer)];
      return {
        id: `${name}/${split}/${seed}/${index}`,
        question: drawn.question,
        instruction: STEP_BY_STEP_INSTRUCTION,
        prompt: questionPrompt(drawn.question, STEP_BY_STEP_INSTRUCTION),
        answer: drawn.answer,
        solution: joinSteps(steps),
        steps,
        ...(stepLabelsOf ? { stepLabels: stepLabelsOf(steps) } : {}),
        meta: { ...drawn.meta, canonical: drawn.canonical },
      };
    }
    return fail('CONFIG_INVALID', `${name}: ${MAX_DRAWS} draws gave no ${split} problem; the options leave too few distinct problems`, { split });
  };
  return {
    name,
    size: () => Infinity,
    sample,
    problems: (split, count, seed) => Array.from({ length: count }, (_, index) => sample(split, index, seed)),
  };
}
