import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { z } from 'zod';
import { LudusError } from '../../../core/errors.ts';
import { parseOptions } from '../parse-options.ts';
import type { Task } from '../../../core/tasks/task.ts';
import { finiteTask } from './finite-task.ts';
import { parseJsonlProblems } from './parse-jsonl-problems.ts';

export const JsonlOptionsSchema = z.strictObject({
  name: z.string().min(1).optional(),
  /** The whole file is this one split. */
  split: z.enum(['train', 'validation', 'test']).default('test'),
});

export type JsonlOptionsInput = z.input<typeof JsonlOptionsSchema>;

/** A JSONL math set ({problem, answer}, {problem, solution} or GSM8K's {question, answer}) as a task. */
export async function loadJsonlTask(path: string, input: JsonlOptionsInput = {}): Promise<Task> {
  const options = parseOptions(JsonlOptionsSchema, input, `task "${path}"`);
  const name = options.name ?? basename(path, '.jsonl');
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new LudusError('INPUT_INVALID', `${path}: cannot read the problem set (${error.code ?? error.message})`, { file: path });
  });
  return finiteTask(name, options.split, parseJsonlProblems(text, path, name));
}
