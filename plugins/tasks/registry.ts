import { fail } from '../../core/errors.ts';
import { arithmeticTask } from './arithmetic/arithmetic-task.ts';
import { loadJsonlTask } from './jsonl/load-jsonl-task.ts';
import { lastLetterTask } from './last-letter/last-letter-task.ts';
import type { Task } from '../../core/tasks/task.ts';

const GENERATORS: Record<string, (options: Record<string, unknown>) => Task> = {
  arithmetic: (options) => arithmeticTask(options),
  'last-letter': (options) => lastLetterTask(options),
};

export const KNOWN_TASKS = [...Object.keys(GENERATORS), '<path>.jsonl'];

/** Refuses a name that is neither a generated task nor a JSONL file, naming the task (CONFIG_INVALID). */
export function checkTaskName(name: string): void {
  if (!Object.hasOwn(GENERATORS, name) && !name.endsWith('.jsonl')) fail('CONFIG_INVALID', `unknown task "${name}" (known: ${KNOWN_TASKS.join(', ')})`, { name, known: KNOWN_TASKS });
}

/** A task by the name a config or the CLI gives; options are checked by the task itself. */
export async function taskByName(name: string, options: Record<string, unknown> = {}): Promise<Task> {
  checkTaskName(name);
  return Object.hasOwn(GENERATORS, name) ? GENERATORS[name](options) : loadJsonlTask(name, options);
}
