import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { z } from 'zod';
import { LudusError, fail } from '../../../core/errors.ts';
import { parseOptions } from '../parse-options.ts';
import { SPLITS, type Problem, type Split, type Task } from '../../../core/tasks/task.ts';
import { finiteTask } from './finite-task.ts';
import { datasetSplitFiles } from './dataset-layout.ts';
import { readProblemFile } from './parse-jsonl-problems.ts';
import { ColumnsSchema } from './read-rows.ts';

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
  columns: ColumnsSchema.default({}),
});

export type JsonlOptionsInput = z.input<typeof JsonlOptionsSchema>;

/** A JSONL or parquet math set ({problem, answer}, {problem, solution} or GSM8K's {question, answer}, or as `columns` maps them) as a task. */
export async function loadJsonlTask(path: string, input: JsonlOptionsInput = {}): Promise<Task> {
  const options = parseOptions(JsonlOptionsSchema, input, `task "${path}"`);
  const name = options.name ?? basename(path).replace(/\.(jsonl|parquet)$/, '');
  const problems = await readProblemFile(path, name, options.columns);
  return finiteTask(name, options.split === 'both' ? splitByHash(problems, options.testFraction, path) : { [options.split]: problems });
}

/**
 * A task file (`NAME.json`), so a training config can name a data set with its splits: `{"train": "a.jsonl",
 * "test": "b.jsonl"}` for a set that ships them apart, `{"file": "all.jsonl", "testFraction": 0.2}` for one file
 * divided as `split: "both"` divides it, or `{"dataset": "gsm8k"}` for a data set in Hugging Face's parquet layout
 * (its split files found by name: `data/train-00000-of-00001.parquet`, `test/0000.parquet`, ...). Files are JSONL or
 * parquet; `columns` maps the set's column names to the fields ludus reads. Paths are relative to the task file.
 */
export const TaskFileSchema = z
  .strictObject({
    name: z.string().min(1).optional(),
    train: z.string().min(1).optional(),
    validation: z.string().min(1).optional(),
    test: z.string().min(1).optional(),
    file: z.string().min(1).optional(),
    dataset: z.string().min(1).optional(),
    testFraction,
    columns: ColumnsSchema.default({}),
  })
  .refine((spec) => [spec.file !== undefined, spec.dataset !== undefined, spec.train !== undefined || spec.validation !== undefined || spec.test !== undefined].filter(Boolean).length === 1, {
    message: 'give one of "file" (one file, split by testFraction), "dataset" (a directory in Hugging Face\'s parquet layout) or "train", "validation" and/or "test" (a file per split)',
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
  if (spec.file !== undefined) return finiteTask(name, splitByHash(await readProblemFile(at(spec.file), name, spec.columns), spec.testFraction, at(spec.file)));
  const files = spec.dataset !== undefined ? await datasetSplitFiles(at(spec.dataset)) : Object.fromEntries(SPLITS.flatMap((split) => (spec[split] === undefined ? [] : [[split, [at(spec[split])]]])));
  const splits: Partial<Record<Split, Problem[]>> = {};
  for (const [split, paths] of Object.entries(files) as [Split, string[]][]) {
    splits[split] = [];
    for (const file of paths) splits[split].push(...(await readProblemFile(file, name, spec.columns)));
  }
  return finiteTask(name, splits);
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
