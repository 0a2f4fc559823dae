import { fail } from '../../core/errors.ts';
import type { Task } from '../../core/tasks/task.ts';

/** Where a task's validation problems come from: its own validation split, or held out of its training split. */
export interface ValidationSource {
  readonly split: 'validation';
  /** Problems taken off the end of the train split to validate on; 0 where the task has a validation split of its own. */
  readonly heldOutOfTrain: number;
}

/**
 * The task as a training run sees it, with a validation split that is never the test split: a task with a validation
 * split is returned as it is; one without (a JSONL set given as train and test files, the MATH/AIME case) gets the last
 * `count` problems of its train split as validation, and training draws only from the rest. A task that cannot spare
 * them (no train split, or one of at most `count` problems) is refused: choosing best/ on the test problems an
 * evaluation then reports would leak the test set into model selection.
 */
export function withValidationSplit(task: Task, count: number): { task: Task; source: ValidationSource } {
  if (task.size('validation') > 0) return { task, source: { split: 'validation', heldOutOfTrain: 0 } };
  const trainSize = task.size('train');
  if (!(trainSize > count)) {
    fail('DATA_INVALID', `task "${task.name}" has no validation split, and its train split (${trainSize} problems) cannot spare ${count} to hold out: give it a validation file, fewer validationProblems, or validateEvery 0 (the final checkpoint, no selection)`, {
      task: task.name,
      train: trainSize,
      validationProblems: count,
    });
  }
  const kept = trainSize - count;
  const trainOnly = (index: number) => index % kept;
  const held = (index: number) => kept + (index % count);
  return {
    task: {
      ...task,
      size: (split) => (split === 'train' ? kept : split === 'validation' ? count : task.size(split)),
      sample: (split, index, seed) => (split === 'train' ? task.sample('train', trainOnly(index)) : split === 'validation' ? task.sample('train', held(index)) : task.sample(split, index, seed)),
      problems: (split, n, seed) =>
        split === 'train' || split === 'validation'
          ? Array.from({ length: Math.min(n, split === 'train' ? kept : count) }, (_, i) => (split === 'train' ? task.sample('train', trainOnly(i)) : task.sample('train', held(i))))
          : task.problems(split, n, seed),
    },
    source: { split: 'validation', heldOutOfTrain: count },
  };
}
