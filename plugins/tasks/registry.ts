import { fail } from '../../core/errors.ts';
import { arithmeticTask } from './arithmetic/arithmetic-task.ts';
import { dealsTask } from './deals/deals-task.ts';
import { loadJsonlTask, loadTaskFile } from './jsonl/load-jsonl-task.ts';
import { lastLetterTask } from './last-letter/last-letter-task.ts';
import { multiplicationTask } from './multiplication/multiplication-task.ts';
import type { Task } from '../../core/tasks/task.ts';

const GENERATORS: Record<string, (options: Record<string, unknown>) => Task> = {
  arithmetic: (options) => arithmeticTask(options),
  'last-letter': (options) => lastLetterTask(options),
  world: () => dealsTask(),
  multiplication: (options) => multiplicationTask(options),
};

export const KNOWN_TASKS = [...Object.keys(GENERATORS), '<path>.jsonl', '<path>.parquet', '<task file>.json'];

/** Refuses a name that is neither a generated task, a JSONL or parquet file nor a task file, naming the task (CONFIG_INVALID). */
export function checkTaskName(name: string): void {
  if (!Object.hasOwn(GENERATORS, name) && !name.endsWith('.jsonl') && !name.endsWith('.parquet') && !name.endsWith('.json')) fail('CONFIG_INVALID', `unknown task "${name}" (known: ${KNOWN_TASKS.join(', ')})`, { name, known: KNOWN_TASKS });
}

/**
 * The grader plugin a task's answers need where mathematics would misread them: last-letter's answers are strings of
 * letters, which the math grader reads as products (`abx` = `bax`). Undefined: the run's own (the math grader).
 */
export function graderForTask(name: string): string | undefined {
  return name === 'last-letter' ? 'exact' : undefined;
}

/** A task by the name a config or the CLI gives; options are checked by the task itself. */
export async function taskByName(name: string, options: Record<string, unknown> = {}): Promise<Task> {
  checkTaskName(name);
  if (Object.hasOwn(GENERATORS, name)) return GENERATORS[name](options);
  if (name.endsWith('.json')) {
    if (Object.keys(options).length > 0) fail('CONFIG_INVALID', `task file ${name}: its options live in the file, not beside it`, { name });
    return loadTaskFile(name);
  }
  return loadJsonlTask(name, options);
}
