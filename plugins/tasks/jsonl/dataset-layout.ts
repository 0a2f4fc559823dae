import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { fail } from '../../../core/errors.ts';
import { SPLITS, type Split } from '../../../core/tasks/task.ts';

/**
 * The parquet files of a data set laid out as the Hugging Face Hub lays them out, by split: a file's split is the
 * folder it sits in (`test/0000.parquet`, the Hub's parquet conversion) or the start of its name
 * (`data/train-00000-of-00002.parquet`, what `push_to_hub` writes). Files of one split are read in name order.
 */
export async function datasetSplitFiles(dir: string): Promise<Partial<Record<Split, string[]>>> {
  const files = (await parquetFiles(dir, 3)).sort();
  const found: Partial<Record<Split, string[]>> = {};
  for (const file of files) {
    const parts = relative(dir, file).split(sep);
    const name = parts.at(-1)!;
    const split = SPLITS.find((s) => parts.slice(0, -1).includes(s) || new RegExp(`^${s}([-_.]|$)`).test(name));
    if (split) (found[split] ??= []).push(file);
  }
  if (Object.keys(found).length === 0) {
    fail('DATA_INVALID', `${dir}: no parquet file named for a split (${SPLITS.join(', ')}) as the Hugging Face layout names them (found: ${files.map((f) => relative(dir, f)).join(', ') || 'none'})`, { dir });
  }
  return found;
}

async function parquetFiles(dir: string, depth: number): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) =>
    fail('INPUT_INVALID', `${dir}: cannot read the data set directory (${error.code ?? error.message})`, { dir }),
  );
  const nested = await Promise.all(entries.map(async (entry) => (entry.isDirectory() && depth > 0 && !entry.name.startsWith('.') ? parquetFiles(join(dir, entry.name), depth - 1) : [])));
  return [...entries.filter((entry) => entry.isFile() && entry.name.endsWith('.parquet')).map((entry) => join(dir, entry.name)), ...nested.flat()];
}
