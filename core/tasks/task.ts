import type { Rng } from '../rng.ts';

export type Split = 'train' | 'test';

export const SPLITS: readonly Split[] = ['train', 'test'];

/**
 * One problem with its gold solution. `solution` is `steps.join('\n\n')`; its last step
 * holds the final answer in `\boxed{answer}`.
 */
export interface Problem<Meta extends object = Record<string, unknown>> {
  id: string;
  /** Plain text a model continues with the solution; see `questionPrompt`. */
  prompt: string;
  answer: string;
  solution: string;
  steps: string[];
  /** Gold correctness of each step, where the task defines it (one per step). */
  stepLabels?: boolean[];
  meta: Meta;
}

/** A solution with known wrong steps, for training and checking verifiers. */
export interface LabelledSolution {
  solution: string;
  steps: string[];
  stepLabels: boolean[];
}

export interface Task<Meta extends object = Record<string, unknown>> {
  name: string;
  /** How many distinct indices a split holds: Infinity for generators, 0 for a split a file lacks. */
  size(split: Split): number;
  /** Same (split, index, seed) gives the same problem. A finite split cycles: index wraps around its size. */
  sample(split: Split, index: number, seed?: number): Problem<Meta>;
  /** Problems 0..count-1 of a split (at most its size). */
  problems(split: Split, count: number, seed?: number): Problem<Meta>[];
  /** Where the task can: the problem's gold solution with known wrong steps. */
  corrupt?(problem: Problem<Meta>, rng: Rng): LabelledSolution;
  /**
   * Where the task can: what gold step `step` of the problem must state, in few words (`ends with "t", so far "st".`):
   * the working a verifier writes before judging that step.
   */
  stepCheck?(problem: Problem<Meta>, step: number): string;
}
