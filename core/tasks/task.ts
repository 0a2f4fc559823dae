import type { Rng } from '../rng.ts';

/**
 * `train` problems are what training draws from; `validation` problems select checkpoints during training; `test`
 * problems are what an evaluation reports. The three are disjoint.
 */
export type Split = 'train' | 'validation' | 'test';

export const SPLITS: readonly Split[] = ['train', 'validation', 'test'];

/**
 * One problem with its gold solution. `solution` is `steps.join('\n\n')`; its last step
 * holds the final answer in `\boxed{answer}`.
 */
export interface Problem<Meta extends object = Record<string, unknown>> {
  id: string;
  /** The problem statement alone. */
  question: string;
  /** What the model is asked to do with it: reason step by step and give the final answer in `\boxed{}`. */
  instruction: string;
  /**
   * The plain-text layout of question and instruction a base model continues with its solution (`questionPrompt`).
   * A model with a chat template is prompted with question and instruction as one user turn instead (`promptText`).
   */
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
  /**
   * Where the task's method has a rule a student can skip (a carry or borrow that is due): the problem worked by a
   * student who skips each application of it with probability `rate`, independently, and carries on consistently
   * from what was written. Labels mark the steps that differ from the gold solution's.
   */
  slipped?(problem: Problem<Meta>, rate: number, rng: Rng): LabelledSolution;
  /**
   * Where the task can: a `slipped` solution (at `rate`) and a verifier's judgment of it that checks each step locally
   * against the step before it, as written, and misses each slip with probability `missRate` (the verifier's designed
   * flaw): every step up to the first slip it catches is judged by what it should say given what came before, that
   * step and every later one are wrong, and the final verdict is correct exactly when it caught none.
   */
  judgedSlip?(problem: Problem<Meta>, rate: number, missRate: number, rng: Rng): JudgedSolution;
  /**
   * Where the task's working spells out the answer as it goes (arithmetic's `Write d` lines, one digit per column): the
   * answer that working in `text` reads, or null when it reads none. Agon's withheld summary is measured with it: a
   * summary whose working reads the draft's answer has not withheld it.
   */
  answerInWork?(text: string): string | null;
}

/** A solution with a verifier's working and verdict on each step, and its final verdict. */
export interface JudgedSolution {
  readonly solution: LabelledSolution;
  readonly judgments: readonly { readonly justification: string; readonly correct: boolean }[];
  readonly final: boolean;
}
