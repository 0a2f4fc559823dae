import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { z } from 'zod';
import { LudusError, fail } from '../../../core/errors.ts';
import { parseOptions } from '../parse-options.ts';
import { SPLITS, type Problem, type Split, type Task } from '../../../core/tasks/task.ts';
import { finiteTask } from './finite-task.ts';
import { parseJsonlProblems } from './parse-jsonl-problems.ts';

/** With `split: "both"`, the share of rows held out for testing when the config does not say (ours). */
export const DEFAULT_TEST_FRACTION = 0.2;

const testFraction = z.number().gt(0).lt(1).default(DEFAULT_TEST_FRACTION);

export const JsonlOptionsSchema = z.strictObject({
  name: z.string().min(1).optional(),
  /**
   * Which split the file's rows are: `test` (how benchmarks ship), `train`, `validation`, or `both`: each row's split
   * drawn from a hash of its problem text, `testFraction` of them test, so a row stays in its split whatever the
   * file's order.
   */
  split: z.enum(['train', 'validation', 'test', 'both']).default('test'),
  testFraction,
});

export type JsonlOptionsInput = z.input<typeof JsonlOptionsSchema>;

/** A JSONL math set ({problem, answer}, {problem, solution} or GSM8K's {question, answer}) as a task. */
export async function loadJsonlTask(path: string, input: JsonlOptionsInput = {}): Promise<Task> {
  const options = parseOptions(JsonlOptionsSchema, input, `task "${path}"`);
  const name = options.name ?? basename(path, '.jsonl');
  const problems = await readProblems(path, name);
  return finiteTask(name, options.split === 'both' ? splitByHash(problems, options.testFraction, path) : { [options.split]: problems });
}

/**
 * A task file (`NAME.json`), so a training config can name a JSONL set with its splits: `{"train": "a.jsonl",
 * "test": "b.jsonl"}` for a set that ships them apart, or `{"file": "all.jsonl", "testFraction": 0.2}` for one file
 * divided as `split: "both"` divides it. Paths are relative to the task file.
 */
export const TaskFileSchema = z
  .strictObject({
    name: z.string().min(1).optional(),
    train: z.string().min(1).optional(),
    validation: z.string().min(1).optional(),
    test: z.string().min(1).optional(),
    file: z.string().min(1).optional(),
    testFraction,
  })
  .refine((spec) => (spec.file === undefined) !== (spec.train === undefined && spec.validation === undefined && spec.test === undefined), {
    message: 'give either "file" (one JSONL file, split by testFraction) or "train", "validation" and/or "test" (a JSONL file per split)',
  });

export async function loadTaskFile(path: string): Promise<Task> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new LudusError('INPUT_INVALID', `${path}: cannot read the task file (${error.code ?? error.message})`, { file: path });
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return fail('CONFIG_INVALID', `${path}: not valid JSON (${(error as Error).message})`, { file: path });
  }
  const spec = parseOptions(TaskFileSchema, json, `task file ${path}`);
  const name = spec.name ?? basename(path, '.json');
  const at = (file: string) => resolve(dirname(path), file);
  if (spec.file !== undefined) return finiteTask(name, splitByHash(await readProblems(at(spec.file), name), spec.testFraction, at(spec.file)));
  const splits: Partial<Record<Split, Problem[]>> = {};
  for (const split of SPLITS) {
    const file = spec[split];
    if (file !== undefined) splits[split] = await readProblems(at(file), name);
  }
  return finiteTask(name, splits);
}

async function readProblems(path: string, name: string): Promise<Problem[]> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new LudusError('INPUT_INVALID', `${path}: cannot read the problem set (${error.code ?? error.message})`, { file: path });
  });
  return parseJsonlProblems(text, path, name);
}

/** A number in [0, 1) fixed by the text alone. */
const unitHash = (text: string): number => createHash('sha256').update(text).digest().readUInt32BE(0) / 2 ** 32;

/** Rows into train and test by a hash of each problem's prompt: the same question always lands in the same split. */
function splitByHash(problems: readonly Problem[], testFraction: number, path: string): Record<'train' | 'test', Problem[]> {
  const splits: Record<'train' | 'test', Problem[]> = { train: [], test: [] };
  for (const problem of problems) splits[unitHash(problem.prompt) < testFraction ? 'test' : 'train'].push(problem);
  for (const split of ['train', 'test'] as const) {
    if (splits[split].length === 0) {
      fail('DATA_INVALID', `${path}: none of its ${problems.length} rows fell into the ${split} split at testFraction ${testFraction}; give more rows or another testFraction`, { file: path, split });
    }
  }
  return splits;
}
