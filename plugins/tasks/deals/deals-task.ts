import { deriveSeed } from '../../../core/rng.ts';
import { SPLITS, type Problem, type Split, type Task } from '../../../core/tasks/task.ts';

/** Keeps the three splits' deals apart. */
const SPLIT_STREAM: Record<Split, number> = { train: 1, validation: 2, test: 3 };

/**
 * The problems of a world game: deals. Problem `index` of a split is the seed of one deal (the world's `setup` draws
 * cards, values, who starts from it); there is no question and no gold answer, the other player is the signal. The
 * matches of one group share their deal, so a group compares moves from the same cards.
 */
export function dealsTask(): Task<{ deal: number }> {
  const sample = (split: Split, index: number, seed = 0): Problem<{ deal: number }> => ({
    id: `deal-${split}-${index}`,
    question: '',
    instruction: '',
    prompt: '',
    answer: '',
    solution: '',
    steps: [],
    meta: { deal: deriveSeed(seed, SPLIT_STREAM[split], index) },
  });
  return {
    name: 'world',
    size: (split) => (SPLITS.includes(split) ? Infinity : 0),
    sample,
    problems: (split, count, seed) => Array.from({ length: count }, (_, i) => sample(split, i, seed)),
  };
}
